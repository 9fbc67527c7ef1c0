/**
 * Authorization-code grants per second (POST /api/v1/dev/oidc/token: the console's code
 * redemption, an authorization_code grant inside) and refresh grants per second
 * (POST /api/v1/dev/oidc/refresh: a refresh_token grant inside; each chain uses the token the
 * previous refresh returned). Goal on PostgreSQL: refresh >= 800/s.
 *
 *   node --conditions=source --import tsx bench/grants.ts
 *   BENCH_CODES=1000 BENCH_CONNECTIONS=8 BENCH_CHAINS=4,16,64 BENCH_REFRESH_SECONDS=15 \
 *     BENCH_DATABASE_URL=postgres://... node --conditions=source --import tsx bench/grants.ts
 */

import {
  authorizeSilently,
  type CookieJar,
  REFRESH_PATH,
  redeemCode,
  refreshToken,
  signIn,
  TOKEN_PATH,
} from './lib/browser.ts';
import { describeLoad, runLoad } from './lib/load.ts';
import { saveResult, verdict, waitForQuiet } from './lib/report.ts';
import { envInt, fmt, pool, startServer } from './lib/server.ts';

const CODES = envInt('BENCH_CODES', 1000);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 8);
const CHAINS = (process.env.BENCH_CHAINS ?? '4,16,64').split(',').map(Number);
const REFRESH_SECONDS = envInt('BENCH_REFRESH_SECONDS', 15);
const REFRESH_MAX = envInt('BENCH_REFRESH_MAX', 60_000);
const SESSIONS = 4;
const REFRESH_GOAL = 800;
/** Authorization codes live 60 s: preparing and redeeming them must fit in that. */
const CODE_TTL_BUDGET_MS = 45_000;

const tokenOf = (status: number, body: string): string | undefined => {
  if (status !== 200) return undefined;
  try {
    const answer = JSON.parse(body) as { code?: number; data?: { token?: string } };
    return answer.code === 200 ? answer.data?.token : undefined;
  } catch {
    return undefined;
  }
};

async function main() {
  const server = await startServer();
  console.log(`grants benchmark on ${server.storage}, server pid ${server.pid}, ${server.base}`);
  const result: Record<string, unknown> = { storage: server.storage };
  try {
    // Signed-in browsers: further codes come from their single sign-on session, without a password.
    const jars: CookieJar[] = [];
    for (let i = 0; i < SESSIONS; i++) jars.push((await signIn(server)).jar);

    // Warm-up.
    const warm = await pool(40, 4, 60_000, (i) => authorizeSilently(server, jars[i % SESSIONS] as CookieJar));
    const warmTokens = await pool(warm.length, 4, 60_000, (i) =>
      redeemCode(server, warm[i]!.code, warm[i]!.verifier),
    );
    await pool(warmTokens.length, 4, 60_000, async (i) => {
      let token = warmTokens[i] as string;
      for (let n = 0; n < 5; n++) token = await refreshToken(server, token);
    });

    // ---- authorization code grants
    await waitForQuiet(30_000);
    const prepStarted = Date.now();
    const codes = await pool(CODES, 4, CODE_TTL_BUDGET_MS, (i) =>
      authorizeSilently(server, jars[i % SESSIONS] as CookieJar),
    );
    const prepMs = Date.now() - prepStarted;
    if (codes.length < CODES) {
      throw new Error(`only ${codes.length} of ${CODES} codes were ready in time: lower BENCH_CODES`);
    }
    console.log(
      `prepared ${codes.length} codes in ${fmt(prepMs / 1000, 2)} s (${fmt(codes.length / (prepMs / 1000))}/s)`,
    );
    const queue = [...codes];
    const tokens: string[] = [];
    const codePhase = await runLoad(
      server,
      { connections: CONNECTIONS, amount: codes.length },
      {
        path: TOKEN_PATH,
        headers: { 'content-type': 'application/json' },
        setup(req) {
          // Past the prepared codes (never sent: `amount` stops first) a used one would just fail.
          const next = queue.shift() ?? codes[0]!;
          return { ...req, body: JSON.stringify({ code: next.code, codeVerifier: next.verifier }) };
        },
        onResponse(status, body) {
          const token = tokenOf(status, body);
          if (token) tokens.push(token);
          return token !== undefined;
        },
      },
    );
    console.log(describeLoad('authorization code grants', codePhase));
    result.codes = {
      ...codePhase,
      connections: CONNECTIONS,
      preparedCodesPerSecond: codes.length / (prepMs / 1000),
    };

    // ---- refresh grants: `chains` tokens in flight, each refreshed with the answer of the last.
    const refreshRuns: Record<string, unknown>[] = [];
    let spare = [...tokens];
    for (const chains of CHAINS) {
      if (spare.length < chains) {
        console.log(`skipping ${chains} chains: only ${spare.length} fresh tokens left (raise BENCH_CODES)`);
        continue;
      }
      await waitForQuiet();
      const live = spare.slice(0, chains);
      spare = spare.slice(chains);
      const phase = await runLoad(
        server,
        { connections: chains, duration: REFRESH_SECONDS, maxOverallRequests: REFRESH_MAX },
        {
          path: REFRESH_PATH,
          headers: { 'content-type': 'application/json' },
          setup(req) {
            // One request in flight per connection and as many chains as connections: never empty.
            const token = live.shift() ?? 'no-token-left';
            return { ...req, headers: { ...req.headers, access_token: token }, body: '{}' };
          },
          onResponse(status, body) {
            const token = tokenOf(status, body);
            if (token) live.push(token);
            return token !== undefined;
          },
        },
      );
      const met = phase.perSecond >= REFRESH_GOAL && phase.failed === 0;
      console.log(
        `${describeLoad(`refresh grants, ${chains} chains`, phase)}\n  goal >= ${REFRESH_GOAL}/s${server.storage === 'postgres' ? '' : ' (set for PostgreSQL)'}: ${verdict(met)}`,
      );
      refreshRuns.push({ chains, ...phase, goal: REFRESH_GOAL, met });
    }
    result.refresh = refreshRuns;
  } finally {
    await server.stop();
  }
  const file = await saveResult('grants', server.storage, result);
  console.log(`saved ${file}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
