/**
 * Grants per second for a company's application and its programmatic access account, at the
 * provider's own token endpoint (POST /oidc/token, client_secret_basic):
 * - authorization-code grants of an opened OIDC application (codes prepared first through single
 *   sign-on of signed-in company users, with PKCE);
 * - client-credentials grants of a programmatic access account, at several connection counts;
 * - management API calls (POST /api/v1/manage/user/list, a small page) with the access account's
 *   bearer token.
 * Goal on PostgreSQL: client credentials >= 1 000/s.
 *
 *   node --conditions=source --import tsx bench/app-grants.ts
 *   BENCH_APP_CODES=1000 BENCH_CONNECTIONS=8 BENCH_CC_CONNECTIONS=8,32,64 BENCH_API_CONNECTIONS=8,32 \
 *     BENCH_LOAD_SECONDS=10 BENCH_PHASES=code,cc,api BENCH_DATABASE_URL=postgres://... node --conditions=source --import tsx bench/app-grants.ts
 */

import { type AppClient, basicAuthorization, codeGrant, tokenGrant } from './lib/app-client.ts';
import { authorizeSilently, type CookieJar, type RelyingParty, signIn } from './lib/browser.ts';
import { cpuPerRequest, describeLoad, type LoadPhase, runLoad } from './lib/load.ts';
import {
  adminWithCompany,
  createApiAccount,
  createPeople,
  licenseUsers,
  openApp,
  runOn,
  startLicensableServer,
} from './lib/org.ts';
import { saveResult, verdict, waitForQuiet } from './lib/report.ts';
import { type BenchServer, envInt, fmt, pool } from './lib/server.ts';

const CODES = envInt('BENCH_APP_CODES', 1000);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 8);
const CC_CONNECTIONS = (process.env.BENCH_CC_CONNECTIONS ?? '8,32,64').split(',').map(Number);
const API_CONNECTIONS = (process.env.BENCH_API_CONNECTIONS ?? '8,32').split(',').map(Number);
const LOAD_SECONDS = envInt('BENCH_LOAD_SECONDS', 10);
const LOAD_MAX = envInt('BENCH_LOAD_MAX', 100_000);
/** Which phases run (e.g. only `cc` while profiling). */
const PHASES = new Set((process.env.BENCH_PHASES ?? 'code,cc,api').split(','));
const USERS = 4;
const USER_PASSWORD = 'Bench-User-Pass-2024';
const CC_GOAL = 1000;
/** Authorization codes live 60 s (the recommended setting): preparing and redeeming must fit. */
const CODE_TTL_BUDGET_MS = 45_000;
/** Never contacted: the codes are read from the provider's redirect. */
const REDIRECT_URI = 'http://127.0.0.1:7001/callback';

const accessTokenOf = (status: number, body: string): string | undefined => {
  if (status !== 200) return undefined;
  try {
    return (JSON.parse(body) as { access_token?: string }).access_token;
  } catch {
    return undefined;
  }
};

/** A company with users, an opened application for them and a programmatic access account. */
async function setUp(server: BenchServer) {
  const tenant = await adminWithCompany(server, 'Bench Apps Co');
  await licenseUsers(server, tenant, 100);
  const users = await createPeople(server, tenant, USERS, (i) => `bench-user-${i + 1}`, USER_PASSWORD);
  const { appId, clientId, clientSecret } = await openApp(server, tenant, 'Bench Wiki', REDIRECT_URI);
  const robot = await createApiAccount(server, tenant, appId, 'Bench robot');
  return {
    users,
    app: { clientId, secret: clientSecret } satisfies AppClient,
    party: { clientId, redirectUri: REDIRECT_URI } satisfies RelyingParty,
    robot,
  };
}

const record = (phase: LoadPhase, extra: Record<string, unknown>) => ({
  ...extra,
  ...phase,
  cpuPerRequestMs: cpuPerRequest(phase),
});

const describeCost = (phase: LoadPhase) => {
  const cost = cpuPerRequest(phase);
  return `  CPU per request: server ${fmt(cost.serverMs, 2)} ms, postgres ${fmt(cost.postgresMs, 2)} ms`;
};

