/**
 * Set-up shared by the organisation benchmarks (import, user list): the bootstrap administrator
 * signed in to the developer console, a company of theirs, and a licence for as many users as the
 * benchmark needs (signed by a throw-away vendor key the server is told to trust).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { issueLicenseFile } from '../../packages/server/src/modules/license/license-file.ts';
import { type BenchServer, redeemCode, type StartOptions, signIn, startServer } from './server.ts';

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
