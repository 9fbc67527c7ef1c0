/**
 * Set-up shared by the benchmarks: the bootstrap administrator signed in to the developer console,
 * a company of theirs, a licence for as many users as the benchmark needs (signed by a throw-away
 * vendor key the server is told to trust), and the company's people (with TOTP factors),
 * applications, access accounts and RADIUS clients.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import pg from 'pg';
import { createSealer } from '../../packages/server/src/lib/crypto.ts';
import { issueLicenseFile } from '../../packages/server/src/modules/license/license-file.ts';
import type { AppClient } from './app-client.ts';
import { redeemCode, signIn, type TotpFactor } from './browser.ts';
import { type BenchServer, pool, type StartOptions, startServer } from './server.ts';

export interface Tenant {
  token: string;
  companyId: string;
}

const vendor = generateKeyPairSync('ed25519');
const vendorPublicPem = vendor.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const vendorPrivatePem = vendor.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/**
 * Starts a server that trusts this run's vendor key (so that `licenseUsers` can license it), and
 * whose new companies have no quota beyond the licence (the benchmarks add thousands of users).
 */
export const startLicensableServer = (options: StartOptions = {}) =>
  startServer({
    ...options,
    env: {
      TESSERA_COMPANY_USER_QUOTA: 'unlimited',
      TESSERA_COMPANY_APP_QUOTA: 'unlimited',
      ...options.env,
      TESSERA_LICENSE_PUBLIC_KEY: vendorPublicPem,
    },
  });

interface Envelope<T> {
  code: number;
  msg: string;
  data: T;
}

/** A tenant call (POST JSON with access_token and company_id). */
export async function tenantCall<T>(server: BenchServer, tenant: Tenant, path: string, body: unknown) {
  const response = await fetch(`${server.base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', access_token: tenant.token, company_id: tenant.companyId },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as Envelope<T>;
  if (answer.code !== 200) throw new Error(`${path}: ${answer.code} ${answer.msg}`);
  return answer.data;
}

/** The bootstrap administrator (a platform administrator) with a new company of theirs. */
export async function adminWithCompany(server: BenchServer, name = 'Bench Co'): Promise<Tenant> {
  const signedIn = await signIn(server);
  const token = await redeemCode(server, signedIn.code, signedIn.verifier);
  const response = await fetch(`${server.base}/api/v1/manage/company/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', access_token: token },
    body: JSON.stringify({ name }),
  });
  const answer = (await response.json()) as Envelope<{ companyId: string }>;
  if (answer.code !== 200) throw new Error(`company/create: ${answer.code} ${answer.msg}`);
  return { token, companyId: answer.data.companyId };
}

/** Imports a licence for `users` accounts (the server must come from `startLicensableServer`). */
export async function licenseUsers(server: BenchServer, tenant: Tenant, users: number) {
  const { code } = await tenantCall<{ code: string }>(server, tenant, '/api/v1/manage/license/code', {});
  const expiresAt = new Date(Date.now() + 365 * 86_400_000).toISOString();
  const license = issueLicenseFile(
    {
      format: 1,
      licenseId: `bench-${randomBytes(4).toString('hex')}`,
      applicationCode: code,
      customer: 'Benchmark',
      issuedAt: new Date().toISOString(),
      modules: [{ module: 'user', total: users, expiresAt }],
    },
    vendorPrivatePem,
  );
  await tenantCall(server, tenant, '/api/v1/manage/license/import', { license });
}

/** An opened OIDC application of the tenant with one redirect URI. */
export async function openApp(server: BenchServer, tenant: Tenant, name: string, redirectUri: string) {
  const created = await tenantCall<{ app: { appId: string; clientId: string }; clientSecret: string }>(
    server,
    tenant,
    '/api/v1/manage/app/create',
    { name },
  );
  const { appId, clientId } = created.app;
  await tenantCall(server, tenant, '/api/v1/manage/app/update', { appId, redirectUris: [redirectUri] });
  await tenantCall(server, tenant, '/api/v1/manage/app/status', { appId, status: 'opened' });
  return { appId, clientId, clientSecret: created.clientSecret };
}

/**
 * An opened OIDC application of the tenant with one redirect URI, and the company's MFA set to
 * "optional" with authenticator apps: a person with a bound factor is asked for it at every sign-in.
 */
export async function openAppWithOptionalOtp(
  server: BenchServer,
  tenant: Tenant,
  name: string,
  redirectUri: string,
) {
  const app = await openApp(server, tenant, name, redirectUri);
  const mfa = await tenantCall<Record<string, unknown>>(server, tenant, '/api/v1/manage/safety/mfa', {});
  await tenantCall(server, tenant, '/api/v1/manage/safety/mfa/update', {
    ...mfa,
    mode: 'optional',
    types: ['otp'],
  });
  return app;
}

/** The company's MFA off (a password is enough), lockout after 5 failures for 15 minutes. */
export const turnMfaOff = (server: BenchServer, tenant: Tenant) =>
  tenantCall(server, tenant, '/api/v1/manage/safety/mfa/update', {
    mode: 'off',
    types: ['otp'],
    lockout: { maxFailures: 5, lockMinutes: 15 },
  });

