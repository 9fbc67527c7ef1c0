import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as forward, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openPostgres } from '../../db/database.ts';
import { createSealer, sha256 } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import { absolute, browse, CookieJar, startAuthorization, submitSignIn } from '../../test/browser-flow.ts';
import { freePort } from '../../test/harness.ts';
import { KEYS_CHANNEL, rotateSigningKeys } from '../oidc/keys.ts';

/**
 * Two server processes on one PostgreSQL database behind a round-robin load balancer (a small
 * proxy here), as README's "Several instances" describes: what one instance changes, the other
 * applies within a second; budgets, lock-outs and quotas hold across both. A browser pinned to
 * one instance carries the cookie `to=a` or `to=b`; the proxy sends the others in turn.
 */
const serverUrl = process.env.TESSERA_TEST_DATABASE_URL;
const repoRoot = fileURLToPath(new URL('../../../../../', import.meta.url));
const ADMIN_PASSWORD = 'Two-Instances-Admin-1';
const USER_QUOTA = 6;

interface Instance {
  name: 'a' | 'b';
  url: string;
  child: ChildProcess;
  output: string;
}

let databaseName: string;
let database: DatabaseHandle;
let masterKey: Buffer;
let proxy: Server;
let proxyUrl: string;
let dataDir: string;
const instances: Instance[] = [];

