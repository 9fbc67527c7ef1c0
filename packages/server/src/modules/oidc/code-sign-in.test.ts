import type * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar } from '../../test/browser-flow.ts';
import {
  askForCode,
  codeIn,
  openCodeSignIn,
  redeemWith,
  setLoginMethods,
  typeCode,
  verifyAddresses,
} from '../../test/code-flow.ts';
import { createLdapSource } from '../../test/directory.ts';
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
  openedApp,
  relyingParty,
  signInOnPage,
  type TestApp,
} from '../../test/oidc-flow.ts';
import { startTestSmtp } from '../../test/smtp.ts';

/**
 * Signing in to an application with a code sent by email (login method `email_code`), through
 * real HTTP, a real SMTP server receiving the codes and openid-client as the relying party.
 */

let ctx: TestContext;
let smtp: Awaited<ReturnType<typeof startTestSmtp>>;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let app: TestApp;
let rp: client.Configuration;

beforeAll(async () => {
  smtp = await startTestSmtp();
  ctx = await startTestApp({
    listen: true,
    mail: { smtpUrl: smtp.url, from: 'Tessera <noreply@localhost>' },
  });
  await grantLicense(ctx, { app: 50 });
  owner = await ownerWithCompany(ctx, 'codeowner', 'Code Ltd');
  app = await openedApp(ctx, owner);
  rp = await relyingParty(ctx, app);
  await setLoginMethods(ctx, owner, ['password', 'email_code'], { maxFailures: 3, lockMinutes: 15 });
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

/** A member of the company whose email address is verified. */
async function verifiedMember(username: string) {
  const person = await companyMember(ctx, owner, username);
  const email = `${username}@example.com`;
  await verifyAddresses(ctx, person.id, { email });
  return { ...person, email };
}

/** A fresh browser at the application's sign-in, then on the email code page. */
async function codePage() {
  const jar = new CookieJar();
  const auth = authorization(ctx.baseUrl, app.clientId);
  const signIn = await go(jar, auth.url);
  return { jar, auth, page: await openCodeSignIn(jar, signIn, 'email') };
}

const sent = (address: string) =>
  smtp.received.filter((mail) => mail.to && JSON.stringify(mail.to).includes(address));
/** The mails to an address once one has come: a code leaves after the page's answer (deferred-codes.ts). */
async function mailsTo(address: string) {
  for (let i = 0; i < 400 && sent(address).length === 0; i++) await new Promise((r) => setTimeout(r, 25));
  return sent(address);
}

const eventsOf = (identifier: string) =>
  ctx.database.db
    .selectFrom('login_events')
    .select(['result', 'failure_cause', 'method', 'account_id'])
    .where('identifier', '=', identifier)
    .orderBy('created_at')
    .execute();

/** A page's text without what differs between two requests (the identifier typed, the request id, the CSRF token). */
const normalised = (html: string, identifier: string) =>
  html
    .replaceAll(identifier, 'IDENTIFIER')
    .replace(/name="(codeId|csrf)" value="[^"]*"/g, 'name="$1"')
    .replace(/\/interaction\/[A-Za-z0-9_-]+/g, '/interaction/UID');

describe('signing in with an email code', () => {
  it('sends a code to the verified address and signs in to the application with it', async () => {
    const person = await verifiedMember('erin');
    const { jar, auth, page } = await codePage();
    expect(page.page?.html).toContain('Sign in with an email code');
    const entry = await askForCode(jar, page, 'erin');
    expect(entry.page?.status).toBe(200);
    const [mail] = await mailsTo(person.email);
    expect(mail?.text).toBeTruthy();
    const landing = await typeCode(jar, entry, codeIn(mail?.text));
    const tokens = await redeemWith(rp, auth, landing);
    const claims = tokens.claims();
    expect(claims?.amr).toEqual(['email']);
    expect(claims?.email).toBe(person.email);
    expect(await eventsOf('erin')).toEqual([
      { result: 'success', failure_cause: null, method: 'email_code', account_id: person.id },
    ]);
  });

  it('answers an unknown person and one without a verified address exactly as a known one, and sends them nothing', async () => {
    const known = await verifiedMember('frank');
    const unverified = await companyMember(ctx, owner, 'gina');
    await ctx.database.db
      .updateTable('accounts')
      .set({ email: 'gina@example.com' })
      .where('id', '=', unverified.id)
      .execute();
    const answers: Record<string, { status: number; html: string; wrong: string; wrongStatus: number }> = {};
    for (const identifier of ['frank', 'nobody-here', 'gina@example.com']) {
      const { jar, page } = await codePage();
      const entry = await askForCode(jar, page, identifier);
      // A code that is not frank's (his came by mail when he asked).
      const frankCode = codeIn((await mailsTo(known.email))[0]?.text);
      const wrong = await typeCode(jar, entry, frankCode === '000000' ? '111111' : '000000');
      answers[identifier] = {
        status: entry.page?.status ?? 0,
        html: normalised(entry.page?.html ?? '', identifier),
        wrong: normalised(wrong.page?.html ?? '', identifier),
        wrongStatus: wrong.page?.status ?? 0,
      };
    }
    expect(answers['nobody-here']).toEqual(answers.frank);
    expect(answers['gina@example.com']).toEqual(answers.frank);
    expect(answers.frank?.wrong).toContain('The code is not right (4 tries left)');
    expect(sent('gina@example.com')).toEqual([]);
    expect(sent('nobody-here')).toEqual([]);
    expect(await mailsTo(known.email)).toHaveLength(1);
  });

  it('paces new codes: a resend within a minute is refused and sends nothing', async () => {
    const person = await verifiedMember('hugo');
    const { jar, page } = await codePage();
    const entry = await askForCode(jar, page, 'hugo');
    expect(entry.page?.html).toContain('Send a new code');
    const again = await askForCode(jar, entry, 'hugo');
    expect(again.page?.status).toBe(429);
    expect(again.page?.html).toMatch(/A code was just sent: you can ask for another in \d+ s/);
    expect(await mailsTo(person.email)).toHaveLength(1);
    // The first code still signs in.
    const landing = await typeCode(jar, entry, codeIn((await mailsTo(person.email))[0]?.text));
    expect(landing.callback).toBeDefined();
  });

  it('counts wrong codes towards the lock-out: the right code is then refused too', async () => {
    const person = await verifiedMember('ivy');
    const { jar, page } = await codePage();
    const entry = await askForCode(jar, page, 'ivy');
    const right = codeIn((await mailsTo(person.email))[0]?.text);
    const wrongCode = right === '123456' ? '654321' : '123456';
    // The company locks out after 3 failures; the code itself would allow 5 tries.
    for (let i = 0; i < 3; i++) expect((await typeCode(jar, entry, wrongCode)).page?.status).toBe(401);
    const refused = await typeCode(jar, entry, right);
    expect(refused.callback).toBeUndefined();
    expect(refused.page?.html).toContain('This account is locked after too many failed attempts');
    const events = await eventsOf('ivy');
    expect(events.map((e) => e.failure_cause)).toEqual([
      'code_failed',
      'code_failed',
      'code_failed',
      'account_locked',
    ]);
    expect(events.every((e) => e.method === 'email_code' && e.account_id === person.id)).toBe(true);
  });

  it('signs in to the user centre with a code, in Chinese, through the same pages', async () => {
    const person = await verifiedMember('kira');
    const jar = new CookieJar();
    // The user centre's sign-in is a shared page: it offers codes since a company allows them.
    const signIn = await go(jar, `${ctx.baseUrl}/portal/account?lang=zh`);
    expect(signIn.page?.html).toContain('使用邮箱验证码登录');
    const page = await openCodeSignIn(jar, signIn, 'email');
    const entry = await askForCode(jar, page, 'kira@example.com');
    expect(entry.page?.html).toContain('6 位验证码');
    const [mail] = await mailsTo(person.email);
    expect(mail?.subject).toBeTruthy();
    const landing = await typeCode(jar, entry, codeIn(mail?.text));
    expect(landing.page?.url).toContain('/portal/account');
    expect(landing.page?.html).toContain('kira');
    expect(await eventsOf('kira@example.com')).toEqual([
      { result: 'success', failure_cause: null, method: 'email_code', account_id: person.id },
    ]);
  });

  it('signs in a directory person without asking the directory, which owns the password, not the mailbox', async () => {
    const person = await verifiedMember('lena');
    // Linked to an LDAP source whose directory does not answer: the password cannot be checked.
    const sourceId = await createLdapSource(ctx, owner, { url: 'ldap://127.0.0.1:1' });
    await ctx.database.db
      .insertInto('identity_links')
      .values({
        source_id: sourceId,
        company_id: owner.companyId,
        account_id: person.id,
        external_id: 'lena-entry',
        external_dn: 'uid=lena,ou=people,dc=example,dc=com',
        external_name: 'lena',
      })
      .execute();
    const jar = new CookieJar();
    const auth = authorization(ctx.baseUrl, app.clientId);
    const signIn = await go(jar, auth.url);
    const byPassword = await signInOnPage(jar, signIn.page!, person);
    expect(byPassword.page?.status).toBe(503);
    const entry = await askForCode(jar, await openCodeSignIn(jar, signIn, 'email'), 'lena');
    const landing = await typeCode(jar, entry, codeIn((await mailsTo(person.email))[0]?.text));
    expect((await redeemWith(rp, auth, landing)).claims()?.amr).toEqual(['email']);
  });

  it("ends an address's verification when an administrator changes it: no code goes to the new one", async () => {
    const person = await verifiedMember('mila');
    const as = { token: owner.token, companyId: owner.companyId };
    const phoneOnly = await call(
      ctx,
      '/api/v1/manage/user/update',
      { userId: person.id, phone: '13900001111' },
      as,
    );
    expect(phoneOnly.code, phoneOnly.msg).toBe(200);
    // Another field changed: the email stays verified.
    expect((await accountRow(ctx, person.id)).email_verified_at).not.toBeNull();
    const updated = await call(
      ctx,
      '/api/v1/manage/user/update',
      { userId: person.id, email: 'mila.new@example.com' },
      as,
    );
    expect(updated.code, updated.msg).toBe(200);
    expect((await accountRow(ctx, person.id)).email_verified_at).toBeNull();
    const { jar, page } = await codePage();
    const entry = await askForCode(jar, page, 'mila');
    expect(entry.page?.status).toBe(200);
    expect(sent('mila.new@example.com')).toEqual([]);
    expect(sent(person.email)).toEqual([]);
  });

  it('is refused when the company does not offer it, and the sign-in page has no link', async () => {
    const other = await ownerWithCompany(ctx, 'nocodes', 'No Codes Ltd');
    const otherApp = await openedApp(ctx, other);
    const person = await companyMember(ctx, other, 'jack');
    await verifyAddresses(ctx, person.id, { email: 'jack@example.com' });
    const jar = new CookieJar();
    const signIn = await go(jar, authorization(ctx.baseUrl, otherApp.clientId).url);
    expect(signIn.page?.html).not.toContain('data-code-sign-in');
    const codeUrl = `${signIn.page?.url}/code/email`;
    const refused = await go(jar, codeUrl);
    expect(refused.page?.status).toBe(403);
    expect(refused.page?.html).toContain('Signing in with this kind of code is not offered here.');
    const csrf = /name="csrf" value="([^"]+)"/.exec(signIn.page?.html ?? '')?.[1] ?? '';
    const posted = await go(jar, `${codeUrl}/send`, undefined, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, identifier: 'jack' }).toString(),
    });
    expect(posted.page?.status).toBe(403);
    expect(sent('jack@example.com')).toEqual([]);
    expect(await eventsOf('jack')).toEqual([
      { result: 'failure', failure_cause: 'code_not_allowed', method: 'email_code', account_id: null },
    ]);
  });
});
