import type { ParsedMail } from 'mailparser';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, decodeEntities, request } from '../../test/browser-flow.ts';
import {
  call,
  companyMember,
  grantLicense,
  ownerWithCompany,
  sessionFor,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import {
  authorization,
  go,
  openedApp,
  relyingParty,
  signInOnPage,
  submit,
  type TestApp,
} from '../../test/oidc-flow.ts';
import { startTestSmtp } from '../../test/smtp.ts';

/**
 * Issue 29, forgotten passwords: the link on the sign-in pages where the company allows it, a
 * code by mail (a real SMTP server receives it), the new password under the company's rules,
 * and after it every session and token of the person ended (openid-client's refresh token
 * refused), the person told, the event audited, a second factor still asked; answers alike for
 * known and unknown identifiers; wrong codes locking the account as wrong passwords do.
 */

let smtp: Awaited<ReturnType<typeof startTestSmtp>>;
let ctx: TestContext;
let acme: Awaited<ReturnType<typeof ownerWithCompany>>;
let app: TestApp;
const NEW_PASSWORD = 'Brand-New-Pass-77';

beforeAll(async () => {
  smtp = await startTestSmtp();
  ctx = await startTestApp({
    listen: true,
    mail: { smtpUrl: smtp.url, from: 'Tessera <id@tessera.example>' },
  });
  await grantLicense(ctx, { user: 1000, app: 50 });
  acme = await ownerWithCompany(ctx, 'reset-owner', 'Acme Reset');
  app = await openedApp(ctx, acme);
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

/** A member of Acme with an email address. */
async function person(username: string) {
  const member = await companyMember(ctx, acme, username);
  const email = `${username}@example.com`;
  await ctx.database.db.updateTable('accounts').set({ email }).where('id', '=', member.id).execute();
  return { ...member, email };
}

/** The mails received by an address, oldest first. */
const mailsTo = (address: string) =>
  smtp.received.filter((m) => !Array.isArray(m.to) && m.to?.value[0]?.address?.toLowerCase() === address);

async function nextMail(address: string, count: number, subject: RegExp): Promise<ParsedMail> {
  for (let i = 0; i < 200; i++) {
    const mail = mailsTo(address)
      .slice(count)
      .find((m) => subject.test(m.subject ?? ''));
    if (mail) return mail;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no mail ${subject} to ${address}`);
}

const codeIn = (mail: ParsedMail) => /\b(\d{6})\b/.exec(mail.text ?? '')?.[1] ?? '';

/** A fresh browser at the application's sign-in page. */
async function signInPage(params: Record<string, string> = {}, clientId = app.clientId) {
  const jar = new CookieJar();
  const landing = await go(jar, authorization(ctx.baseUrl, clientId, params).url);
  if (!landing.page) throw new Error('no sign-in page');
  return { jar, page: landing.page };
}

const forgotLink = (html: string) => /<a href="([^"]*\/forgot)">/.exec(html)?.[1];

/** Follows "Forgot password?" from a sign-in page and asks for a code for `identifier`. */
async function askForCode(identifier: string, params: Record<string, string> = {}) {
  const { jar, page } = await signInPage(params);
  const href = forgotLink(page.html);
  expect(href, 'the "Forgot password?" link').toBeTruthy();
  const forgot = await go(jar, new URL(decodeEntities(href ?? ''), page.url).toString());
  expect(forgot.page?.status).toBe(200);
  const codePage = await submit(jar, forgot.page!, /\/forgot$/, { identifier });
  return { jar, codePage: codePage.page! };
}

/** Types the code, then the new password; returns the page the person lands on. */
async function finishReset(jar: CookieJar, codePage: { url: string; html: string }, code: string) {
  const passwordPage = await submit(jar, codePage, /\/forgot\/code$/, { code });
  expect(passwordPage.page?.html).toContain('name="newPassword"');
  const done = await submit(jar, passwordPage.page!, /\/forgot\/password$/, {
    newPassword: NEW_PASSWORD,
    confirmPassword: NEW_PASSWORD,
  });
  return { passwordPage: passwordPage.page!, done: done.page! };
}

describe('forgot password by email', () => {
  it('resets the password, ends every session and token, tells the person and audits it', async () => {
    const alice = await person('reset-alice');
    // Alice is signed in at the application and in a console.
    const browser = await signInPage();
    expect(
      (await signInOnPage(browser.jar, browser.page, alice)).callback?.searchParams.get('code'),
    ).toBeTruthy();
    const consoleToken = await sessionFor(ctx, alice.id);

    const before = mailsTo(alice.email).length;
    const { jar, codePage } = await askForCode(alice.username);
    expect(codePage.html).toContain('Enter the code');
    const mail = await nextMail(alice.email, before, /password reset code/);
    const { passwordPage, done } = await finishReset(jar, codePage, codeIn(mail));
    // The company's rules were shown before the password was typed.
    expect(passwordPage.html).toContain('have at least 8 characters');
    expect(done.html).toContain('Your password has been changed');

    // Every session and token ended.
    expect((await call(ctx, '/api/v1/manage/company/my/list', {}, { token: consoleToken })).code).toBe(401);
    expect(
      await ctx.database.db
        .selectFrom('oidc_payloads')
        .select('id')
        .where('account_id', '=', alice.id)
        .execute(),
    ).toEqual([]);
    // Told by mail, and audited.
    const notice = await nextMail(alice.email, before, /sign-in details/);
    expect(notice.text).toContain('reset with a code');
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .select(['actor_account_id', 'company_id'])
      .where('action', '=', 'user.password_reset_self')
      .where('target_id', '=', alice.id)
      .execute();
    expect(audit).toEqual([{ actor_account_id: alice.id, company_id: acme.companyId }]);
    // The code works once.
    const again = await submit(jar, codePage, /\/forgot\/code$/, { code: codeIn(mail) });
    expect(again.page?.html).toContain('expired or was already used');
    // The new password signs in; the old one no longer does.
    const fresh = await signInPage();
    expect(
      (await signInOnPage(fresh.jar, fresh.page, { ...alice, password: NEW_PASSWORD })).callback,
    ).toBeTruthy();
    const old = await signInPage();
    expect((await signInOnPage(old.jar, old.page, alice)).page?.html).toContain('incorrect');
  });

  it("ends the application's refresh token (openid-client)", async () => {
    const bob = await person('reset-bob');
    const config = await relyingParty(ctx, app);
    const auth = authorization(ctx.baseUrl, app.clientId, { scope: 'openid profile offline_access' });
    const jar = new CookieJar();
    const first = await go(jar, auth.url);
    const landing = await signInOnPage(jar, first.page!, bob);
    const tokens = await client.authorizationCodeGrant(config, landing.callback!, {
      pkceCodeVerifier: auth.verifier,
      expectedState: auth.state,
      expectedNonce: auth.nonce,
    });
    expect(tokens.refresh_token).toBeTruthy();
    await client.refreshTokenGrant(config, tokens.refresh_token!);

    const before = mailsTo(bob.email).length;
    const reset = await askForCode(bob.email);
    await finishReset(reset.jar, reset.codePage, codeIn(await nextMail(bob.email, before, /reset code/)));
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('asks for the second factor at the next sign-in', async () => {
    const carol = await person('reset-carol');
    // Acme asks people who bound a factor for it.
    const as = { token: acme.token, companyId: acme.companyId };
    const mfa = (await call<Record<string, unknown>>(ctx, '/api/v1/manage/safety/mfa', {}, as)).data;
    expect((await call(ctx, '/api/v1/manage/safety/mfa/update', { ...mfa, mode: 'optional' }, as)).code).toBe(
      200,
    );
    await ctx.database.db
      .insertInto('mfa_factors')
      .values({
        id: `f-${carol.id}`,
        account_id: carol.id,
        type: 'otp',
        name: 'App',
        status: 'bound',
        secret_sealed: null,
        credential_id: null,
        public_key: null,
        bound_at: new Date(),
      })
      .execute();
    const before = mailsTo(carol.email).length;
    const reset = await askForCode(carol.username);
    await finishReset(reset.jar, reset.codePage, codeIn(await nextMail(carol.email, before, /reset code/)));
    const fresh = await signInPage();
    const next = await signInOnPage(fresh.jar, fresh.page, { ...carol, password: NEW_PASSWORD });
    expect(next.callback, 'no application code before the second factor').toBeUndefined();
    expect(next.page?.html).toContain('name="code"');
    await call(ctx, '/api/v1/manage/safety/mfa/update', mfa, as);
  });

  it('speaks Chinese on the pages and in the mail', async () => {
    const dave = await person('reset-dave');
    const { page } = await signInPage({ ui_locales: 'zh-CN' });
    expect(page.html).toContain('忘记密码？');
    const before = mailsTo(dave.email).length;
    const { jar, codePage } = await askForCode(dave.username, { ui_locales: 'zh-CN' });
    expect(codePage.html).toContain('输入验证码');
    const mail = await nextMail(dave.email, before, /重置密码验证码/);
    const { passwordPage, done } = await finishReset(jar, codePage, codeIn(mail));
    expect(passwordPage.html).toContain('至少 8 个字符');
    expect(done.html).toContain('密码已修改');
  });
});

/** A code page without what differs by request alone (tokens, sealed request, interaction id, identifier). */
const comparable = (html: string, identifier: string) =>
  html
    .replace(/value="[^"]*"/g, 'value=""')
    .replace(/\/interaction\/[^/"]+/g, '/interaction/UID')
    .replaceAll(identifier, 'IDENTIFIER');

describe('no enumeration', () => {
  it('answers a known and an unknown identifier alike, code page and wrong code included', async () => {
    const erin = await person('reset-erin');
    const known = await askForCode(erin.username);
    const unknown = await askForCode('nobody-here');
    expect(comparable(known.codePage.html, erin.username)).toBe(
      comparable(unknown.codePage.html, 'nobody-here'),
    );
    const knownWrong = await submit(known.jar, known.codePage, /\/forgot\/code$/, { code: '000000' });
    const unknownWrong = await submit(unknown.jar, unknown.codePage, /\/forgot\/code$/, { code: '000000' });
    expect(knownWrong.page?.status).toBe(unknownWrong.page?.status);
    expect(comparable(knownWrong.page!.html, erin.username)).toBe(
      comparable(unknownWrong.page!.html, 'nobody-here'),
    );
    expect(knownWrong.page?.html).toContain('4 tries left');
  });

  it('paces both alike: a second request within the minute waits', async () => {
    await person('reset-frank');
    const answers: string[] = [];
    for (const identifier of ['reset-frank', 'nobody-else']) {
      expect((await askForCode(identifier)).codePage.status).toBe(200);
      const second = (await askForCode(identifier)).codePage;
      expect(second.status).toBe(429);
      expect(second.html).toContain('A code was just sent');
      answers.push(comparable(second.html, identifier));
    }
    expect(answers[0]).toBe(answers[1]);
  });
});

describe('code guessing', () => {
  it('counts wrong codes toward the lock-out, as wrong passwords', async () => {
    const gina = await person('reset-gina');
    const { jar, codePage } = await askForCode(gina.username);
    for (let i = 0; i < 5; i++) await submit(jar, codePage, /\/forgot\/code$/, { code: '111111' });
    const row = await ctx.database.db
      .selectFrom('accounts')
      .select(['failed_count', 'locked_until'])
      .where('id', '=', gina.id)
      .executeTakeFirstOrThrow();
    expect(row.failed_count).toBe(5);
    expect(row.locked_until).not.toBeNull();
    const sixth = await submit(jar, codePage, /\/forgot\/code$/, { code: '111111' });
    expect(sixth.page?.html).toContain('is locked until');
    const signIn = await signInPage();
    expect((await signInOnPage(signIn.jar, signIn.page, gina)).page?.html).toContain('locked');
  });
});

describe('who is offered a reset', () => {
  it('tells a directory person to use their directory, by mail, with the same page', async () => {
    const hal = await person('reset-hal');
    const sourceId = `src-${hal.id}`;
    const now = new Date();
    await ctx.database.db
      .insertInto('identity_sources')
      .values({
        id: sourceId,
        company_id: acme.companyId,
        type: 'ldap',
        name: 'Directory',
        settings: '{}',
        secret_sealed: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await ctx.database.db
      .insertInto('identity_links')
      .values({
        source_id: sourceId,
        company_id: acme.companyId,
        account_id: hal.id,
        external_id: 'hal',
        external_dn: null,
        external_name: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const before = mailsTo(hal.email).length;
    const { codePage } = await askForCode(hal.username);
    expect(codePage.html).toContain('Enter the code');
    const mail = await nextMail(hal.email, before, /Resetting your password/);
    expect(mail.text).toContain("Use your directory's own password reset");
    expect(
      mailsTo(hal.email)
        .slice(before)
        .some((m) => /reset code/.test(m.subject ?? '')),
    ).toBe(false);
  });

  it('hides the link and refuses the pages when the company turns it off; the preview agrees', async () => {
    const as = { token: acme.token, companyId: acme.companyId };
    const preview = async () =>
      (await call<{ html: string }>(ctx, '/api/v1/manage/brand/preview', { lang: 'en' }, as)).data.html;
    expect(await preview()).toContain('Forgot password?');
    const general = (await call<Record<string, unknown>>(ctx, '/api/v1/manage/safety/general', {}, as)).data;
    expect(general.selfServiceReset).toBe(true);
    const off = await call(
      ctx,
      '/api/v1/manage/safety/general/update',
      { ...general, selfServiceReset: false },
      as,
    );
    expect(off.code, off.msg).toBe(200);
    try {
      const { jar, page } = await signInPage();
      expect(forgotLink(page.html)).toBeUndefined();
      expect(page.html).not.toContain('Forgot password?');
      expect(await preview()).not.toContain('Forgot password?');
      const uid = /\/interaction\/([^/"]+)\/login/.exec(page.html)?.[1];
      const refused = await request(jar, `${ctx.baseUrl}/interaction/${uid}/forgot`);
      expect(refused.status).toBe(404);
      const csrf = /name="csrf" value="([^"]+)"/.exec(page.html)?.[1] ?? '';
      const posted = await request(jar, `${ctx.baseUrl}/interaction/${uid}/forgot`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf, identifier: 'reset-owner' }).toString(),
      });
      expect(posted.status).toBe(404);
      // A save that does not name the switch leaves it off.
      const { selfServiceReset: _left, ...rest } = general;
      await call(ctx, '/api/v1/manage/safety/general/update', rest, as);
      const after = (await call<Record<string, unknown>>(ctx, '/api/v1/manage/safety/general', {}, as)).data;
      expect(after.selfServiceReset).toBe(false);
    } finally {
      await call(ctx, '/api/v1/manage/safety/general/update', { ...general, selfServiceReset: true }, as);
    }
  });

  it("shows the link on the company's user centre address, in its brand", async () => {
    const code = (
      await ctx.database.db
        .selectFrom('companies')
        .select('code')
        .where('id', '=', acme.companyId)
        .executeTakeFirstOrThrow()
    ).code;
    const jar = new CookieJar();
    const landing = await go(jar, `${ctx.baseUrl}/portal/c/${code}/`);
    expect(landing.page?.html).toContain('Acme Reset');
    expect(forgotLink(landing.page?.html ?? '')).toBeTruthy();
  });
});