async function main() {
  const server = await startLicensableServer();
  console.log(`application grants benchmark on ${server.storage}, server pid ${server.pid}, ${server.base}`);
  const result: Record<string, unknown> = { storage: server.storage };
  await runOn(server, async () => {
    const { users, app, party, robot } = await setUp(server);

    // Signed-in browsers of the company's users: further codes come through single sign-on.
    const jars: CookieJar[] = [];
    for (const user of users) jars.push((await signIn(server, user, party)).jar);
    const redeem = (code: string, verifier: string) => codeGrant(server, app, REDIRECT_URI, code, verifier);

    // Warm-up.
    const warm = await pool(40, 4, 60_000, (i) =>
      authorizeSilently(server, jars[i % USERS] as CookieJar, party),
    );
    await pool(warm.length, 4, 60_000, (i) => redeem(warm[i]!.code, warm[i]!.verifier));
    await pool(200, 8, 60_000, () => tokenGrant(server, robot, { grant_type: 'client_credentials' }));

    // ---- (a) authorization-code grants of the application
    if (PHASES.has('code')) await codeGrants();
    async function codeGrants() {
      await waitForQuiet(30_000);
      const prepStarted = Date.now();
      const codes = await pool(CODES, 4, CODE_TTL_BUDGET_MS, (i) =>
        authorizeSilently(server, jars[i % USERS] as CookieJar, party),
      );
      const prepMs = Date.now() - prepStarted;
      if (codes.length < CODES) {
        throw new Error(`only ${codes.length} of ${CODES} codes were ready in time: lower BENCH_APP_CODES`);
      }
      console.log(
        `prepared ${codes.length} codes in ${fmt(prepMs / 1000, 2)} s (${fmt(codes.length / (prepMs / 1000))}/s)`,
      );
      const queue = [...codes];
      const codePhase = await runLoad(
        server,
        { connections: CONNECTIONS, amount: codes.length },
        {
          path: '/oidc/token',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: basicAuthorization(app),
          },
          setup(req) {
            // Past the prepared codes (never sent: `amount` stops first) a used one would just fail.
            const next = queue.shift() ?? codes[0]!;
            const body = new URLSearchParams({
              grant_type: 'authorization_code',
              code: next.code,
              redirect_uri: REDIRECT_URI,
              code_verifier: next.verifier,
            }).toString();
            return { ...req, body };
          },
          onResponse: (status, body) => accessTokenOf(status, body) !== undefined,
        },
      );
      console.log(`${describeLoad('authorization code grants', codePhase)}\n${describeCost(codePhase)}`);
      result.codes = record(codePhase, {
        connections: CONNECTIONS,
        preparedCodesPerSecond: codes.length / (prepMs / 1000),
      });
    }

    // ---- (b) client-credentials grants of the access account
    const ccBody = new URLSearchParams({ grant_type: 'client_credentials' }).toString();
    const ccRuns: Record<string, unknown>[] = [];
    for (const connections of PHASES.has('cc') ? CC_CONNECTIONS : []) {
      await waitForQuiet();
      const phase = await runLoad(
        server,
        { connections, duration: LOAD_SECONDS, maxOverallRequests: LOAD_MAX },
        {
          path: '/oidc/token',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: basicAuthorization(robot),
          },
          body: ccBody,
          onResponse: (status, body) => accessTokenOf(status, body) !== undefined,
        },
      );
      const met = phase.perSecond >= CC_GOAL && phase.failed === 0;
      console.log(
        `${describeLoad(`client credentials grants, ${connections} connections`, phase)}\n${describeCost(phase)}\n  goal >= ${CC_GOAL}/s${server.storage === 'postgres' ? '' : ' (set for PostgreSQL)'}: ${verdict(met)}`,
      );
      ccRuns.push(record(phase, { connections, goal: CC_GOAL, met }));
    }
    result.clientCredentials = ccRuns;

    // ---- (c) management API calls with the access account's bearer token
    const bearer = await tokenGrant(server, robot, { grant_type: 'client_credentials' });
    const apiRuns: Record<string, unknown>[] = [];
    for (const connections of PHASES.has('api') ? API_CONNECTIONS : []) {
      await waitForQuiet();
      const phase = await runLoad(
        server,
        { connections, duration: LOAD_SECONDS, maxOverallRequests: LOAD_MAX },
        {
          path: '/api/v1/manage/user/list',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
          body: JSON.stringify({ page: 1, pageSize: 10 }),
          onResponse: (status, body) => status === 200 && body.startsWith('{"code":200'),
        },
      );
      console.log(
        `${describeLoad(`management API user/list, ${connections} connections`, phase)}\n${describeCost(phase)}`,
      );
      apiRuns.push(record(phase, { connections }));
    }
    result.managementApi = apiRuns;
  });
  const file = await saveResult('app-grants', server.storage, result);
  console.log(`saved ${file}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