function startInstance(name: 'a' | 'b', port: number, databaseUrl: string): Instance {
  const child = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', 'packages/server/src/main.ts'],
    {
      cwd: repoRoot,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        PORT: String(port),
        HOST: '127.0.0.1',
        TESSERA_PUBLIC_URL: proxyUrl,
        TESSERA_DATA_DIR: join(dataDir, name),
        TESSERA_MASTER_KEY: masterKey.toString('hex'),
        TESSERA_BOOTSTRAP_ADMIN_USERNAME: 'admin',
        TESSERA_BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
        TESSERA_COMPANY_USER_QUOTA: String(USER_QUOTA),
        // Both would listen on RADIUS's default port 1812: the second could not start.
        TESSERA_RADIUS_PORT: 'off',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const instance: Instance = { name, url: `http://127.0.0.1:${port}`, child, output: '' };
  const keep = (chunk: Buffer) => {
    instance.output = (instance.output + chunk.toString()).slice(-8_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  process.once('exit', () => child.kill('SIGKILL'));
  return instance;
}

async function ready(instance: Instance) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (instance.child.exitCode !== null)
      throw new Error(`instance ${instance.name} exited (${instance.child.exitCode}):\n${instance.output}`);
    const answer = await fetch(`${instance.url}/readyz`).catch(() => undefined);
    if (answer?.ok) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`instance ${instance.name} not ready within 120 s:\n${instance.output}`);
}

/** The round-robin proxy; a `to=a|b` cookie pins a browser to one instance. */
function startProxy(port: number) {
  let turn = 0;
  const server = createServer((incoming, outgoing) => {
    const pinned = /(?:^|;\s*)to=([ab])/.exec(incoming.headers.cookie ?? '')?.[1];
    const target = instances.find((i) => i.name === pinned) ?? instances[turn++ % instances.length];
    const url = new URL(incoming.url ?? '/', target?.url);
    const upstream = forward(
      url,
      { method: incoming.method, headers: { ...incoming.headers, host: `localhost:${port}` } },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
    incoming.pipe(upstream);
  });
  return new Promise<Server>((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

const instance = (name: 'a' | 'b') => instances.find((i) => i.name === name) as Instance;

/** A console call to one instance, as the console sends it. */
async function api<T = Record<string, unknown>>(
  to: 'a' | 'b',
  path: string,
  body: unknown,
  as: { token: string; companyId?: string },
) {
  const answer = await fetch(`${instance(to).url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      access_token: as.token,
      ...(as.companyId ? { company_id: as.companyId } : {}),
    },
    body: JSON.stringify(body),
  });
  return (await answer.json()) as { code: number; msg: string; data: T };
}

/** A console session of the account (the console's own sign-in is tested in session.test.ts). */
async function consoleSession(accountId: string) {
  const token = randomBytes(32).toString('base64url');
  await database.db
    .insertInto('console_sessions')
    .values({
      id: newId(),
      token_hash: sha256(token),
      account_id: accountId,
      variant: 'dev',
      id_token: null,
      refresh_token_sealed: null,
      idle_expires_at: new Date(Date.now() + 3_600_000),
      absolute_expires_at: new Date(Date.now() + 7_200_000),
    })
    .execute();
  return token;
}

/** A password attempt on the user centre's sign-in page, through the proxy, pinned to one instance. */
async function signIn(to: 'a' | 'b', identifier: string, password: string) {
  const jar = new CookieJar();
  jar.cookies.set('to', to);
  const first = await browse(jar, `${proxyUrl}/portal/account`);
  const posted = await submitSignIn(jar, first.url, identifier, password);
  return posted.status === 303;
}

/** Waits until `check` holds, for at most a second. */
const withinOneSecond = (check: () => Promise<unknown>) =>
  expect.poll(check, { timeout: 1_000, interval: 25 }).toBe(true);

let owner: { token: string; companyId: string; accountId: string };
const members: { id: string; username: string }[] = [];

describe.skipIf(!serverUrl)('two instances on one PostgreSQL', () => {
  beforeAll(async () => {
    databaseName = `tessera_two_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`create database ${databaseName}`);
    await admin.end();
    const url = new URL(serverUrl as string);
    url.pathname = `/${databaseName}`;
    masterKey = randomBytes(32);
    dataDir = await mkdtemp(join(tmpdir(), 'tessera-two-'));
    const [proxyPort, portA, portB] = [await freePort(), await freePort(), await freePort()];
    proxyUrl = `http://localhost:${proxyPort}`;
    proxy = await startProxy(proxyPort);
    // Both start together on an empty database: one applies the migrations, the other waits.
    instances.push(startInstance('a', portA, url.toString()), startInstance('b', portB, url.toString()));
    await Promise.all(instances.map(ready));
    database = await openPostgres(url.toString(), { onConnectionError: () => {} });

    const account = await database.db
      .selectFrom('accounts')
      .select('id')
      .where('username', '=', 'admin')
      .executeTakeFirstOrThrow();
    const token = await consoleSession(account.id);
    const created = await api<{ companyId: string }>(
      'a',
      '/api/v1/manage/company/create',
      { name: 'Twin Ltd' },
      { token },
    );
    expect(created.code, created.msg).toBe(200);
    owner = { token, companyId: created.data.companyId, accountId: account.id };
  }, 180_000);

  afterAll(async () => {
    await Promise.all(
      instances.map(async (i) => {
        if (i.child.exitCode !== null) return;
        i.child.kill('SIGTERM');
        await new Promise((resolve) => i.child.once('exit', resolve));
      }),
    );
    await new Promise((resolve) => proxy?.close(resolve));
    await database?.close();
    if (databaseName) {
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${databaseName} with (force)`);
      await cleanup.end();
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('holds the company user quota across both: parallel creations split over them stop at the quota', async () => {
    const attempts = Array.from({ length: 10 }, (_, i) =>
      api<{ userId: string }>(
        i % 2 ? 'b' : 'a',
        '/api/v1/manage/company/user/create',
        {
          username: `twin${i}`,
          role: 'member',
          password: 'Sunny-Day-42',
        },
        owner,
      ),
    );
    const answers = await Promise.all(attempts);
    const createdCount = answers.filter((a) => a.code === 200).length;
    const { count } = await database.db
      .selectFrom('company_members')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('company_id', '=', owner.companyId)
      .executeTakeFirstOrThrow();
    expect(Number(count)).toBe(USER_QUOTA);
    // The owner holds one place.
    expect(createdCount).toBe(USER_QUOTA - 1);
    answers.forEach((a, i) => {
      if (a.code === 200) members.push({ id: a.data.userId, username: `twin${i}` });
    });
  });

  it('signs a browser in while the load balancer alternates its requests between the instances', async () => {
    const jar = new CookieJar();
    const first = await browse(jar, `${proxyUrl}/portal/account`);
    const posted = await submitSignIn(jar, first.url, 'admin', ADMIN_PASSWORD);
    expect(posted.status).toBe(303);
    const page = await browse(jar, absolute(first.url, posted.headers.get('location')));
    expect(page.url).toContain('/portal/account');
    expect(page.response.status).toBe(200);
  });

  it('refuses on one a console session ended on the other, within a second', async () => {
    const token = await consoleSession(owner.accountId);
    const details = () => api('b', '/api/v1/manage/user/self-details', {}, { token });
    expect((await details()).code).toBe(200);
    expect((await api('a', '/api/v1/dev/login/logout', {}, { token })).code).toBe(200);
    await withinOneSecond(async () => (await details()).code !== 200);
  });

  it('takes on one a password reset made on the other: the old password fails, the new one works', async () => {
    const person = members[0] as { id: string; username: string };
    expect(await signIn('b', person.username, 'Sunny-Day-42')).toBe(true);
    const reset = await api(
      'a',
      '/api/v1/manage/user/password/reset',
      {
        userId: person.id,
        mustChangePassword: false,
        password: 'Rainy-Night-77',
        confirmPassword: 'Rainy-Night-77',
      },
      owner,
    );
    expect(reset.code, reset.msg).toBe(200);
    expect(await signIn('b', person.username, 'Sunny-Day-42')).toBe(false);
    expect(await signIn('b', person.username, 'Rainy-Night-77')).toBe(true);
  });

  it("applies on one an application's new address saved on the other", async () => {
    const created = await api<{ app: { appId: string; clientId: string } }>(
      'a',
      '/api/v1/manage/app/create',
      { name: 'Twin Wiki' },
      owner,
    );
    const { appId, clientId } = created.data.app;
    const first = 'http://localhost:7101/callback';
    const second = 'http://localhost:7102/callback';
    await api('a', '/api/v1/manage/app/update', { appId, redirectUris: [first] }, owner);
    expect((await api('a', '/api/v1/manage/app/status', { appId, status: 'opened' }, owner)).code).toBe(200);
    const accepted = async (to: 'a' | 'b', redirectUri: string) => {
      const jar = new CookieJar();
      jar.cookies.set('to', to);
      const start = await startAuthorization({ baseUrl: proxyUrl, clientId, redirectUri, jar });
      // An accepted request goes on to the sign-in page; a refused one shows an error page.
      return start.status === 303 && start.location.includes('/interaction/');
    };
    expect(await accepted('b', first)).toBe(true);
    expect(await accepted('b', second)).toBe(false);
    await api('a', '/api/v1/manage/app/update', { appId, redirectUris: [second] }, owner);
    await withinOneSecond(() => accepted('b', second));
    expect(await accepted('b', first)).toBe(false);
  });

  it('publishes and signs with rotated keys on both instances within a second', async () => {
    const kids = await rotateSigningKeys(database.db, createSealer(masterKey));
    await sql`select pg_notify(${KEYS_CHANNEL}, ${kids.join(',')})`.execute(database.db);
    for (const to of ['a', 'b'] as const) {
      await withinOneSecond(async () => {
        const jwks = (await (await fetch(`${instance(to).url}/oidc/jwks`)).json()) as {
          keys: { kid: string }[];
        };
        return kids.every((kid) => jwks.keys.some((key) => key.kid === kid));
      });
    }
  });

  it('counts parallel wrong passwords split over both exactly once each, and the lock-out holds on both', async () => {
    const person = members[1] as { id: string; username: string };
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => signIn(i % 2 ? 'b' : 'a', person.username, `Wrong-${i}-pass`)),
    );
    expect(results.every((ok) => !ok)).toBe(true);
    const events = await database.db
      .selectFrom('login_events')
      .select(['failure_cause'])
      .where('account_id', '=', person.id)
      .where('result', '=', 'failure')
      .execute();
    // Every attempt is one event: none lost, none counted twice.
    expect(events).toHaveLength(100);
    const wrong = events.filter((e) => e.failure_cause === 'wrong_password').length;
    const locked = events.filter((e) => e.failure_cause === 'account_locked').length;
    expect(wrong + locked).toBe(100);
    const row = await database.db
      .selectFrom('accounts')
      .select(['failed_count', 'locked_until'])
      .where('id', '=', person.id)
      .executeTakeFirstOrThrow();
    // The count of wrong passwords is the account's, whichever instance judged them.
    expect(row.failed_count).toBe(wrong);
    expect(wrong).toBeGreaterThanOrEqual(5);
    expect(row.locked_until && row.locked_until > new Date()).toBe(true);
    // Locked on both: the right password is refused everywhere.
    expect(await signIn('a', person.username, 'Sunny-Day-42')).toBe(false);
    expect(await signIn('b', person.username, 'Sunny-Day-42')).toBe(false);
  }, 120_000);
});
