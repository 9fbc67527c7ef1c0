import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';

/**
 * Issue 28: a company's syslog target written as IPv4-mapped IPv6 in hex (`::ffff:7f00:1`, which
 * is 127.0.0.1) used to pass the host check, and delivery reached a real rsyslog on loopback
 * (scripts/with-rsyslog.sh), its status telling whether the port was open. With the default
 * settings such a target is refused at saving, in English and Chinese, and a row that holds one
 * anyway (saved before the rule, or a name that later resolves there) sends nothing: only what an
 * installation permits reaches rsyslog.
 */
const udp = process.env.TESSERA_TEST_RSYSLOG_UDP;
const tcp = process.env.TESSERA_TEST_RSYSLOG_TCP;
const file = process.env.TESSERA_TEST_RSYSLOG_FILE;
const available = Boolean(udp && tcp && file);
if (!available && ['true', '1'].includes(process.env.CI ?? ''))
  throw new Error('rsyslog is required under CI=true (run the tests through scripts/with-rsyslog.sh)');

const portOf = (address: string | undefined) => Number(address?.split(':')[1]);
const received = () =>
  file && existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];

async function arrived(pattern: RegExp, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lines = received();
    if (lines.some((line) => pattern.test(line))) return lines;
    if (Date.now() > deadline) throw new Error(`rsyslog did not receive ${pattern}`);
    await delay(50);
  }
}

async function deliver(ctx: TestContext) {
  await ctx.database.db
    .updateTable('jobs')
    .set({ run_after: new Date(0) })
    .where('status', '=', 'queued')
    .execute();
  await ctx.tessera.jobs.drain();
}

describe.skipIf(!available)('syslog targets that spell loopback, against rsyslog', () => {
  /** Default settings: TESSERA_SYSLOG_ALLOW_LOCAL_TARGETS unset. */
  let closed: TestContext;
  /** An installation whose operator lets syslog reach loopback (TESSERA_SYSLOG_ALLOW_LOCAL_TARGETS=true). */
  let open: TestContext;
  beforeAll(async () => {
    closed = await startTestApp({ jobs: { run: false }, syslogAllowLocalTargets: false });
    open = await startTestApp({ jobs: { run: false } });
  });
  afterAll(async () => {
    await closed?.close();
    await open?.close();
  });

  it('refuses ::ffff:7f00:1 and its other spellings at saving, clearly, and stores nothing', async () => {
    const owner = await ownerWithCompany(closed, 'mapped-owner', 'Mapped Loopback');
    const spellings: [string, number][] = [
      ['::ffff:7f00:1', portOf(udp)],
      ['[::ffff:7f00:1]', portOf(udp)],
      ['0:0:0:0:0:ffff:7f00:1', portOf(tcp)],
      ['::ffff:a9fe:a9fe', 514],
    ];
    for (const [host, port] of spellings)
      for (const [lang, msg] of [
        ['en', 'Loopback, link-local and cloud metadata addresses cannot receive syslog'],
        ['zh', '回环地址、链路本地地址和云元数据地址不能作为 syslog 接收端'],
      ] as const) {
        const answer = await call(
          closed,
          '/api/v1/manage/company/syslog/update',
          {
            enabled: true,
            protocol: port === portOf(tcp) ? 'tcp' : 'udp',
            host,
            port,
            tag: 'tessera-mapped',
          },
          { token: owner.token, companyId: owner.companyId, lang },
        );
        expect({ host, lang, code: answer.code, msg: answer.msg }).toEqual({ host, lang, code: 400, msg });
      }
    expect(await closed.database.db.selectFrom('company_syslog').selectAll().execute()).toEqual([]);
  });

  it('sends nothing to a stored target that spells loopback; a permitted target still delivers', async () => {
    const owner = await ownerWithCompany(closed, 'planted-owner', 'Planted Target');
    const asOwner = { token: owner.token, companyId: owner.companyId };
    for (const [protocol, address, tag] of [
      ['udp', udp, 'tessera-planted-udp'],
      ['tcp', tcp, 'tessera-planted-tcp'],
    ] as const) {
      // As a row saved before the rule: forwarding on, to rsyslog's port on ::ffff:7f00:1.
      await closed.database.db
        .insertInto('company_syslog')
        .values({
          company_id: owner.companyId,
          enabled: true,
          protocol,
          host: '::ffff:7f00:1',
          port: portOf(address),
          tag,
        })
        .onConflict((oc) => oc.column('company_id').doUpdateSet({ protocol, port: portOf(address), tag }))
        .execute();
      await call(closed, '/api/v1/manage/company/update', { name: `Planted ${protocol}` }, asOwner);
      await deliver(closed);
      const status = (
        await call<{ backlog: number; lastError: string | null; deliveredCount: number }>(
          closed,
          '/api/v1/manage/company/syslog/status',
          {},
          asOwner,
        )
      ).data;
      expect(status).toMatchObject({ deliveredCount: 0, lastError: expect.stringMatching(/loopback/) });
      expect(status.backlog).toBeGreaterThan(0);
    }

    // A permitted target of the same rsyslog, over the same inputs: its events arrive, and they
    // arrive after anything the refused attempts could have sent, which is nothing.
    const permitted = await ownerWithCompany(open, 'permitted-owner', 'Permitted Target');
    for (const [protocol, address] of [
      ['udp', udp],
      ['tcp', tcp],
    ] as const) {
      const tag = `tessera-permitted-${protocol}`;
      const saved = await call(
        open,
        '/api/v1/manage/company/syslog/update',
        { enabled: true, protocol, host: '127.0.0.1', port: portOf(address), tag },
        { token: permitted.token, companyId: permitted.companyId },
      );
      expect(saved.code).toBe(200);
      await deliver(open);
      await arrived(new RegExp(`${tag} .*action="company\\.syslog\\.update"`));
    }
    expect(received().filter((line) => line.includes('tessera-planted'))).toEqual([]);
  });
});
