/**
 * The Exchange agent (issue 18): how much it adds to a proxied ActiveSync request, and how much
 * memory 1 000 long-poll Pings held open through it take. An Exchange ActiveSync stand-in
 * (packages/server/src/test/exchange-stand-in.ts) runs in this process on 127.0.0.1.
 *
 * - Latency: `BENCH_EAS_REQUESTS` Sync requests of one phone, one at a time on a kept-alive
 *   connection, alternating batches straight to the stand-in and through the agent; median and
 *   95th percentile of each, and the difference of the medians. Goal: at most 2 ms added.
 * - CPU: `BENCH_EAS_CPU_REQUESTS` Syncs through the agent, `BENCH_EAS_CPU_CONCURRENCY` at once: the
 *   server's and its PostgreSQL backends' CPU per Sync, and so Syncs per vCPU (docs/sizing.md).
 * - Long polls: `BENCH_EAS_PINGS` Pings held by the stand-in at once (its heartbeat outlasts the
 *   measurement); the server's VmRSS before and with all of them open. Goal: at most 150 MB more.
 *   All the Pings are of one registered device (the agent keeps no state per connection beyond
 *   the request itself; a device row more per Ping would not change the held memory).
 *
 *   node --conditions=source --import tsx bench/exchange-agent.ts
 */

import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { startExchangeStandIn } from '../packages/server/src/test/exchange-stand-in.ts';
import { activeSyncPath, iPhone, pingBody, syncBody } from '../packages/server/src/test/phone.ts';
import { CookieJar, callApi, redeemCode, signIn } from './lib/browser.ts';
import { cpuMeter, postgresDatabaseOf, saveResult, verdict } from './lib/report.ts';
import { envInt, fmt, memoryOf, pool, sleep, startServer } from './lib/server.ts';

const REQUESTS = envInt('BENCH_EAS_REQUESTS', 2000);
const PINGS = envInt('BENCH_EAS_PINGS', 1000);
const CPU_REQUESTS = envInt('BENCH_EAS_CPU_REQUESTS', 2000);
const CPU_CONCURRENCY = envInt('BENCH_EAS_CPU_CONCURRENCY', 8);
const SERVICE = { username: 'svc-bench', password: 'Svc-Bench-Pass-1' };
const PERSON = { username: 'phone.bench', password: 'Phone-Bench-Pass-1' };
const phone = iPhone('BENCHIPHONE000000000000000000001');

interface Answer {
  status: number;
  body: string;
}

function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: Buffer; agent?: Agent },
) {
  return new Promise<Answer>((resolve, reject) => {
    const sent = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, agent: options.agent },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    sent.on('error', reject);
    sent.end(options.body);
  });
}

/** Browser-like GET/POST with cookies, following redirects (the user centre's pages). */
async function browse(jar: CookieJar, url: string, form?: Record<string, string>) {
  let current = url;
  let init: RequestInit | undefined = form
    ? {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      }
    : undefined;
  for (let hop = 0; hop < 10; hop++) {
    const response = await fetch(current, {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init?.headers as Record<string, string>),
        cookie: jar.header(new URL(current).pathname),
      },
    });
    jar.store(response);
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location)
      return { url: current, html: await response.text() };
    await response.arrayBuffer();
    current = new URL(location, current).toString();
    init = undefined;
  }
  throw new Error(`too many redirects from ${url}`);
}

const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** The device password its person sees in the user centre. */
async function devicePassword(base: string, deviceRowId: string) {
  const jar = new CookieJar();
  const signInPage = await browse(jar, `${base}/portal/account`);
  const account = await browse(jar, `${signInPage.url}/login`, {
    csrf: csrfOf(signInPage.html),
    identifier: PERSON.username,
    password: PERSON.password,
  });
  const shown = await browse(jar, `${base}/portal/account/devices/reveal`, {
    csrf: csrfOf(account.html),
    deviceId: deviceRowId,
  });
  const password = /data-device-password="([^"]+)"/.exec(shown.html)?.[1];
  if (!password) throw new Error('the user centre showed no device password');
  return password;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const p95 = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.95)] as number;