/** A programmatic access account of the application (no expiry): its client id and secret. */
export async function createApiAccount(
  server: BenchServer,
  tenant: Tenant,
  appId: string,
  name: string,
): Promise<AppClient> {
  const robot = await tenantCall<{ account: { clientId: string }; secret: string }>(
    server,
    tenant,
    '/api/v1/manage/app/api-account/create',
    { appId, name, expiresAt: null },
  );
  return { clientId: robot.account.clientId, secret: robot.secret };
}

/** A RADIUS client (network device) at 127.0.0.1, for everyone, OTP by challenge. */
export async function createRadiusClient(server: BenchServer, tenant: Tenant, name: string) {
  const created = await tenantCall<{ client: { clientId: string }; secret: string }>(
    server,
    tenant,
    '/api/v1/manage/radius/client/create',
    { name, source: '127.0.0.1', enabled: true, access: 'all', otpMode: 'challenge' },
  );
  return { clientId: created.client.clientId, secret: created.secret };
}

/**
 * Creates `count` members of the company through the API, 4 at once (no new one after `timeMs`),
 * each with `password`; answers them in order.
 */
export const createPeople = (
  server: BenchServer,
  tenant: Tenant,
  count: number,
  usernameOf: (i: number) => string,
  password: string,
  timeMs = 600_000,
) =>
  pool(count, 4, timeMs, async (i) => {
    const username = usernameOf(i);
    await tenantCall(server, tenant, '/api/v1/manage/company/user/create', {
      username,
      role: 'member',
      password,
    });
    return { username, password };
  });

/**
 * Binds a TOTP factor (`<prefix>-<i>`, a new seed) to each person i for whom `which(i)` holds,
 * straight in the database (PostgreSQL) as the binding step would leave it (the seed sealed with
 * the server's master key), and sets the person's `totp`.
 */
export async function bindTotpFactors(
  url: string,
  masterKey: Buffer,
  people: { username: string; totp?: TotpFactor }[],
  prefix: string,
  which: (i: number) => boolean,
) {
  const sealer = createSealer(masterKey);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const [i, person] of people.entries()) {
      if (!which(i)) continue;
      const factorId = `${prefix}-${i}`;
      const seed = randomBytes(20);
      await client.query(
        `insert into mfa_factors (id, account_id, type, name, status, secret_sealed, bound_at)
         select $1, id, 'otp', 'OTP', 'bound', $3, now() from accounts where username = $2`,
        [factorId, person.username, sealer.seal(seed.toString('base64'), `mfa-otp-seed:${factorId}`)],
      );
      person.totp = { factorId, seed };
    }
  } finally {
    await client.end();
  }
}

/**
 * Runs the benchmark's body on the server: on a failure prints the end of the server's log before
 * passing the error on; stops the server in any case.
 */
export async function runOn(server: BenchServer, body: () => Promise<void>) {
  try {
    await body();
  } catch (error) {
    console.error(server.logTail(30));
    throw error;
  } finally {
    await server.stop();
  }
}

/** p-th percentile (0-100) of the values, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (!sorted.length) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/**
 * Seeds `users` people straight into the server's database (PostgreSQL): accounts the company
 * manages (`bench-u-<i>`), 5 % disabled, 1 % locked, in 100 teams (`bench-d-<t>-<s>`) under 10
 * divisions (`bench-d-<t>`); answers the milliseconds it took (with analyze).
 */
export async function seedPeople(url: string, companyId: string, rootId: string, users: number) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const started = performance.now();
    await client.query('begin');
    await client.query(
      `insert into departments (id, company_id, parent_id, name)
       select 'bench-d-' || t, $1, $2, 'Division ' || t from generate_series(1, 10) t`,
      [companyId, rootId],
    );
    await client.query(
      `insert into departments (id, company_id, parent_id, name)
       select 'bench-d-' || t || '-' || s, $1, 'bench-d-' || t, 'Team ' || t || '.' || s
       from generate_series(1, 10) t, generate_series(1, 10) s`,
      [companyId],
    );
    await client.query(
      `insert into accounts (id, username, email, phone, display_name, password_hash, status,
         must_change_password, home_company_id, login_count, last_login_at, created_at)
       select 'bench-u-' || i, 'user' || lpad(i::text, 6, '0'), 'user' || i || '@example.com',
         '+86138' || lpad(i::text, 8, '0'),
         (array['Wang','Li','Zhang','Smith','Garcia','Müller'])[1 + i % 6] || ' ' ||
           (array['Wei','Anna','Jun','John','Maria','Lukas','Mei'])[1 + i % 7] || ' ' || i,
         '!', 'enabled', true, $1, (i * 7) % 500,
         case when i % 3 = 0 then null else now() - (i % 1000) * interval '1 hour' end,
         now() - i * interval '1 minute'
       from generate_series(1, $2::int) i`,
      [companyId, users],
    );
    await client.query(
      `insert into company_members (company_id, account_id, role, status, created_at, updated_at)
       select $1, 'bench-u-' || i, 'member',
         case when i % 20 = 0 then 'disabled' when i % 97 = 0 then 'locked' else 'enabled' end,
         now() - i * interval '1 minute', now()
       from generate_series(1, $2::int) i`,
      [companyId, users],
    );
    await client.query(
      `insert into department_members (department_id, company_id, account_id)
       select 'bench-d-' || (1 + i % 10) || '-' || (1 + (i / 10) % 10), $1, 'bench-u-' || i
       from generate_series(1, $2::int) i`,
      [companyId, users],
    );
    await client.query('commit');
    await client.query('analyze');
    return performance.now() - started;
  } finally {
    await client.end();
  }
}
