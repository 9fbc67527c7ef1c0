import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSealer } from '../../lib/crypto.ts';
import { createOutboundPolicy } from '../../lib/outbound-address.ts';
import {
  call,
  companyMember,
  createAccount,
  ownerWithCompany,
  sessionFor,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import { type SmsStandIn, startAliyunSms, startTencentSms } from '../../test/sms-providers.ts';
import { createMailer } from '../mail/mailer.ts';
import { createOneTimeCodes } from '../verification/one-time-codes.ts';
import { createSmsService } from './sms.service.ts';

/**
 * Issue 29: the platform administrator configures the SMS provider (the secret sealed, never
 * shown), sends a test message, and a company sets its own sign name; codes go through the
 * provider's documented API to stand-ins that check the signature as the provider does, and a
 * refusal is `sms.send_failed` to the person and an event in the logs, without the code.
 */

const SECRET = 'aliyun-secret-Value-42';
const TENCENT_SECRET = 'tencent-secret-Value-43';
const account = {
  accessKeyId: 'LTAI5tPlatform',
  accessKeySecret: SECRET,
  signNames: ['Tessera', 'Acme Rockets'],
  templateIds: ['SMS_100000001', 'SMS_200000002'],
};
const serverLog: string[] = [];
let ctx: TestContext;
let aliyun: SmsStandIn;
let tencent: SmsStandIn;
let operator: { token: string };
let acme: Awaited<ReturnType<typeof ownerWithCompany>>;
let beta: Awaited<ReturnType<typeof ownerWithCompany>>;

beforeAll(async () => {
  ctx = await startTestApp({ log: { write: (line) => serverLog.push(line) } });
  aliyun = await startAliyunSms(account);
  tencent = await startTencentSms({
    ...account,
    accessKeyId: 'AKIDtencentPlatform',
    accessKeySecret: TENCENT_SECRET,
    appId: '1400123456',
  });
  const admin = await createAccount(ctx, { username: 'sms-operator', platformAdmin: true });
  operator = { token: await sessionFor(ctx, admin.id, 'admin') };
  acme = await ownerWithCompany(ctx, 'sms-acme-owner', 'Acme Rockets');
  beta = await ownerWithCompany(ctx, 'sms-beta-owner', 'Beta Holdings');
});
afterAll(async () => {
  await ctx.close();
  await aliyun.close();
  await tencent.close();
});

const PLATFORM = '/api/v1/manage/platform/sms';
const UPDATE = '/api/v1/manage/platform/sms/update';
const TEST = '/api/v1/manage/platform/sms/test';
const COMPANY = '/api/v1/manage/company/sms/conf';
const COMPANY_UPDATE = '/api/v1/manage/company/sms/update';

const aliyunSettings = () => ({
  provider: 'aliyun',
  accessKeyId: account.accessKeyId,
  accessKeySecret: SECRET,
  region: 'cn-hangzhou',
  signName: 'Tessera',
  templateId: 'SMS_100000001',
  baseUrl: aliyun.url,
});

/** A code sender as the server builds it, on the stored settings, with its own log. */
function codesWithLog() {
  const lines: string[] = [];
  const service = createSmsService({
    db: ctx.database.db,
    sealer: createSealer(ctx.masterKey),
    outbound: createOutboundPolicy(['127.0.0.0/8']),
    log: {
      warn: (fields: object, message?: string) => lines.push(JSON.stringify({ ...fields, message })),
    } as never,
  });
  const codes = createOneTimeCodes({
    db: ctx.database.db,
    mailer: createMailer(undefined, { warn: () => {} }),
    sms: service.sender,
  });
  return { codes, sender: service.sender, lines };
}

async function personOf(company: { token: string; companyId: string }, username: string) {
  const member = await companyMember(ctx, company, username);
  return member.id;
}

describe('without a provider', () => {
  it('sends no code by SMS: not configured', async () => {
    const { codes, sender } = codesWithLog();
    expect(await sender.available(acme.companyId)).toBe(false);
    const accountId = await personOf(acme, 'nobody-sms');
    await expect(
      codes.issue({
        companyId: acme.companyId,
        accountId,
        purpose: 'sign_in',
        channel: 'sms',
        address: '13800000001',
        lang: 'en',
      }),
    ).rejects.toMatchObject({ reason: 'sms.not_configured' });
    expect((await call(ctx, PLATFORM, {}, operator)).data).toMatchObject({
      provider: null,
      secretSet: false,
    });
  });
});

describe('the platform provider settings', () => {
  it('refuses everyone but platform administrators', async () => {
    for (const path of [PLATFORM, UPDATE, TEST]) {
      const answer = await call(
        ctx,
        path,
        { ...aliyunSettings(), phone: '13800000000' },
        { token: acme.token },
      );
      expect({ path, code: answer.code, reason: (answer.data as { reason: string }).reason }).toEqual({
        path,
        code: 403,
        reason: 'platform.platform_admin_only',
      });
    }
    expect(await ctx.database.db.selectFrom('sms_provider').selectAll().execute()).toEqual([]);
  });

  it('refuses incomplete settings, an address with a path and an address the outbound rule refuses, storing nothing', async () => {
    const bad = [
      [{ ...aliyunSettings(), signName: '' }, 'sms.field_required'],
      [{ ...aliyunSettings(), provider: 'tencent' }, 'sms.field_required'],
      [{ ...aliyunSettings(), accessKeySecret: '' }, 'sms.secret_required'],
      [{ ...aliyunSettings(), baseUrl: `${aliyun.url}/path` }, 'sms.base_url_invalid'],
      [{ ...aliyunSettings(), baseUrl: 'ftp://example.com' }, 'sms.base_url_invalid'],
      [{ ...aliyunSettings(), baseUrl: 'http://10.1.2.3:8080' }, 'outbound.address_refused'],
      [{ ...aliyunSettings(), provider: 'twilio' }, 'sms.provider_invalid'],
    ] as const;
    for (const [body, reason] of bad) {
      const answer = await call(ctx, UPDATE, body, operator);
      expect({ body, reason: (answer.data as { reason: string }).reason }).toEqual({ body, reason });
    }
    expect(await ctx.database.db.selectFrom('sms_provider').selectAll().execute()).toEqual([]);
  });

  it('stores Alibaba Cloud with the secret sealed, never answered nor audited', async () => {
    const answer = await call(ctx, UPDATE, aliyunSettings(), operator);
    expect(answer.code).toBe(200);
    expect(answer.data).toMatchObject({
      provider: 'aliyun',
      secretSet: true,
      signName: 'Tessera',
      baseUrl: aliyun.url,
    });
    expect(JSON.stringify(answer)).not.toContain(SECRET);
    const row = await ctx.database.db.selectFrom('sms_provider').selectAll().executeTakeFirstOrThrow();
    expect(row.access_key_secret_sealed).not.toContain(SECRET);
    expect(
      createSealer(ctx.masterKey).open(row.access_key_secret_sealed, 'sms.provider.access_key_secret'),
    ).toBe(SECRET);
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .select(['before', 'after'])
      .where('action', '=', 'platform.sms.update')
      .execute();
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain(SECRET);
    // Saved again without a secret: the stored one is kept.
    expect((await call(ctx, UPDATE, { ...aliyunSettings(), accessKeySecret: '' }, operator)).code).toBe(200);
    expect((await call(ctx, TEST, { phone: '13800000002' }, operator)).code).toBe(200);
  });

  it('sends a test message with the platform sign name, and shows a refusal with the provider code', async () => {
    const answer = await call<{ messageId: string }>(ctx, TEST, { phone: '+86 13800000003' }, operator);
    expect(answer.code).toBe(200);
    expect(aliyun.messages.at(-1)).toMatchObject({
      phone: '13800000003',
      signName: 'Tessera',
      templateId: 'SMS_100000001',
    });
    aliyun.refuseNext('isv.AMOUNT_NOT_ENOUGH', '账户余额不足');
    const refused = await call(ctx, TEST, { phone: '13800000003' }, operator);
    expect(refused).toMatchObject({ code: 502, data: { reason: 'sms.test_failed' } });
    expect(refused.msg).toContain('isv.AMOUNT_NOT_ENOUGH');
    const logged = serverLog.find((line) => line.includes('isv.AMOUNT_NOT_ENOUGH'));
    expect(logged).toBeDefined();
    expect(logged).not.toContain(SECRET);
    expect(logged).not.toContain('123456');
    expect((await call(ctx, TEST, { phone: 'call me' }, operator)).data).toMatchObject({
      reason: 'sms.phone_invalid',
    });
  });
});

describe("a company's own sign name", () => {
  it('is set by the company and used for its people only', async () => {
    const { codes, sender } = codesWithLog();
    expect(await sender.available(acme.companyId)).toBe(true);
    const set = await call(
      ctx,
      COMPANY_UPDATE,
      { signName: 'Acme Rockets', templateId: 'SMS_200000002' },
      acme,
    );
    expect(set.data).toEqual({
      platformConfigured: true,
      provider: 'aliyun',
      signName: 'Acme Rockets',
      templateId: 'SMS_200000002',
      platformSignName: 'Tessera',
      platformTemplateId: 'SMS_100000001',
    });
    const acmePerson = await personOf(acme, 'acme-sms-person');
    await codes.issue({
      companyId: acme.companyId,
      accountId: acmePerson,
      purpose: 'sign_in',
      channel: 'sms',
      address: '13800000010',
      lang: 'zh',
    });
    expect(aliyun.messages.at(-1)).toMatchObject({
      phone: '13800000010',
      signName: 'Acme Rockets',
      templateId: 'SMS_200000002',
    });
    expect(aliyun.messages.at(-1)?.params[0]).toMatch(/^\d{6}$/);
    const betaPerson = await personOf(beta, 'beta-sms-person');
    await codes.issue({
      companyId: beta.companyId,
      accountId: betaPerson,
      purpose: 'sign_in',
      channel: 'sms',
      address: '13800000011',
      lang: 'zh',
    });
    expect(aliyun.messages.at(-1)).toMatchObject({
      phone: '13800000011',
      signName: 'Tessera',
      templateId: 'SMS_100000001',
    });
  });

  it("is another company's data: not found, and unchanged", async () => {
    for (const path of [COMPANY, COMPANY_UPDATE]) {
      const answer = await call(
        ctx,
        path,
        { signName: 'Planted' },
        { token: acme.token, companyId: beta.companyId },
      );
      expect({ path, code: answer.code, reason: (answer.data as { reason: string }).reason }).toEqual({
        path,
        code: 404,
        reason: 'company.not_found',
      });
    }
    expect((await call(ctx, COMPANY, {}, beta)).data).toMatchObject({ signName: null, templateId: null });
  });

  it("is refused to the company's people who are not its administrators", async () => {
    const member = await companyMember(ctx, acme, 'acme-plain-member');
    const token = await sessionFor(ctx, member.id);
    const answer = await call(
      ctx,
      COMPANY_UPDATE,
      { signName: 'Planted' },
      { token, companyId: acme.companyId },
    );
    expect(answer.code).not.toBe(200);
    expect((await call(ctx, COMPANY, {}, acme)).data).toMatchObject({ signName: 'Acme Rockets' });
  });
});

describe('a provider that refuses', () => {
  it("is sms.send_failed to the person, logged with the provider's code and in the company's log, without the code", async () => {
    const { codes, lines } = codesWithLog();
    const person = await personOf(acme, 'acme-refused-person');
    aliyun.refuseNext('isv.BUSINESS_LIMIT_CONTROL', '触发号码天级流控');
    const sent = aliyun.messages.length;
    await expect(
      codes.issue({
        companyId: acme.companyId,
        accountId: person,
        purpose: 'second_factor',
        channel: 'sms',
        address: '13800000020',
        lang: 'zh',
      }),
    ).rejects.toMatchObject({ reason: 'sms.send_failed' });
    expect(aliyun.messages.length).toBe(sent);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      event: 'sms.send_failed',
      provider: 'aliyun',
      providerCode: 'isv.BUSINESS_LIMIT_CONTROL',
      companyId: acme.companyId,
      phone: '***0020',
    });
    expect(lines[0]).not.toContain(SECRET);
    const events = await ctx.database.db
      .selectFrom('audit_events')
      .select(['after'])
      .where('company_id', '=', acme.companyId)
      .where('action', '=', 'sms.send_failed')
      .execute();
    expect(JSON.stringify(events)).toContain('isv.BUSINESS_LIMIT_CONTROL');
    // Nothing waits for a later try: the refused code's row is gone, and the person may ask again.
    expect(
      await ctx.database.db
        .selectFrom('one_time_codes')
        .select('id')
        .where('account_id', '=', person)
        .execute(),
    ).toEqual([]);
  });
});