async function main() {
  const exchange = await startExchangeStandIn({
    service: SERVICE,
    mailboxes: [PERSON.username],
    pingHoldMs: 600_000,
  });
  const server = await startServer({ env: { TESSERA_OUTBOUND_ALLOWED_NETWORKS: '127.0.0.1' } });
  console.log(`Exchange agent benchmark on ${server.storage}, server pid ${server.pid}`);
  try {
    const { code, verifier } = await signIn(server);
    const token = await redeemCode(server, code, verifier);
    const company = await callApi<{ companyId: string }>(
      server,
      '/api/v1/manage/company/create',
      { name: 'Bench Mail' },
      token,
    );
    const manage = async <T>(path: string, body: unknown) => {
      const response = await fetch(`${server.base}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          access_token: token,
          company_id: company.data.companyId,
        },
        body: JSON.stringify(body),
      });
      const answer = (await response.json()) as { code: number; msg: string; data: T };
      if (answer.code !== 200) throw new Error(`${path}: ${answer.msg}`);
      return answer.data;
    };
    await manage('/api/v1/manage/company/user/create', { ...PERSON, role: 'member' });
    await manage('/api/v1/manage/safety/exchange/update', {
      enabled: true,
      exchangeUrl: exchange.url,
      credentialMode: 'service',
      serviceUsername: SERVICE.username,
      servicePassword: SERVICE.password,
      activation: 'automatic',
      userDeviceLimit: 3,
      defaultDevicePermission: 'user',
    });
    const { token: registration } = await manage<{ token: string }>('/api/v1/manage/safety/device/token', {});
    const basic = (user: string, password: string) =>
      `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    const phoneHeaders = (authorization: string) => ({
      'user-agent': phone.userAgent,
      'ms-asprotocolversion': '16.1',
      'x-ms-policykey': '0',
      'content-type': 'application/vnd.ms-sync.wbxml',
      authorization,
    });
    const path = (command: string) => activeSyncPath(phone, command, PERSON.username);
    await send(`${server.base}${path('Sync')}`, {
      method: 'POST',
      headers: phoneHeaders(basic(PERSON.username, registration)),
      body: syncBody(),
    });
    const [device] = (
      await manage<{ list: { deviceId: string }[] }>('/api/v1/manage/user/exchange/admin/device/list', {})
    ).list;
    if (!device) throw new Error('the phone did not register');
    const password = await devicePassword(server.base, device.deviceId);

    // ---- latency
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
    const direct = {
      url: `${exchange.url}${path('Sync')}`,
      headers: phoneHeaders(basic(SERVICE.username, SERVICE.password)),
    };
    const proxied = {
      url: `${server.base}${path('Sync')}`,
      headers: phoneHeaders(basic(PERSON.username, password)),
    };
    const timings = { direct: [] as number[], proxied: [] as number[] };
    const body = syncBody();
    for (let round = 0; round < REQUESTS / 100; round++) {
      for (const [name, target] of [
        ['direct', direct],
        ['proxied', proxied],
      ] as const) {
        for (let i = 0; i < 50; i++) {
          const started = process.hrtime.bigint();
          const answer = await send(target.url, {
            method: 'POST',
            headers: target.headers,
            body,
            agent: keepAlive,
          });
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          if (answer.status !== 200) throw new Error(`${name} Sync answered ${answer.status}`);
          if (round > 0) timings[name].push(ms);
        }
      }
    }
    const added = median(timings.proxied) - median(timings.direct);
    console.log(
      `Sync, one at a time (${timings.direct.length} each): direct median ${fmt(median(timings.direct), 2)} ms, p95 ${fmt(p95(timings.direct), 2)}; ` +
        `through the agent median ${fmt(median(timings.proxied), 2)} ms, p95 ${fmt(p95(timings.proxied), 2)}; added ${fmt(added, 2)} ms: ${verdict(added <= 2)}`,
    );

    // ---- CPU per Sync through the agent, CPU_CONCURRENCY at once (the stand-in's CPU is this process's)
    const meter = cpuMeter(server.pid, { postgresDatabase: postgresDatabaseOf(server.stored.database) });
    const parallel = new Agent({ keepAlive: true, maxSockets: CPU_CONCURRENCY });
    const cpuStarted = performance.now();
    await pool(CPU_REQUESTS, CPU_CONCURRENCY, 120_000, async () => {
      const answer = await send(proxied.url, {
        method: 'POST',
        headers: proxied.headers,
        body,
        agent: keepAlive,
      });
      if (answer.status !== 200) throw new Error(`Sync through the agent answered ${answer.status}`);
    });
    const cpuSeconds = (performance.now() - cpuStarted) / 1000;
    const cpu = meter.stop();
    keepAlive.destroy();
    parallel.destroy();
    const perSync = (cores: number) => (cores * cpuSeconds * 1000) / CPU_REQUESTS;
    const syncCpu = { serverMs: perSync(cpu.server), postgresMs: perSync(cpu.postgres) };
    console.log(
      `Sync through the agent, ${CPU_CONCURRENCY} at once: ${fmt(CPU_REQUESTS / cpuSeconds)}/s; CPU per Sync: server ` +
        `${fmt(syncCpu.serverMs, 2)} ms (main thread ${fmt(perSync(cpu.serverMain), 2)}), postgres ${fmt(syncCpu.postgresMs, 2)} ms ` +
        `= ${fmt(1000 / (syncCpu.serverMs + syncCpu.postgresMs), 0)} per vCPU`,
    );

    // ---- long polls held open
    await sleep(2000);
    const before = memoryOf(server.pid).rssMiB;
    const held = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
    let open = 0;
    const all = once(exchange.events, 'allHeld');
    exchange.events.on('pingHeld', () => {
      open += 1;
      if (open === PINGS) exchange.events.emit('allHeld');
    });
    const pings = Array.from({ length: PINGS }, () =>
      send(`${server.base}${path('Ping')}`, {
        method: 'POST',
        headers: phoneHeaders(basic(PERSON.username, password)),
        body: pingBody(900),
        agent: held,
      }).catch(() => undefined),
    );
    await all;
    await sleep(3000);
    const during = memoryOf(server.pid).rssMiB;
    const extraMB = ((during - before) * 1024 * 1024) / 1e6;
    console.log(
      `${PINGS} Pings held open: server VmRSS ${fmt(before)} MiB before, ${fmt(during)} MiB with them open: +${fmt(extraMB)} MB: ${verdict(extraMB <= 150)}`,
    );
    await exchange.close();
    await Promise.all(pings);
    held.destroy();
    const file = await saveResult('exchange-agent', server.storage, {
      latencyMs: {
        direct: { median: median(timings.direct), p95: p95(timings.direct) },
        proxied: { median: median(timings.proxied), p95: p95(timings.proxied) },
        added,
      },
      cpuPerSync: syncCpu,
      pings: { count: PINGS, rssBeforeMiB: before, rssDuringMiB: during, extraMB },
    });
    console.log(`saved ${file}`);
  } finally {
    await server.stop();
    await exchange.close().catch(() => {});
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
