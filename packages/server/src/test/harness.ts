import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import pg from 'pg';
import { buildApp, type TesseraApp } from '../app.ts';
import {
  type CompanyQuotas,
  type Config,
  defaultExchangeConfig,
  type ExchangeConfig,
  type MailConfig,
} from '../config.ts';
import { type DatabaseHandle, openPglite, openPostgres, type QueryObserver } from '../db/database.ts';
import { migrate } from '../db/migrations.ts';
import type { Account } from '../db/schema.ts';
import { createSealer, sha256 } from '../lib/crypto.ts';
import { newId } from '../lib/ids.ts';
import type { OutboundNetworks } from '../lib/outbound-address.ts';
import { hashPassword } from '../modules/account/password.ts';
import type { SignInPolicy } from '../modules/signin/signin.service.ts';
import type { SmsSender } from '../modules/sms/sms.ts';

/**
 * A database for one test file: a fresh PostgreSQL database when the run provides a server
 * (TESSERA_TEST_DATABASE_URL, set by scripts/with-postgres.sh), else PGlite from the dump.
 */
export async function openTestDatabase(
  options: { migrated?: boolean; log?: QueryObserver } = {},
): Promise<DatabaseHandle> {
  const serverUrl = process.env.TESSERA_TEST_DATABASE_URL;
  if (serverUrl) {
    const name = `tessera_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    // The database is dropped right after its pool ends: connections still closing then are
    // ended by the server, which is expected here.
    const handle = await openPostgres(url.toString(), { onConnectionError: () => {}, log: options.log });
    if (options.migrated !== false) await migrate(handle.db);
    return {
      ...handle,
      async close() {
        await handle.close();
        const cleanup = new pg.Client({ connectionString: serverUrl });
        await cleanup.connect();
        await cleanup.query(`drop database if exists ${name} with (force)`);
        await cleanup.end();
      },
    };
  }
  if (options.migrated === false) return openPglite({ log: options.log });
  if (!process.env.VITEST) {
    // Outside Vitest (a second server of the browser suite, e2e/flows/upstream.e2e.ts): no dump.
    const handle = await openPglite({ log: options.log });
    await migrate(handle.db);
    return handle;
  }
  const { inject } = await import('vitest');
  const dump = await readFile(inject('pgliteDump'));
  return openPglite({ loadDataDir: new Blob([dump]), log: options.log });
}

/** A free UDP port on 127.0.0.1 (a server's RADIUS port, when two run on one machine). */
export async function freeUdpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      const { port } = socket.address();
      socket.close(() => resolve(port));
    });
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface TestContext {
  tessera: TesseraApp;
  database: DatabaseHandle;
  baseUrl: string;
  masterKey: Buffer;
  close(): Promise<void>;
}

/**
 * Mail set up on a server that nobody answers: for tests of what mail allows (people imported
 * without a password) that send nothing.
 */
export const MAIL_NEVER_SENT: MailConfig = {
  smtpUrl: 'smtp://127.0.0.1:9',
  from: 'Tessera <noreply@localhost>',
};

/** The whole server on a test database; `listen` also serves it on 127.0.0.1 for real HTTP clients. */
export async function startTestApp(
  options: {
    listen?: boolean;
    signInPolicy?: Partial<SignInPolicy>;
    /** TESSERA_TRUSTED_PROXIES: tests on 127.0.0.1 trust it to name clients with X-Forwarded-For. */
    trustedProxies?: number | string[];
    session?: { idleSeconds: number; absoluteSeconds: number };
    /** Outgoing mail (mail.test.ts points it at its own SMTP server). */
    mail?: MailConfig;
    /**
     * TESSERA_OUTBOUND_ALLOWED_NETWORKS: where connections to addresses administrators typed may
     * go besides the internet. Tests' receivers (logout, metadata, Exchange, slapd) listen on
     * loopback, which is allowed unless a test says otherwise.
     */
    outboundNetworks?: OutboundNetworks;
    /** TESSERA_SYSLOG_ALLOW_LOCAL_TARGETS: true unless a test says otherwise (test receivers listen on 127.0.0.1). */
    syslogAllowLocalTargets?: boolean;
    /** The licence vendor key to trust instead of the built-in one (PEM). */
    licensePublicKey?: string;
    /**
     * What new companies get. Tests default to no limit beyond the licence, so that only the
     * tests of quotas meet them (quota.test.ts also checks the product's defaults).
     */
    companyQuotas?: CompanyQuotas;
    /** Background jobs: they run as in production unless a test turns them off (`run: false`) to run them with `tessera.jobs.drain()`. */
    jobs?: { run?: boolean; pollMs?: number; backoff?: { baseMs: number; maxMs: number } };
    /** The DingTalk, WeChat and WeCom base addresses (a provider fixture: scan-providers.ts). */
    scanProviders?: Config['scanProviders'];
    /** How long a directory may take to answer (the time-out test shortens it). */
    directoryTimeoutMs?: number;
    /** Receives the server log, from level info (tests of what the log says). */
    log?: { write(line: string): void };
    /** The address people use (default: http://localhost, with the port when listening). */
    publicUrl?: string;
    /**
     * The host of that address when listening (default localhost): a second server on 127.0.0.1
     * keeps its cookies apart from a first one on localhost in a real browser (cookies ignore ports).
     */
    publicHost?: 'localhost' | '127.0.0.1';
    /** A console build of the test's own. */
    consoleDir?: string;
    /** The Exchange agent. */
    exchange?: Partial<ExchangeConfig>;
    /** Serves /metrics for this bearer token. */
    metricsToken?: string;
    /** Starts the RADIUS server on a free UDP port of 127.0.0.1 (`tessera.radiusPort`); rejects answer at once. */
    radius?: boolean;
    /**
     * Starts the LDAP server on free ports of 127.0.0.1 (`tessera.ldap`), with StartTLS, and LDAPS
     * when given a certificate or `ldaps`; without files the installation issues the certificate
     * (for `certificateNames`, or localhost and 127.0.0.1).
     */
    ldap?: { certFile?: string; keyFile?: string; ldaps?: boolean; certificateNames?: string[] };
    /** Sees every statement the server runs (tests that count statements). */
    queryLog?: QueryObserver;
    /** Text messages go to this sender (a test's recording stand-in) instead of the provider. */
    sms?: SmsSender;
  } = {},
): Promise<TestContext> {
  const database = await openTestDatabase({ log: options.queryLog });
  const masterKey = randomBytes(32);
  const port = options.listen ? await freePort() : 80;
  const publicUrl =
    options.publicUrl ??
    (options.listen ? `http://${options.publicHost ?? 'localhost'}:${port}` : 'http://localhost');
  const tessera = await buildApp({
    config: {
      publicUrl,
      session: options.session ?? { idleSeconds: 7200, absoluteSeconds: 43_200 },
      logLevel: options.log ? 'info' : 'silent',
      mail: options.mail,
      outboundNetworks: options.outboundNetworks ?? ['127.0.0.0/8', '::1'],
      trustedProxies: options.trustedProxies,
      licensePublicKey: options.licensePublicKey,
      companyQuotas: options.companyQuotas ?? { user: null, app: null },
      exchange: { ...defaultExchangeConfig, ...options.exchange },
      // Test receivers (rsyslog, the tests' own) listen on 127.0.0.1.
      syslogAllowLocalTargets: options.syslogAllowLocalTargets ?? true,
      scanProviders: options.scanProviders,
      metricsToken: options.metricsToken,
      radius: options.radius ? { port: 0, host: '127.0.0.1' } : undefined,
      ldap: options.ldap
        ? {
            port: 0,
            ldapsPort: options.ldap.certFile || options.ldap.ldaps ? 0 : null,
            host: '127.0.0.1',
            suffix: 'dc=tessera',
            certFile: options.ldap.certFile ?? null,
            keyFile: options.ldap.keyFile ?? null,
            certificateNames: options.ldap.certificateNames,
          }
        : undefined,
    },
    radiusRejectDelayMs: 0,
    jobs: options.jobs,
    directoryTimeoutMs: options.directoryTimeoutMs,
    database,
    masterKey,
    logStream: options.log,
    consoleDir: options.consoleDir,
    validateResponses: true,
    signInPolicy: options.signInPolicy,
    sms: options.sms,
  });
  if (options.listen) await tessera.app.listen({ port, host: '127.0.0.1' });
  return {
    tessera,
    database,
    baseUrl: publicUrl,
    masterKey,
    async close() {
      await step('app', () => tessera.close());
      await step('database', () => database.close());
    },
  };
}

/**
 * Another server instance on the test's database and master key: a restart (after
 * `ctx.tessera.close()`), or a second instance behind the same load balancer.
 */
export const anotherInstance = (
  ctx: Pick<TestContext, 'database' | 'baseUrl' | 'masterKey'>,
  options: { mail?: MailConfig; ldap?: boolean } = {},
) =>
  buildApp({
    config: {
      publicUrl: ctx.baseUrl,
      session: { idleSeconds: 7200, absoluteSeconds: 43_200 },
      logLevel: 'silent',
      companyQuotas: { user: null, app: null },
      mail: options.mail,
      ldap: options.ldap
        ? { port: 0, ldapsPort: null, host: '127.0.0.1', suffix: 'dc=tessera', certFile: null, keyFile: null }
        : undefined,
    },
    database: ctx.database,
    masterKey: ctx.masterKey,
    validateResponses: true,
  });

/** Names a shutdown step that hangs, instead of letting the hook time out silently. */
async function step(name: string, work: () => Promise<void>) {
  const timer = setTimeout(() => process.stderr.write(`closing ${name} takes more than 10 s\n`), 10_000);
  try {
    await work();
  } finally {
    clearTimeout(timer);
  }
}

/** The smallest valid PNG (1×1). */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

let cachedHash: Promise<string> | undefined;
const knownPassword = 'Correct-Horse-9';

/** Creates an account; the default password is hashed once per file to keep tests fast. */
export async function createAccount(
  ctx: { database: DatabaseHandle },
  fields: {
    username: string;
    password?: string;
    platformAdmin?: boolean;
    email?: string;
    status?: 'enabled' | 'disabled';
  },
) {
  cachedHash ??= hashPassword(knownPassword);
  const id = newId();
  await ctx.database.db
    .insertInto('accounts')
    .values({
      id,
      username: fields.username,
      email: fields.email ?? null,
      phone: null,
      display_name: null,
      password_hash: fields.password ? await hashPassword(fields.password) : await cachedHash,
      status: fields.status ?? 'enabled',
      is_platform_admin: fields.platformAdmin ?? false,
    })
    .execute();
  return { id, username: fields.username, password: fields.password ?? knownPassword };
}

export interface Envelope<T = unknown> {
  code: number;
  msg: string;
  data: T;
}

/** Calls the API in-process, as the console does (POST JSON, access_token and company_id headers). */
export async function call<T = Record<string, unknown>>(
  ctx: { tessera: TesseraApp },
  path: string,
  body: unknown = {},
  options: { token?: string; companyId?: string; lang?: string } = {},
) {
  const response = await ctx.tessera.app.inject({
    method: 'POST',
    url: path,
    headers: {
      'content-type': 'application/json',
      ...(options.token ? { access_token: options.token } : {}),
      ...(options.companyId ? { company_id: options.companyId } : {}),
      ...(options.lang ? { 'accept-language': options.lang } : {}),
    },
    payload: JSON.stringify(body),
  });
  const envelope = response.json() as Envelope<T>;
  return { status: response.statusCode, ...envelope };
}

export const consoleClientSecret = (masterKey: Buffer, variant: 'admin' | 'dev') =>
  createSealer(masterKey).derive(`console-client-secret:${variant}`).toString('base64url');

/** Opens a console session directly (the code exchange itself is tested in session.test.ts). */
export async function sessionFor(
  ctx: { database: DatabaseHandle },
  accountId: string,
  variant: 'admin' | 'dev' = 'dev',
) {
  const token = randomBytes(32).toString('base64url');
  await ctx.database.db
    .insertInto('console_sessions')
    .values({
      id: newId(),
      token_hash: sha256(token),
      account_id: accountId,
      variant,
      id_token: null,
      refresh_token_sealed: null,
      idle_expires_at: new Date(Date.now() + 3_600_000),
      absolute_expires_at: new Date(Date.now() + 7_200_000),
    })
    .execute();
  return token;
}

/** A person with a console session and a company they own. */
export async function ownerWithCompany(ctx: TestContext, username: string, companyName = `${username} Ltd`) {
  const account = await createAccount(ctx, { username });
  const token = await sessionFor(ctx, account.id);
  const created = await call<{ companyId: string }>(
    ctx,
    '/api/v1/manage/company/create',
    { name: companyName },
    { token },
  );
  if (created.code !== 200) throw new Error(`company not created: ${created.msg}`);
  return { account, token, companyId: created.data.companyId };
}

/** A member of a company, created through company/user/create with a password of the default rules. */
export async function companyMember(
  ctx: TestContext,
  company: { token: string; companyId: string },
  username: string,
  password = 'Sunny-Day-42',
) {
  const created = await call<{ userId: string }>(
    ctx,
    '/api/v1/manage/company/user/create',
    { username, role: 'member', password },
    { token: company.token, companyId: company.companyId },
  );
  if (created.code !== 200) throw new Error(`user not created: ${created.msg}`);
  return { id: created.data.userId, username, password };
}

/** The stored account row. */
export const accountRow = (ctx: TestContext, id: string): Promise<Account> =>
  ctx.database.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** Sends a multipart upload the way the console does: text `fields` first, then the file. */
export async function upload(
  ctx: { tessera: TesseraApp },
  path: string,
  file: { bytes: Buffer; filename: string; type: string; field?: string },
  options: { token?: string; companyId?: string; fields?: Record<string, string>; lang?: string },
) {
  const boundary = `----tessera${randomBytes(8).toString('hex')}`;
  const payload = Buffer.concat([
    ...Object.entries(options.fields ?? {}).map(([name, value]) =>
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    ),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'file'}"; filename="${file.filename}"\r\nContent-Type: ${file.type}\r\n\r\n`,
    ),
    file.bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const response = await ctx.tessera.app.inject({
    method: 'POST',
    url: path,
    headers: {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      ...(options.token ? { access_token: options.token } : {}),
      ...(options.companyId ? { company_id: options.companyId } : {}),
      ...(options.lang ? { 'accept-language': options.lang } : {}),
    },
    payload,
  });
  return { status: response.statusCode, ...(response.json() as Envelope<Record<string, unknown>>) };
}

/**
 * Stores an active licence with these quantities straight in the database, as an imported one
 * is kept (the file's signature is checked at import, tested in license.test.ts).
 */
export async function grantLicense(
  ctx: { database: DatabaseHandle },
  quantities: { user?: number; app?: number },
) {
  const expiresAt = new Date(Date.now() + 365 * 86_400_000).toISOString();
  const payload = {
    format: 1,
    licenseId: `test-${newId()}`,
    applicationCode: 'TEST',
    customer: 'Test customer',
    issuedAt: new Date().toISOString(),
    modules: Object.entries(quantities).map(([module, total]) => ({ module, total, expiresAt })),
  };
  await ctx.database.db.updateTable('licenses').set({ active: false }).execute();
  await ctx.database.db
    .insertInto('licenses')
    .values({
      id: newId(),
      license_id: payload.licenseId,
      customer: payload.customer,
      payload: JSON.stringify(payload),
      raw: '',
      active: true,
      imported_by: null,
    })
    .execute();
}