describe('a signature the provider refuses', () => {
  it('is logged without the string the provider signed, which holds the code', async () => {
    const { codes, lines } = codesWithLog();
    const person = await personOf(acme, 'acme-signature-person');
    const sealer = createSealer(ctx.masterKey);
    const stored = await ctx.database.db
      .selectFrom('sms_provider')
      .select('access_key_secret_sealed')
      .executeTakeFirstOrThrow();
    await ctx.database.db
      .updateTable('sms_provider')
      .set({ access_key_secret_sealed: sealer.seal('a-revoked-secret', 'sms.provider.access_key_secret') })
      .execute();
    try {
      await expect(
        codes.issue({
          companyId: acme.companyId,
          accountId: person,
          purpose: 'sign_in',
          channel: 'sms',
          address: '13800000040',
          lang: 'en',
        }),
      ).rejects.toMatchObject({ reason: 'sms.send_failed' });
    } finally {
      await ctx.database.db.updateTable('sms_provider').set(stored).execute();
    }
    expect(aliyun.refusals.at(-1)).toBe('SignatureDoesNotMatch');
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      providerCode: 'SignatureDoesNotMatch',
      providerMessage: 'Specified signature is not matched with our calculation.',
    });
    const events = await ctx.database.db
      .selectFrom('audit_events')
      .select('after')
      .where('company_id', '=', acme.companyId)
      .where('action', '=', 'sms.send_failed')
      .execute();
    for (const text of [...lines, JSON.stringify(events)]) {
      expect(text).not.toContain('TemplateParam');
      expect(text).not.toContain('a-revoked-secret');
    }
  });
});

