/**
 * Whether a wrong password takes longer for a known username than for one that names no account
 * (a timing oracle for usernames). Alternates the two kinds of attempt on the sign-in form, one at
 * a time, each on its own interaction: a wrong password for one of 100 existing accounts (three
 * attempts each, below the lock-out) and a password for a fresh unknown username. Reports the
 * median latency of each kind, their difference with a bootstrap 95 % interval, and whether the
 * difference is within measurement noise.
 *
 *   node --conditions=source --import tsx bench/signin-timing.ts
 *   BENCH_TIMING_SAMPLES=300 BENCH_DATABASE_URL=postgres://... node --conditions=source --import tsx bench/signin-timing.ts
 */
import { randomBytes } from 'node:crypto';
import { beginInteraction, type PendingInteraction, submitLogin } from './lib/browser.ts';
import {
  adminWithCompany,
  licenseUsers,
  percentile,
  runOn,
  startLicensableServer,
  tenantCall,
} from './lib/org.ts';
import { saveResult } from './lib/report.ts';
import { envInt, fmt } from './lib/server.ts';

const SAMPLES = envInt('BENCH_TIMING_SAMPLES', 300);
const ACCOUNTS = 100;
/** A difference below this is noise on a loaded two-core machine, whatever the interval says. */
const NOISE_MS = 0.5;

async function timed(run: () => Promise<Response>) {
  const started = performance.now();
  const response = await run();
  await response.arrayBuffer();
  if (response.status !== 401) throw new Error(`expected 401 for a wrong password, got ${response.status}`);
  return performance.now() - started;
}

/** A 95 % bootstrap interval of the difference of medians (b - a). */
function bootstrap(a: number[], b: number[], rounds = 2000): [number, number] {
  const pick = (values: number[]) =>
    Array.from(values, () => values[Math.floor(Math.random() * values.length)] ?? 0);
  const diffs: number[] = [];
  for (let i = 0; i < rounds; i++) diffs.push(percentile(pick(b), 50) - percentile(pick(a), 50));
  return [percentile(diffs, 2.5), percentile(diffs, 97.5)];
}

async function main() {
  const server = await startLicensableServer();
  await runOn(server, async () => {
    const tenant = await adminWithCompany(server, 'Timing Co');
    await licenseUsers(server, tenant, ACCOUNTS + 10);
    const usernames: string[] = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      const username = `timing-${i}`;
      await tenantCall(server, tenant, '/api/v1/manage/user/create', {
        username,
        password: 'Timing-Pass-2026',
        confirmPassword: 'Timing-Pass-2026',
        mustChangePassword: false,
      });
      usernames.push(username);
    }
    const known: number[] = [];
    const unknown: number[] = [];
    // Warm-up of both paths.
    for (let i = 0; i < 10; i++) {
      await submitLogin(server, await beginInteraction(server), { username: `warm-${i}`, password: 'x' });
    }
    for (let i = 0; i < SAMPLES; i++) {
      const a: PendingInteraction = await beginInteraction(server);
      const b: PendingInteraction = await beginInteraction(server);
      const knownAttempt = () =>
        timed(() =>
          submitLogin(server, a, { username: usernames[i % ACCOUNTS] ?? '', password: `wrong-${i}` }),
        );
      const unknownAttempt = () =>
        timed(() =>
          submitLogin(server, b, {
            username: `nobody-${randomBytes(6).toString('hex')}`,
            password: `wrong-${i}`,
          }),
        );
      // Alternate which goes first, so that drift weighs on both.
      if (i % 2) {
        known.push(await knownAttempt());
        unknown.push(await unknownAttempt());
      } else {
        unknown.push(await unknownAttempt());
        known.push(await knownAttempt());
      }
    }
    const medianKnown = percentile(known, 50);
    const medianUnknown = percentile(unknown, 50);
    const [low, high] = bootstrap(unknown, known);
    const withinNoise = (low <= 0 && high >= 0) || Math.abs(medianKnown - medianUnknown) < NOISE_MS;
    const result = {
      samples: SAMPLES,
      medianKnownMs: medianKnown,
      medianUnknownMs: medianUnknown,
      differenceMs: medianKnown - medianUnknown,
      interval95Ms: [low, high],
      p90KnownMs: percentile(known, 90),
      p90UnknownMs: percentile(unknown, 90),
      withinNoise,
    };
    console.log(
      `wrong password, known username: median ${fmt(medianKnown, 2)} ms; unknown username: ${fmt(medianUnknown, 2)} ms; ` +
        `difference ${fmt(medianKnown - medianUnknown, 2)} ms (95 % ${fmt(low, 2)} .. ${fmt(high, 2)}): ` +
        (withinNoise ? 'within noise' : 'DIFFERENT'),
    );
    console.log(`saved ${await saveResult('signin-timing', server.storage, result)}`);
  });
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
