import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import { RFC5424 } from '../../test/syslog-frames.ts';

/**
 * Issue 16: syslog forwarding against a real rsyslog from Debian (scripts/with-rsyslog.sh), over
 * UDP, TCP and TLS (octet counting): every event arrives and parses as RFC 5424; with rsyslog
 * stopped for a while and started again, nothing is lost and the order holds; and no secret the
 * run used is ever in what rsyslog received.
 */
const udp = process.env.TESSERA_TEST_RSYSLOG_UDP;
const tcp = process.env.TESSERA_TEST_RSYSLOG_TCP;
const file = process.env.TESSERA_TEST_RSYSLOG_FILE;
const ctl = process.env.TESSERA_TEST_RSYSLOG_CTL;
/** The TLS listener and its CA (absent when rsyslog's TLS driver could not be installed). */
const tls = process.env.TESSERA_TEST_RSYSLOG_TLS;
const caFile = process.env.TESSERA_TEST_RSYSLOG_CA;
const available = Boolean(udp && tcp && file && ctl);
if (!available && ['true', '1'].includes(process.env.CI ?? ''))
  throw new Error('rsyslog is required under CI=true (run the tests through scripts/with-rsyslog.sh)');

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
const asOwner = () => ({ token: owner.token, companyId: owner.companyId });
/** Every secret this run hands the server: none may reach syslog. */
const secrets: string[] = ['Sunny-Secret-4711', 'Reset-Secret-0815'];

const received = () =>
  file && existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];

/** Waits until rsyslog has written a line matching each pattern (it writes as it receives). */
async function arrived(patterns: RegExp[], timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lines = received();
    const missing = patterns.filter((pattern) => !lines.some((line) => pattern.test(line)));
    if (!missing.length) return lines;
    if (Date.now() > deadline) throw new Error(`rsyslog did not receive ${missing.join(', ')}`);
    await delay(50);
  }
}

async function deliver() {
  await ctx.database.db
    .updateTable('jobs')
    .set({ run_after: new Date(0) })
    .where('status', '=', 'queued')
    .execute();
  await ctx.tessera.jobs.drain();
}

const target = (address: string) => {
  const [host, port] = address.split(':') as [string, string];
  return { host, port: Number(port) };
};

describe.skipIf(!available)('syslog to rsyslog', () => {
  beforeAll(async () => {
    ctx = await startTestApp({ jobs: { run: false } });
    owner = await ownerWithCompany(ctx, 'rsyslog-owner', 'Rsyslog Works');
  });
  afterAll(async () => {
    if (ctl) execFileSync(ctl, ['start']);
    await ctx?.close();
  });

  it('delivers over UDP as RFC 5424', async () => {
    await call(
      ctx,
      '/api/v1/manage/company/syslog/update',
      { enabled: true, protocol: 'udp', ...target(udp as string), tag: 'tessera-udp' },
      asOwner(),
    );
    const created = await call<{ userId: string }>(
      ctx,
      '/api/v1/manage/company/user/create',
      { username: 'udp-person', role: 'member', password: secrets[0] },
      asOwner(),
    );
    expect(created.code).toBe(200);
    await deliver();
    const lines = await arrived([
      /tessera-udp .*action="company\.syslog\.update"/,
      /tessera-udp .*action="company\.member\.add"/,
    ]);
    for (const line of lines.filter((l) => l.includes('tessera-udp'))) expect(line).toMatch(RFC5424);
  });

  it('delivers over TCP and loses nothing while rsyslog is stopped and started again', async () => {
    await call(
      ctx,
      '/api/v1/manage/company/syslog/update',
      { enabled: true, protocol: 'tcp', ...target(tcp as string), tag: 'tessera-tcp' },
      asOwner(),
    );
    const app = await call<{ app: { appId: string }; clientSecret: string }>(
      ctx,
      '/api/v1/manage/app/create',
      { name: 'Before stop' },
      asOwner(),
    );
    secrets.push(app.data.clientSecret);
    await deliver();
    await arrived([/tessera-tcp .*action="app\.create"/]);

    execFileSync(ctl as string, ['stop']);
    const names = ['During stop 1', 'During stop 2', 'During stop 3'];
    for (const name of names) await call(ctx, '/api/v1/manage/company/update', { name }, asOwner());
    const person = (
      await call<{ list: { userId: string }[] }>(
        ctx,
        '/api/v1/manage/company/user',
        { keyword: 'udp-person' },
        asOwner(),
      )
    ).data.list[0];
    await call(
      ctx,
      '/api/v1/manage/user/password/reset',
      { userId: person?.userId, password: secrets[1], confirmPassword: secrets[1] },
      asOwner(),
    );
    await deliver();
    const down = (
      await call<{ backlog: number; lastError: string }>(
        ctx,
        '/api/v1/manage/company/syslog/status',
        {},
        asOwner(),
      )
    ).data;
    expect(down.backlog).toBeGreaterThanOrEqual(4);
    expect(down.lastError).toMatch(/ECONNREFUSED/);

    execFileSync(ctl as string, ['start']);
    await deliver();
    const lines = await arrived([
      /tessera-tcp .*action="user\.password_reset"/,
      /tessera-tcp .*action="company\.update"/,
    ]);
    const updates = lines.filter(
      (line) => line.includes('tessera-tcp') && line.includes('action="company.update"'),
    );
    expect(updates.length).toBeGreaterThanOrEqual(3);
    // In the order they happened: the events' own times (RFC 5424 TIMESTAMP) never go back.
    const times = lines
      .filter((line) => line.includes('tessera-tcp'))
      .map((line) => Date.parse(line.split(' ')[1] as string));
    expect(
      times.every((time, i) => !Number.isNaN(time) && (i === 0 || time >= (times[i - 1] as number))),
    ).toBe(true);
    expect(
      (await call<{ backlog: number }>(ctx, '/api/v1/manage/company/syslog/status', {}, asOwner())).data
        .backlog,
    ).toBe(0);
    for (const line of lines.filter((l) => l.includes('tessera-'))) expect(line).toMatch(RFC5424);
  });

  it.skipIf(!tls && !['true', '1'].includes(process.env.CI ?? ''))(
    'delivers over TLS to a receiver whose certificate the pasted CA signed',
    async () => {
      const caPem = readFileSync(caFile as string, 'utf8');
      const saved = await call(
        ctx,
        '/api/v1/manage/company/syslog/update',
        { enabled: true, protocol: 'tls', ...target(tls as string), tag: 'tessera-tls', caPem },
        asOwner(),
      );
      expect(saved.code).toBe(200);
      await call(ctx, '/api/v1/manage/company/update', { name: 'Over TLS' }, asOwner());
      await deliver();
      const lines = await arrived([/tessera-tls .*action="company\.update"/]);
      for (const line of lines.filter((l) => l.includes('tessera-tls'))) expect(line).toMatch(RFC5424);
      expect(
        (await call<{ backlog: number }>(ctx, '/api/v1/manage/company/syslog/status', {}, asOwner())).data
          .backlog,
      ).toBe(0);
    },
  );

  it('never sends a secret the run used', () => {
    const everything = received().join('\n');
    expect(everything.length).toBeGreaterThan(0);
    for (const secret of secrets)
      expect({ secret, found: everything.includes(secret) }).toEqual({ secret, found: false });
  });
});
