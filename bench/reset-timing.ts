/**
 * Whether "Forgot password?" answers a known identifier later than an unknown one (a timing
 * oracle for accounts). The server sends mail to a deliberately slow SMTP server of this script
 * (it waits SMTP_DELAY_MS before each answer), so that a reset that waited for the mail would
 * show. Alternates the two kinds of request, each on its own interaction: a code for one of the
 * existing accounts (each asked once, within its budgets) and a code for a fresh unknown
 * identifier. Reports the median latency of each, their difference with a bootstrap 95 %
 * interval, and whether the difference is within measurement noise.
 *
 *   BENCH_SERVER=source node --conditions=source --import tsx bench/reset-timing.ts
 *   BENCH_TIMING_SAMPLES=200 BENCH_SERVER=source node --conditions=source --import tsx bench/reset-timing.ts
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import { beginInteraction, postForm } from './lib/browser.ts';
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

const SAMPLES = envInt('BENCH_TIMING_SAMPLES', 100);
const SMTP_DELAY_MS = envInt('BENCH_SMTP_DELAY_MS', 300);
/** A difference below this is noise on a loaded two-core machine, whatever the interval says. */
const NOISE_MS = 1;

/** Just enough of an SMTP server to take mail, slowly: every answer waits SMTP_DELAY_MS. */
async function slowSmtp() {
  let received = 0;
  const answer = (socket: Socket, line: string) =>
    setTimeout(() => socket.write(`${line}\r\n`), SMTP_DELAY_MS);
  const server = createServer((socket) => {
    let inData = false;
    let buffer = '';
    answer(socket, '220 slow.example ESMTP');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            received += 1;
            answer(socket, '250 queued');
          }
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') answer(socket, '250 slow.example');
        else if (verb === 'DATA') {
          inData = true;
          answer(socket, '354 go on');
        } else if (verb === 'QUIT') answer(socket, '221 bye');
        else answer(socket, '250 ok');
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  return { url: `smtp://127.0.0.1:${port}`, received: () => received, close: () => server.close() };
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
  const smtp = await slowSmtp();
  const server = await startLicensableServer({ env: { TESSERA_SMTP_URL: smtp.url } });
  await runOn(server, async () => {
    const tenant = await adminWithCompany(server, 'Reset Timing Co');
    await licenseUsers(server, tenant, SAMPLES + 20);
    const usernames: string[] = [];
    for (let i = 0; i < SAMPLES + 5; i++) {
      const username = `reset-timing-${i}`;
      await tenantCall(server, tenant, '/api/v1/manage/user/create', {
        username,
        email: `${username}@example.com`,
        password: 'Timing-Pass-2026',
        confirmPassword: 'Timing-Pass-2026',
        mustChangePassword: false,
      });
      usernames.push(username);
    }
    /** Asks for a code on a fresh interaction; the time of the answer to the identifier. */
    const ask = async (identifier: string) => {
      const interaction = await beginInteraction(server);
      const path = `/interaction/${interaction.uid}/forgot`;
      const started = performance.now();
      const response = await postForm(
        `${server.base}${path}`,
        new URLSearchParams({ csrf: interaction.csrf, identifier }).toString(),
        { cookie: interaction.jar.header(path) },
      );
      const html = await response.text();
      const elapsed = performance.now() - started;
      if (response.status !== 200 || !html.includes('name="code"'))
        throw new Error(`expected the code page, got ${response.status}`);
      return elapsed;
    };
    for (let i = 0; i < 5; i++) {
      await ask(usernames[SAMPLES + i] ?? '');
      await ask(`warm-${randomBytes(6).toString('hex')}`);
    }
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const knownAsk = async () => known.push(await ask(usernames[i] ?? ''));
      const unknownAsk = async () => unknown.push(await ask(`nobody-${randomBytes(6).toString('hex')}`));
      // Alternate which goes first, so that drift weighs on both.
      if (i % 2) {
        await knownAsk();
        await unknownAsk();
      } else {
        await unknownAsk();
        await knownAsk();
      }
    }
    const medianKnown = percentile(known, 50);
    const medianUnknown = percentile(unknown, 50);
    const [low, high] = bootstrap(unknown, known);
    const withinNoise = (low <= 0 && high >= 0) || Math.abs(medianKnown - medianUnknown) < NOISE_MS;
    const result = {
      samples: SAMPLES,
      smtpDelayMs: SMTP_DELAY_MS,
      mailsReceived: smtp.received(),
      medianKnownMs: medianKnown,
      medianUnknownMs: medianUnknown,
      differenceMs: medianKnown - medianUnknown,
      interval95Ms: [low, high],
      p90KnownMs: percentile(known, 90),
      p90UnknownMs: percentile(unknown, 90),
      withinNoise,
    };
    console.log(
      `forgot password, known identifier: median ${fmt(medianKnown, 2)} ms; unknown: ${fmt(medianUnknown, 2)} ms; ` +
        `difference ${fmt(medianKnown - medianUnknown, 2)} ms (95 % ${fmt(low, 2)} .. ${fmt(high, 2)}), ` +
        `SMTP answering in ${SMTP_DELAY_MS} ms per step: ${withinNoise ? 'within noise' : 'DIFFERENT'}`,
    );
    console.log(`saved ${await saveResult('reset-timing', server.storage, result)}`);
  });
  smtp.close();
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