describe('Tencent Cloud', () => {
  it('needs its own secret and app id, then sends through TC3-HMAC-SHA256', async () => {
    const tencentSettings = {
      provider: 'tencent',
      accessKeyId: 'AKIDtencentPlatform',
      region: 'ap-guangzhou',
      appId: '1400123456',
      signName: 'Tessera',
      templateId: 'SMS_100000001',
      templateMinutes: true,
      baseUrl: tencent.url,
    };
    // The Alibaba secret is not carried over to another provider's account.
    expect((await call(ctx, UPDATE, tencentSettings, operator)).data).toMatchObject({
      reason: 'sms.secret_required',
    });
    const saved = await call(ctx, UPDATE, { ...tencentSettings, accessKeySecret: TENCENT_SECRET }, operator);
    expect(saved.data).toMatchObject({ provider: 'tencent', appId: '1400123456', templateMinutes: true });
    expect((await call(ctx, TEST, { phone: '13800000030' }, operator)).code).toBe(200);
    expect(tencent.messages.at(-1)).toEqual({
      phone: '+8613800000030',
      signName: 'Tessera',
      templateId: 'SMS_100000001',
      params: ['123456', '5'],
    });
  });

  it('is turned off with provider null: nothing is sent by SMS', async () => {
    const answer = await call(ctx, UPDATE, { provider: null }, operator);
    expect(answer.data).toMatchObject({ provider: null, secretSet: false });
    expect(await codesWithLog().sender.available(acme.companyId)).toBe(false);
  });
});
