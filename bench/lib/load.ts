/**
 * Load generation against a benchmark server. With autocannon: any method, headers and body, the
 * request optionally rebuilt before each send, every answer checked, the CPU of each party
 * measured over the phase. And the arrivals of an open model (`openArrivals`: the storm, the soak).
 */
import autocannon, { type Request } from 'autocannon';
import { type CpuSplit, cpuMeter, describeCpu } from './report.ts';
import { type BenchServer, fmt, sleep } from './server.ts';

export interface LoadPhase {
  ok: number;
  failed: number;
  seconds: number;
  perSecond: number;
  latencyMs: { p50: number; p99: number; max: number };
  cpu: CpuSplit;
  firstError?: string;
}

export interface LoadRequest {
  method?: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Rebuilds the request before each send (e.g. a fresh authorization code). */
  setup?(req: Request): Request;
  /** Whether an answer counts as a success. */
  onResponse(status: number, body: string): boolean;
}

/**
 * Runs autocannon: `amount` requests, or for `duration` seconds (bounded by
 * `maxOverallRequests`), over `connections` connections. The rate is timed from the start to the
 * last answer (autocannon itself reports on a one-second tick).
 */
export function runLoad(
  server: BenchServer,
  options: { connections: number; amount?: number; duration?: number; maxOverallRequests?: number },
  request: LoadRequest,
): Promise<LoadPhase> {
  let ok = 0;
  let failed = 0;
  let firstError: string | undefined;
  const meter = cpuMeter(server.pid);
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
            method: request.method ?? 'POST',
            path: request.path,
            headers: request.headers ?? {},
            ...(request.body !== undefined ? { body: request.body } : {}),
            ...(request.setup ? { setupRequest: request.setup } : {}),
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

export const describeLoad = (label: string, phase: LoadPhase) =>
  `${label}: ${phase.ok} in ${fmt(phase.seconds, 2)} s = ${fmt(phase.perSecond)}/s` +
  `${phase.failed ? ` (${phase.failed} FAILED, first: ${phase.firstError})` : ''}; latency p50 ${phase.latencyMs.p50} ms, p99 ${phase.latencyMs.p99} ms\n  ${describeCpu(phase.cpu)}`;

/** CPU per request in milliseconds: server, PostgreSQL. */
export const cpuPerRequest = (phase: LoadPhase) => ({
  serverMs: (phase.cpu.server * 1000) / phase.perSecond,
  postgresMs: (phase.cpu.postgres * 1000) / phase.perSecond,
});

/**
 * Arrivals of an open model: task(i) starts at i / `rate` seconds after `started`
 * (performance.now()), whether or not the earlier ones have ended, for i < `count` and while the
 * start is within `durationMs`. With `maxInFlight`, an arrival that finds that many running is not
 * started (`onSkip`). Resolves when every started task has ended (tasks handle their own errors);
 * answers how far behind its time the latest start was.
 */
export async function openArrivals(
  options: {
    rate: number;
    started?: number;
    count?: number;
    durationMs?: number;
    maxInFlight?: number;
    onSkip?: () => void;
  },
  task: (i: number) => Promise<void>,
): Promise<{ maxLatenessMs: number }> {
  const started = options.started ?? performance.now();
  const running = new Set<Promise<void>>();
  let maxLatenessMs = 0;
  for (let i = 0; i < (options.count ?? Number.POSITIVE_INFINITY); i++) {
    const due = started + (i * 1000) / options.rate;
    if (options.durationMs !== undefined && due - started >= options.durationMs) break;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    if (running.size >= (options.maxInFlight ?? Number.POSITIVE_INFINITY)) {
      options.onSkip?.();
      continue;
    }
    maxLatenessMs = Math.max(maxLatenessMs, performance.now() - due);
    const work: Promise<void> = task(i).finally(() => running.delete(work));
    running.add(work);
  }
  await Promise.all(running);
  return { maxLatenessMs };
}
