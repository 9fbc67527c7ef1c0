import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  companyMember,
  createAccount,
  ownerWithCompany,
  sessionFor,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import { radclient, skipWithoutRadclient } from '../../test/radclient.ts';
import { type SmsStandIn, startAliyunSms } from '../../test/sms-providers.ts';

/**
 * Issue 29: a RADIUS client may send the code of its Access-Challenge by SMS to a person who has
 * no authenticator app but a phone. Debian's radclient signs in; the code goes through the
 * platform's provider (a stand-in of Alibaba Cloud SMS that checks the request's signature) and
 * is answered in the challenge's reply, once, within the code's tries and the MFA lock.
 */

let ctx: TestContext;
let aliyun: SmsStandIn;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let port: number;
const account = {
  accessKeyId: 'LTAI5tRadius',
  accessKeySecret: 'radius-sms-secret',
  signNames: ['Tessera'],
  templateIds: ['SMS_300000003'],
};

beforeAll(async () => {
  ctx = await startTestApp({ radius: true });
  port = ctx.tessera.radius?.port as number;
  aliyun = await startAliyunSms(account);
  const operator = await createAccount(ctx, { username: 'radius-sms-operator', platformAdmin: true });
  const configured = await call(
    ctx,
    '/api/v1/manage/platform/sms/update',
    {
      provider: 'aliyun',
      accessKeyId: account.accessKeyId,
      accessKeySecret: account.accessKeySecret,
      signName: 'Tessera',
      templateId: 'SMS_300000003',
      baseUrl: aliyun.url,
    },
    { token: await sessionFor(ctx, operator.id, 'admin') },
  );
  expect(configured.code, configured.msg).toBe(200);
  owner = await ownerWithCompany(ctx, 'radius-sms-owner', 'Radius SMS Networks');
  const mfa = await admin('/api/v1/manage/safety/mfa/update', {
    mode: 'required',
    types: ['otp', 'otp_sm3'],
    lockout: { maxFailures: 5, lockMinutes: 15 },
  });
  expect(mfa.code, mfa.msg).toBe(200);
});
afterAll(async () => {
  await ctx.close();
  await aliyun.close();
});

const admin = <T = Record<string, unknown>>(path: string, body: unknown) =>
  call<T>(ctx, path, body, { token: owner.token, companyId: owner.companyId });

async function addClient(name: string, smsCodes: boolean) {
  const created = await admin<{ client: { clientId: string; smsCodes: boolean }; secret: string }>(
    '/api/v1/manage/radius/client/create',
    { name, source: '127.0.0.1', smsCodes },
  );
  expect(created.code, created.msg).toBe(200);
  expect(created.data.client.smsCodes).toBe(smsCodes);
  return created.data;
}

async function personWithPhone(username: string, phone: string) {
  const person = await companyMember(ctx, owner, username);
  await ctx.database.db.updateTable('accounts').set({ phone }).where('id', '=', person.id).execute();
  return person;
}

const pap = (username: string, password: string, extra: Record<string, string> = {}) => ({
  'User-Name': username,
  'User-Password': password,
  'Message-Authenticator': '0x00',
  'NAS-IP-Address': '192.0.2.20',
  ...extra,
});
const eventsOf = (identifier: string) =>
  ctx.database.db
    .selectFrom('login_events')
    .select(['result', 'failure_cause'])
    .where('identifier', '=', identifier)
    .orderBy('created_at')
    .execute();

