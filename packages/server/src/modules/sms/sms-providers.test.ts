import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundPolicy } from '../../lib/outbound-address.ts';
import { type SmsStandIn, startAliyunSms, startTencentSms } from '../../test/sms-providers.ts';
import { sendAliyun } from './aliyun.ts';
import type { ProviderAccount, Transport } from './provider.ts';
import { sendTencent } from './tencent.ts';

/**
 * The provider clients against stand-ins of the documented endpoints, which check each request's
 * signature as Alibaba Cloud and Tencent Cloud do (test/sms-providers.ts).
 */

const fixture = {
  accessKeyId: 'LTAI5tTesseraTest',
  accessKeySecret: 'secret with spaces & symbols *~!',
  signNames: ['Tessera', '阿尔法科技'],
  templateIds: ['SMS_465924001', '2094123'],
  appId: '1400787878',
};
const transport: Transport = { fetch: createOutboundPolicy(['127.0.0.0/8']).fetch, timeoutMs: 5000 };

let aliyun: SmsStandIn;
let tencent: SmsStandIn;
beforeAll(async () => {
  aliyun = await startAliyunSms(fixture);
  tencent = await startTencentSms(fixture);
});
afterAll(async () => {
  await aliyun.close();
  await tencent.close();
});

const accountOf = (
  provider: 'aliyun' | 'tencent',
  changes: Partial<ProviderAccount> = {},
): ProviderAccount => ({
  provider,
  accessKeyId: fixture.accessKeyId,
  accessKeySecret: fixture.accessKeySecret,
  region: provider === 'aliyun' ? 'cn-hangzhou' : 'ap-guangzhou',
  appId: fixture.appId,
  signName: '阿尔法科技',
  templateId: provider === 'aliyun' ? 'SMS_465924001' : '2094123',
  templateMinutes: false,
  baseUrl: provider === 'aliyun' ? aliyun.url : tencent.url,
  ...changes,
});

const cases = [
  { provider: 'aliyun', send: sendAliyun, standIn: () => aliyun, phone: '13800138000' },
  { provider: 'tencent', send: sendTencent, standIn: () => tencent, phone: '+8613800138000' },
] as const;

describe.each(cases)('$provider SendSms', ({ provider, send, standIn, phone }) => {
  it('sends a code with a signature the provider accepts (a Chinese sign name, a secret with symbols)', async () => {
    const result = await send(
      accountOf(provider),
      { phone: '+86 138-0013-8000', code: '042917', minutes: 5 },
      transport,
    );
    expect(result).toMatchObject({ ok: true });
    expect(standIn().messages.at(-1)).toEqual({
      phone,
      signName: '阿尔法科技',
      templateId: accountOf(provider).templateId,
      params: ['042917'],
    });
  });

  it('fills the minutes variable when the template has one', async () => {
    await send(
      accountOf(provider, { templateMinutes: true }),
      { phone: '13800138000', code: '111222', minutes: 5 },
      transport,
    );
    expect(standIn().messages.at(-1)?.params).toEqual(['111222', '5']);
  });

  it("is refused with the provider's signature error when the secret is wrong", async () => {
    const before = standIn().messages.length;
    const result = await send(
      accountOf(provider, { accessKeySecret: 'not the secret' }),
      { phone, code: '123456', minutes: 5 },
      transport,
    );
    const expected = provider === 'aliyun' ? 'SignatureDoesNotMatch' : 'AuthFailure.SignatureFailure';
    expect(result).toMatchObject({ ok: false, providerCode: expected });
    expect(standIn().refusals.at(-1)).toBe(expected);
    expect(standIn().messages.length).toBe(before);
  });

  it("passes on the provider's business refusal with its code", async () => {
    const code = provider === 'aliyun' ? 'isv.BUSINESS_LIMIT_CONTROL' : 'LimitExceeded.PhoneNumberDailyLimit';
    standIn().refuseNext(code, 'daily limit');
    const result = await send(accountOf(provider), { phone, code: '123456', minutes: 5 }, transport);
    expect(result).toMatchObject({ ok: false, providerCode: code, providerMessage: 'daily limit' });
  });

  it('refuses a sign name the account does not have', async () => {
    const result = await send(
      accountOf(provider, { signName: 'Someone Else' }),
      { phone, code: '123456', minutes: 5 },
      transport,
    );
    expect(result).toMatchObject({ ok: false });
  });

  it('gives up after its time-out when the provider does not answer', async () => {
    standIn().hang(true);
    try {
      const result = await send(
        accountOf(provider),
        { phone, code: '123456', minutes: 5 },
        { ...transport, timeoutMs: 200 },
      );
      expect(result).toMatchObject({ ok: false, providerCode: 'TIMEOUT' });
    } finally {
      standIn().hang(false);
    }
  });

  it('does not connect where the outbound rule refuses', async () => {
    const closed: Transport = { fetch: createOutboundPolicy([]).fetch, timeoutMs: 5000 };
    const result = await send(accountOf(provider), { phone, code: '123456', minutes: 5 }, closed);
    expect(result).toMatchObject({ ok: false, providerCode: 'UNREACHABLE', providerMessage: 'EADDRREFUSED' });
  });
});
