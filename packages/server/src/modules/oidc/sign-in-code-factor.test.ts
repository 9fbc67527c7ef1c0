import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar } from '../../test/browser-flow.ts';
import {
  askForCode,
  codeIn,
  openCodeSignIn,
  recordingSms,
  redeemWith,
  setLoginMethods,
  typeCode,
  verifyAddresses,
} from '../../test/code-flow.ts';
import {
  accountRow,
  call,
  companyMember,
  grantLicense,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import {
  authorization,
  go,
  type Landing,
  openedApp,
  relyingParty,
  signInOnPage,
  submit,
  type TestApp,
} from '../../test/oidc-flow.ts';
import { startTestSmtp } from '../../test/smtp.ts';

/**
 * Codes sent by email or SMS as the second factor (MFA kinds `email`, `sms`): after a password,
 * through real HTTP with openid-client as the relying party, SMS through a recording stand-in
 * of the provider and email through a real SMTP server.
 */

let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startTestSmtp>>;
const sms = recordingSms();

beforeAll(async () => {
  smtp = await startTestSmtp();
  ctx = await startTestApp({
    listen: true,
    mail: { smtpUrl: smtp.url, from: 'Tessera <noreply@localhost>' },
    sms,
  });
  await grantLicense(ctx, { app: 50 });
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

/** A company with an application and this MFA policy. */
async function companyWith(name: string, mfa: { mode: string; types: string[] }) {
  const owner = await ownerWithCompany(ctx, name);
  const app = await openedApp(ctx, owner);
  const as = { token: owner.token, companyId: owner.companyId };
  const updated = await call(
    ctx,
    '/api/v1/manage/safety/mfa/update',
    { ...mfa, lockout: { maxFailures: 3, lockMinutes: 15 } },
    as,
  );
  expect(updated.code, updated.msg).toBe(200);
  return { owner, app, rp: await relyingParty(ctx, app) };
}

/** Signs in with the password in a fresh browser: the page that follows. */
async function afterPassword(app: TestApp, person: { username: string; password: string }) {
  const jar = new CookieJar();
  const auth = authorization(ctx.baseUrl, app.clientId);
  const signIn = await go(jar, auth.url);
  return { jar, auth, page: await signInOnPage(jar, signIn.page!, person) };
}

const sendCode = (jar: CookieJar, page: Landing, channel: 'email' | 'sms') =>
  submit(jar, page.page!, /\/step\/second_factor\/send$/, { sendCode: channel });
const typeFactorCode = (jar: CookieJar, page: Landing, code: string) =>
  submit(jar, page.page!, /\/step\/second_factor$/, { code });
const smsTo = (phone: string) => sms.sent.filter((message) => message.phone === phone);
const otherThan = (code: string) => (code === '123456' ? '654321' : '123456');

describe('an SMS code as the second factor', () => {
  let policy: Awaited<ReturnType<typeof companyWith>>;
  beforeAll(async () => {
    policy = await companyWith('smsrequired', { mode: 'required', types: ['sms'] });
  });

  it('asks for a code sent to the verified phone after the password, and signs in multi-factor', async () => {
    const person = await companyMember(ctx, policy.owner, 'kate');
    await verifyAddresses(ctx, person.id, { phone: '+8613800001234' });
    const { jar, auth, page } = await afterPassword(policy.app, person);
    expect(page.page?.html).toMatch(/Send a code by SMS to \*+1234</);
    expect(page.page?.html).not.toContain('+8613800001234');
    const sent = await sendCode(jar, page, 'sms');
    expect(sent.page?.status).toBe(200);
    expect(sent.page?.html).toMatch(/A 6-digit code was sent to \*+1234\. It is valid for 5 minutes/);
    const [message] = smsTo('+8613800001234');
    expect(message).toMatchObject({ purpose: 'second_factor', companyId: policy.owner.companyId });
    const landing = await typeFactorCode(jar, sent, message?.code ?? '');
    const claims = (await redeemWith(policy.rp, auth, landing)).claims();
    expect(claims?.amr).toEqual(['pwd', 'sms', 'mfa']);
    expect(claims?.acr).toBe('https://refeds.org/profile/mfa');
  });

  it('counts wrong codes towards the MFA lock-out, then refuses the right code', async () => {
    const person = await companyMember(ctx, policy.owner, 'liam');
    await verifyAddresses(ctx, person.id, { phone: '+8613800005678' });
    const { jar, page } = await afterPassword(policy.app, person);
    const sent = await sendCode(jar, page, 'sms');
    const right = smsTo('+8613800005678')[0]?.code ?? '';
    const first = await typeFactorCode(jar, sent, otherThan(right));
    expect(first.page?.status).toBe(400);
    expect(first.page?.html).toContain('The verification code is incorrect');
    // The page keeps the code's field after a wrong code.
    await typeFactorCode(jar, first, otherThan(right));
    expect((await accountRow(ctx, person.id)).mfa_failed_count).toBe(2);
    const third = await typeFactorCode(jar, first, otherThan(right));
    expect(third.page?.html).toContain('Too many wrong codes');
    const refused = await typeFactorCode(jar, first, right);
    expect(refused.callback).toBeUndefined();
    expect(refused.page?.html).toContain('Too many wrong codes');
    expect((await accountRow(ctx, person.id)).mfa_locked_until).not.toBeNull();
  });

  it('paces the codes: a second one within a minute is refused and not sent', async () => {
    const person = await companyMember(ctx, policy.owner, 'mona');
    await verifyAddresses(ctx, person.id, { phone: '+8613800009012' });
    const { jar, page } = await afterPassword(policy.app, person);
    const sent = await sendCode(jar, page, 'sms');
    const again = await sendCode(jar, sent, 'sms');
    expect(again.page?.status).toBe(429);
    expect(again.page?.html).toMatch(/A code was just sent: you can ask for another in \d+ s/);
    expect(smsTo('+8613800009012')).toHaveLength(1);
  });
});

describe('an SMS code as the way to sign in', () => {
  it('signs in to an application with a code sent to the verified phone the person typed', async () => {
    const policy = await companyWith('smsfirst', { mode: 'off', types: ['otp'] });
    await setLoginMethods(ctx, policy.owner, ['password', 'sms_code']);
    const person = await companyMember(ctx, policy.owner, 'quinn');
    await verifyAddresses(ctx, person.id, { phone: '+8613800001357' });
    const jar = new CookieJar();
    const auth = authorization(ctx.baseUrl, policy.app.clientId);
    const signIn = await go(jar, auth.url);
    expect(signIn.page?.html).not.toContain('data-code-sign-in="email"');
    const page = await openCodeSignIn(jar, signIn, 'sms');
    const entry = await askForCode(jar, page, '+8613800001357');
    const [message] = smsTo('+8613800001357');
    expect(message).toMatchObject({ purpose: 'sign_in', companyId: policy.owner.companyId });
    const claims = (
      await redeemWith(policy.rp, auth, await typeCode(jar, entry, message?.code ?? ''))
    ).claims();
    expect(claims?.amr).toEqual(['sms']);
    const events = await ctx.database.db
      .selectFrom('login_events')
      .select(['result', 'method'])
      .where('account_id', '=', person.id)
      .execute();
    expect(events).toEqual([{ result: 'success', method: 'sms_code' }]);
  });
});

describe('a verified address as a factor', () => {
  it('with MFA optional, asks a person with a verified phone for a code and lets one without sign in', async () => {
    const policy = await companyWith('smsoptional', { mode: 'optional', types: ['sms'] });
    const withPhone = await companyMember(ctx, policy.owner, 'nina');
    await verifyAddresses(ctx, withPhone.id, { phone: '+8613800003456' });
    const without = await companyMember(ctx, policy.owner, 'omar');
    // A phone that is not verified is no factor.
    await ctx.database.db
      .updateTable('accounts')
      .set({ phone: '+8613800007890' })
      .where('id', '=', without.id)
      .execute();
    expect((await afterPassword(policy.app, withPhone)).page.page?.html).toContain('Send a code by SMS');
    expect((await afterPassword(policy.app, without)).page.callback).toBeDefined();
  });

  it('after a sign-in with an email code, offers SMS as the second factor but not email again', async () => {
    const policy = await companyWith('emailfirst', { mode: 'required', types: ['email', 'sms'] });
    await setLoginMethods(ctx, policy.owner, ['password', 'email_code']);
    const person = await companyMember(ctx, policy.owner, 'pia');
    await verifyAddresses(ctx, person.id, { email: 'pia@example.com', phone: '+8613800002468' });
    const jar = new CookieJar();
    const auth = authorization(ctx.baseUrl, policy.app.clientId);
    const page = await openCodeSignIn(jar, await go(jar, auth.url), 'email');
    const entry = await askForCode(jar, page, 'pia@example.com');
    // The sign-in code leaves after the page's answer (deferred-codes.ts).
    const mailTo = () => smtp.received.find((m) => JSON.stringify(m.to).includes('pia@example.com'));
    for (let i = 0; i < 400 && !mailTo(); i++) await new Promise((r) => setTimeout(r, 25));
    const mail = mailTo();
    const second = await typeCode(jar, entry, codeIn(mail?.text));
    expect(second.page?.html).toContain('Send a code by SMS to');
    expect(second.page?.html).not.toContain('data-send-code="email"');
    // Asking for an email code anyway is refused.
    const refused = await sendCode(jar, second, 'email');
    expect(refused.page?.status).toBe(400);
    const sent = await sendCode(jar, second, 'sms');
    const landing = await typeFactorCode(jar, sent, smsTo('+8613800002468')[0]?.code ?? '');
    const claims = (await redeemWith(policy.rp, auth, landing)).claims();
    expect(claims?.amr).toEqual(['email', 'sms', 'mfa']);
  });
});