describe.skipIf(skipWithoutRadclient)('RADIUS codes by SMS', () => {
  it('sends the code of the Access-Challenge by SMS and accepts it once', async () => {
    const vpn = await addClient('SMS VPN', true);
    const ivy = await personWithPhone('radius-sms-ivy', '13800138123');
    const challenged = await radclient(port, vpn.secret, pap(ivy.username, ivy.password));
    expect(challenged.code, challenged.output).toBe('Access-Challenge');
    expect(challenged.attributes['Reply-Message']).toBe('Enter the verification code sent by SMS to ***8123');
    const sent = aliyun.messages.at(-1);
    expect(sent).toMatchObject({ phone: '13800138123', signName: 'Tessera', templateId: 'SMS_300000003' });
    const code = sent?.params[0] as string;
    expect(code).toMatch(/^\d{6}$/);
    const state = challenged.attributes.State as string;
    const accepted = await radclient(port, vpn.secret, pap(ivy.username, code, { State: state }));
    expect(accepted.code, accepted.output).toBe('Access-Accept');
    // The State and the code are single use.
    expect((await radclient(port, vpn.secret, pap(ivy.username, code, { State: state }))).code).toBe(
      'Access-Reject',
    );
    // A new code is paced: asked again at once, the device is told to wait.
    const again = await radclient(port, vpn.secret, pap(ivy.username, ivy.password));
    expect(again.code).toBe('Access-Reject');
    expect(again.attributes['Reply-Message']).toMatch(
      /^A verification code was sent by SMS moments ago: use it, or try again in \d+ s$/,
    );
  });

  it('refuses a wrong code, and counts it towards the MFA lock', async () => {
    const vpn = await addClient('SMS VPN 2', true);
    const jay = await personWithPhone('radius-sms-jay', '+8613800138124');
    const challenged = await radclient(port, vpn.secret, pap(jay.username, jay.password));
    expect(challenged.code, challenged.output).toBe('Access-Challenge');
    const right = aliyun.messages.at(-1)?.params[0] as string;
    const wrong = right === '000000' ? '111111' : '000000';
    const refused = await radclient(
      port,
      vpn.secret,
      pap(jay.username, wrong, { State: challenged.attributes.State as string }),
    );
    expect(refused.code).toBe('Access-Reject');
    expect((await eventsOf(jay.username)).at(-1)).toMatchObject({
      result: 'failure',
      failure_cause: 'mfa_failed',
    });
    const row = await ctx.database.db
      .selectFrom('accounts')
      .select('mfa_failed_count')
      .where('username', '=', jay.username)
      .executeTakeFirstOrThrow();
    expect(Number(row.mfa_failed_count)).toBe(1);
  });

  it('tells the person when the provider refuses, sending nothing again', async () => {
    const vpn = await addClient('SMS VPN 3', true);
    const kim = await personWithPhone('radius-sms-kim', '13800138125');
    const sent = aliyun.messages.length;
    aliyun.refuseNext('isv.BUSINESS_LIMIT_CONTROL', '触发小时级流控');
    const refused = await radclient(port, vpn.secret, pap(kim.username, kim.password));
    expect(refused.code).toBe('Access-Reject');
    expect(refused.attributes['Reply-Message']).toBe(
      'The verification code could not be sent by SMS, please try again later',
    );
    expect(aliyun.messages.length).toBe(sent);
    const events = await ctx.database.db
      .selectFrom('audit_events')
      .select('after')
      .where('company_id', '=', owner.companyId)
      .where('action', '=', 'sms.send_failed')
      .execute();
    expect(JSON.stringify(events)).toContain('isv.BUSINESS_LIMIT_CONTROL');
  });

  it('sends nothing for a client without the setting, nor to a person without a phone', async () => {
    const plain = await addClient('Plain VPN', false);
    const lee = await personWithPhone('radius-sms-lee', '13800138126');
    const sent = aliyun.messages.length;
    const refused = await radclient(port, plain.secret, pap(lee.username, lee.password));
    expect(refused.code).toBe('Access-Reject');
    expect(refused.attributes['Reply-Message']).toMatch(/bind an authenticator app/);
    const withSms = await addClient('SMS VPN 4', true);
    const mo = await companyMember(ctx, owner, 'radius-sms-mo');
    expect((await radclient(port, withSms.secret, pap(mo.username, mo.password))).code).toBe('Access-Reject');
    expect(aliyun.messages.length).toBe(sent);
  });
});
