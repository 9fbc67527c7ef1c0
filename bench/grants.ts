/**
 * Authorization-code grants per second (POST /api/v1/dev/oidc/token: the console's code
 * redemption, an authorization_code grant inside) and refresh grants per second
 * (POST /api/v1/dev/oidc/refresh: a refresh_token grant inside; each chain uses the token the
 * previous refresh returned). Goal on PostgreSQL: refresh >= 800/s.
 *
 *   node --import tsx bench/grants.ts
 *   BENCH_CODES=1000 BENCH_CONNECTIONS=8 BENCH_CHAINS=4,16,64 BENCH_REFRESH_SECONDS=15 \
 *     BENCH_DATABASE_URL=postgres://... node --import tsx bench/grants.ts
 */
import autocannon, { type Request } from 'autocannon';
import { type CpuSplit, cpuMeter, describeCpu, saveResult, verdict, waitForQuiet } from './lib/report.ts';
import {
  authorizeSilently,
  type BenchServer,
  type CookieJar,
  envInt,
  fmt,
  pool,
  REFRESH_PATH,
  redeemCode,
  refreshToken,
  signIn,
  startServer,
  TOKEN_PATH,
} from './lib/server.ts';

const CODES = envInt('BENCH_CODES', 1000);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 8);
const CHAINS = (process.env.BENCH_CHAINS ?? '4,16,64').split(',').map(Number);
const REFRESH_SECONDS = envInt('BENCH_REFRESH_SECONDS', 15);
const REFRESH_MAX = envInt('BENCH_REFRESH_MAX', 60_000);
const SESSIONS = 4;
const REFRESH_GOAL = 800;
/** Authorization codes live 60 s: preparing and redeeming them must fit in that. */
const CODE_TTL_BUDGET_MS = 45_000;

interface Phase {
  ok: number;
  failed: number;
  seconds: number;
  perSecond: number;
  latencyMs: { p50: number; p99: number; max: number };
  cpu: CpuSplit;
  firstError?: string;
}

function runAutocannon(
  server: BenchServer,
  options: { connections: number; amount?: number; duration?: number; maxOverallRequests?: number },
  request: {
    path: string;
    setup(req: Request): Request;
    onResponse(status: number, body: string): boolean;
  },
): Promise<Phase> {
  let ok = 0;
  let failed = 0;
  let firstError: string | undefined;
  const meter = cpuMeter(server.pid);
  // autocannon reports (and ends an `amount` run) on a one-second tick: time from the start to
  // the last response here instead.
  const started = performance.now();
  let lastResponseAt = started;
  return new Promise((done, fail) => {
    const instance = autocannon(
      {
        url: server.base,
        connections: options.connections,
        ...(options.amount ? { amount: options.amount } : {}),
        ...(options.duration ? { duration: options.duration } : {}),
        ...(options.maxOverallRequests ? { maxOverallRequests: options.maxOverallRequests } : {}),
        timeout: 30,
        requests: [
          {
            method: 'POST',
            path: request.path,
            headers: { 'content-type': 'application/json' },
            setupRequest: request.setup,
            onResponse: (status: number, body: string) => {
              lastResponseAt = performance.now();
              if (request.onResponse(status, body)) ok++;
              else {
                failed++;
                firstError ??= `${status} ${body.slice(0, 200)}`;
              }
            },
          },
        ],
      },
      (error, result) => {
        const seconds = (lastResponseAt - started) / 1000;
        const cpu = meter.stop();
        if (error) return fail(error);
        done({
          ok,
          failed: failed + result.errors + result.timeouts,
          seconds,
          perSecond: ok / seconds,
          latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
          cpu,
          firstError,
        });
      },
    );
    // A hard stop in case the server stalls.
    const guard = setTimeout(() => instance.stop(), ((options.duration ?? 120) + 30) * 1000);
    instance.on('done', () => clearTimeout(guard));
  });
}

const tokenOf = (status: number, body: string): string | undefined => {
  if (status !== 200) return undefined;
  try {
    const answer = JSON.parse(body) as { code?: number; data?: { token?: string } };
    return answer.code === 200 ? answer.data?.token : undefined;
  } catch {
    return undefined;
  }
};

const describePhase = (label: string, phase: Phase) =>
  `${label}: ${phase.ok} in ${fmt(phase.seconds, 2)} s = ${fmt(phase.perSecond)}/s` +
  `${phase.failed ? ` (${phase.failed} FAILED, first: ${phase.firstError})` : ''}; latency p50 ${phase.latencyMs.p50} ms, p99 ${phase.latencyMs.p99} ms\n  ${describeCpu(phase.cpu)}`;

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
    const codePhase = await runAutocannon(
      server,
      { connections: CONNECTIONS, amount: codes.length },
      {
        path: TOKEN_PATH,
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
    console.log(describePhase('authorization code grants', codePhase));
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
      const phase = await runAutocannon(
        server,
        { connections: chains, duration: REFRESH_SECONDS, maxOverallRequests: REFRESH_MAX },
        {
          path: REFRESH_PATH,
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
        `${describePhase(`refresh grants, ${chains} chains`, phase)}\n  goal >= ${REFRESH_GOAL}/s${server.storage === 'postgres' ? '' : ' (set for PostgreSQL)'}: ${verdict(met)}`,
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
