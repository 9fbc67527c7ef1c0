import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../lib/crypto.ts';
import {
  absolute,
  browse,
  CookieJar,
  csrfOf,
  postForm,
  request,
  submitSignIn,
} from '../../test/browser-flow.ts';
import { call, createAccount, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import { startTestSmtp } from '../../test/smtp.ts';

let smtp: Awaited<ReturnType<typeof startTestSmtp>>;
let received: ParsedMail[];
let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;

beforeAll(async () => {
  smtp = await startTestSmtp();
  received = smtp.received;
  ctx = await startTestApp({
    listen: true,
    mail: { smtpUrl: smtp.url, from: 'Tessera ID <id@tessera.example>' },
  });
  owner = await ownerWithCompany(ctx, 'mail-owner', 'Mail <b>&</b> Co');
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

/** A user created by the company (managed), with a record in it. */
async function managedUser(
  fields: { username: string; email?: string | null; password?: string; mustChange?: boolean; hash?: string },
  companyId = owner.companyId,
) {
  const account = await createAccount(ctx, { username: fields.username, password: fields.password });
  await ctx.database.db
    .updateTable('accounts')
    .set({
      email: fields.email === undefined ? `${fields.username}@example.com` : fields.email,
      home_company_id: companyId,
      must_change_password: fields.mustChange ?? false,
      ...(fields.hash ? { password_hash: fields.hash } : {}),
    })
    .where('id', '=', account.id)
    .execute();
  await ctx.database.db
    .insertInto('company_members')
    .values({ company_id: companyId, account_id: account.id, role: 'member', updated_at: new Date() })
    .execute();
  return account;
}

async function mailTo(address: string): Promise<ParsedMail> {
  for (let i = 0; i < 100; i++) {
    const mail = received.find(
      (m) => m.to && !Array.isArray(m.to) && m.to.value[0]?.address?.toLowerCase() === address,
    );
    if (mail) return mail;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no mail to ${address}`);
}

const linkIn = (mail: ParsedMail) =>
  /http:\/\/localhost:\d+\/portal\/link\/[A-Za-z0-9_-]+\?lang=(en|zh)/.exec(mail.text ?? '')?.[0];

const sendLink = (userId: string, lang = 'en', companyId = owner.companyId, token = owner.token) =>
  call<{ sentTo: string; expiresAt: string; reason?: string }>(
    ctx,
    '/api/v1/manage/user/send-login-url',
    { userId },
    { token, companyId, lang },
  );

/** Opens a link's page and confirms it; returns where the browser lands. */
async function useLink(jar: CookieJar, link: string) {
  const page = await browse(jar, link);
  if (page.response.status !== 200) return page;
  return postForm(jar, link.replace(/\?.*$/, ''), { csrf: csrfOf(page.html) });
}

const countLinks = async () =>
  Number(
    (
      await ctx.database.db
        .selectFrom('sign_in_links')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('send-login-url', () => {
  it('mails a single-use link in the caller language that signs the person in to the user centre', async () => {
    const user = await managedUser({ username: 'link-user', email: 'Link.User@Example.com' });
    const sent = await sendLink(user.id, 'en');
    expect(sent).toMatchObject({ code: 200, data: { sentTo: 'Link.User@Example.com' } });
    expect(Date.parse(sent.data.expiresAt) - Date.now()).toBeGreaterThan(23.9 * 3600_000);

    const mail = await mailTo('link.user@example.com');
    expect(mail.from?.value).toEqual([{ name: 'Tessera ID', address: 'id@tessera.example' }]);
    expect(mail.subject).toBe('Your sign-in link for Mail <b>&</b> Co');
    expect(mail.text).toContain('sign in to Tessera as link-user');
    // Every value in the HTML is escaped.
    expect(mail.html).toContain('Mail &lt;b&gt;&amp;&lt;/b&gt; Co');
    expect(mail.html).not.toContain('<b>&</b>');
    const link = linkIn(mail)!;
    expect(link).toMatch(/\?lang=en$/);

    // Only the hash of the token is stored; the audit event names the recipient.
    const token = /\/portal\/link\/([^?]+)/.exec(link)![1]!;
    const row = await ctx.database.db
      .selectFrom('sign_in_links')
      .selectAll()
      .where('account_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ token_hash: sha256(token), company_id: owner.companyId, used_at: null });
    expect(JSON.stringify(row)).not.toContain(token);
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .selectAll()
      .where('action', '=', 'user.sign_in_link')
      .where('target_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(audit).toMatchObject({ company_id: owner.companyId, actor_account_id: owner.account.id });

    // A mail scanner fetching the link does not use it.
    const scanner = new CookieJar();
    expect((await request(scanner, link)).status).toBe(200);
    expect((await request(scanner, link)).status).toBe(200);

    const jar = new CookieJar();
    const page = await browse(jar, link);
    expect(page.html).toContain('Sign in to Mail &lt;b&gt;&amp;&lt;/b&gt; Co as link-user.');
    // A form posted without the page's browser cookie (login CSRF) is sent back to the page.
    const forged = await request(new CookieJar(), link.replace(/\?.*$/, ''), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: csrfOf(page.html) }).toString(),
    });
    expect(forged.status).toBe(303);
    const landed = await postForm(jar, link.replace(/\?.*$/, ''), { csrf: csrfOf(page.html) });
    expect(landed.url).toBe(`${ctx.baseUrl}/portal/account`);
    expect(landed.html).toContain('link-user');
    expect(jar.cookies.get('tessera_portal')).toBeTruthy();
    const events = await ctx.database.db
      .selectFrom('login_events')
      .select(['result', 'client_id', 'company_id'])
      .where('account_id', '=', user.id)
      .execute();
    expect(events).toEqual([{ result: 'success', client_id: 'tessera-portal', company_id: owner.companyId }]);

    // Second use: refused, in another browser and in the same one.
    const again = await useLink(new CookieJar(), link);
    expect(again.response.status).toBe(410);
    expect(again.html).toContain('already used or has expired');
    expect(
      (await postForm(jar, link.replace(/\?.*$/, ''), { csrf: csrfOf(page.html) })).response.status,
    ).toBe(410);
  });

  it('writes the mail and the link page in Chinese for a Chinese caller', async () => {
    const user = await managedUser({ username: 'zh-link' });
    expect((await sendLink(user.id, 'zh')).code).toBe(200);
    const mail = await mailTo('zh-link@example.com');
    expect(mail.subject).toBe('Mail <b>&</b> Co 的登录链接');
    expect(mail.text).toContain('此链接只能使用一次');
    const link = linkIn(mail)!;
    expect(link).toMatch(/\?lang=zh$/);
    const page = await browse(new CookieJar(), link);
    expect(page.html).toContain('通过链接登录');
  });

  it('replaces the earlier unused link when a new one is sent', async () => {
    const user = await managedUser({ username: 'twice-sent' });
    await sendLink(user.id);
    const firstMail = await mailTo('twice-sent@example.com');
    const first = linkIn(firstMail)!;
    received.splice(received.indexOf(firstMail), 1);
    await sendLink(user.id);
    const second = linkIn(await mailTo('twice-sent@example.com'))!;
    expect(second).not.toBe(first);
    expect((await browse(new CookieJar(), first)).response.status).toBe(410);
    expect((await browse(new CookieJar(), second)).response.status).toBe(200);
  });

  it('refuses an expired link', async () => {
    const user = await managedUser({ username: 'late-user' });
    await sendLink(user.id);
    const link = linkIn(await mailTo('late-user@example.com'))!;
    const jar = new CookieJar();
    const page = await browse(jar, link);
    await ctx.database.db
      .updateTable('sign_in_links')
      .set({ expires_at: new Date(Date.now() - 60_000) })
      .where('account_id', '=', user.id)
      .execute();
    expect(
      (await postForm(jar, link.replace(/\?.*$/, ''), { csrf: csrfOf(page.html) })).response.status,
    ).toBe(410);
    expect((await browse(new CookieJar(), link)).response.status).toBe(410);
    expect((await browse(new CookieJar(), `${ctx.baseUrl}/portal/link/unknown-token`)).response.status).toBe(
      410,
    );
  });

  it('does not sign in a person whose record was disabled after the link was sent', async () => {
    const user = await managedUser({ username: 'disabled-later' });
    await sendLink(user.id);
    const link = linkIn(await mailTo('disabled-later@example.com'))!;
    await ctx.database.db
      .updateTable('company_members')
      .set({ status: 'disabled' })
      .where('account_id', '=', user.id)
      .execute();
    const jar = new CookieJar();
    const refused = await useLink(jar, link);
    expect(refused.response.status).toBe(403);
    expect(refused.html).toContain('disabled or locked');
    expect(jar.cookies.get('tessera_portal')).toBeUndefined();
  });

  it('refuses unmanaged users, users without email and other companies, storing nothing', async () => {
    const other = await ownerWithCompany(ctx, 'other-mail-owner', 'Other Mail Co');
    const stranger = await managedUser({ username: 'stranger' }, other.companyId);
    const noEmail = await managedUser({ username: 'no-email', email: null });
    const developer = await createAccount(ctx, { username: 'outside-dev', email: 'dev@example.com' });
    await ctx.database.db
      .insertInto('company_members')
      .values({
        company_id: owner.companyId,
        account_id: developer.id,
        role: 'admin',
        updated_at: new Date(),
      })
      .execute();
    const mailsBefore = received.length;
    const linksBefore = await countLinks();
    const auditBefore = await ctx.database.db.selectFrom('audit_events').select('id').execute();

    for (const path of ['/api/v1/manage/user/send-login-url', '/api/v1/manage/user/email']) {
      const ask = (userId: string, lang = 'en') =>
        call(ctx, path, { userId }, { token: owner.token, companyId: owner.companyId, lang });
      expect(await ask(stranger.id)).toMatchObject({ code: 404, data: { reason: 'user.not_found' } });
      expect(await ask('no-such-user')).toMatchObject({ code: 404, data: { reason: 'user.not_found' } });
      expect(await ask(developer.id)).toMatchObject({ code: 409, data: { reason: 'user.not_managed' } });
      expect(await ask(owner.account.id)).toMatchObject({ code: 409, data: { reason: 'user.not_managed' } });
      expect(await ask(noEmail.id, 'zh')).toMatchObject({
        code: 409,
        msg: '该用户没有邮箱地址',
        data: { reason: 'user.no_email' },
      });
    }
    // The SMTP server refuses the recipient: an error, and no link that was never delivered.
    const bounced = await managedUser({ username: 'bounced', email: 'bounce@example.com' });
    expect(await sendLink(bounced.id)).toMatchObject({ code: 502, data: { reason: 'mail.send_failed' } });

    expect(received.length).toBe(mailsBefore);
    expect(await countLinks()).toBe(linksBefore);
    expect(await ctx.database.db.selectFrom('audit_events').select('id').execute()).toEqual(auditBefore);
  });
});

describe('email (account details)', () => {
  it('mails the username, company and sign-in address, with an audit event', async () => {
    const user = await managedUser({ username: 'details-user' });
    const sent = await call(
      ctx,
      '/api/v1/manage/user/email',
      { userId: user.id },
      { token: owner.token, companyId: owner.companyId },
    );
    expect(sent).toMatchObject({ code: 200, data: { sentTo: 'details-user@example.com' } });
    const mail = await mailTo('details-user@example.com');
    expect(mail.subject).toBe('Your account at Mail <b>&</b> Co');
    expect(mail.text).toContain('Username: details-user');
    expect(mail.text).toContain(`Sign-in address: ${ctx.baseUrl}/portal/account`);
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .select(['action', 'after'])
      .where('target_id', '=', user.id)
      .execute();
    expect(audit).toEqual([{ action: 'user.email', after: { sentTo: 'details-user@example.com' } }]);
  });
});

describe('without SMTP', () => {
  it('answers mail.not_configured in the caller language and stores nothing', async () => {
    const bare = await startTestApp();
    try {
      const boss = await ownerWithCompany(bare, 'bare-owner');
      const account = await createAccount(bare, { username: 'bare-user', email: 'bare@example.com' });
      await bare.database.db
        .updateTable('accounts')
        .set({ home_company_id: boss.companyId })
        .where('id', '=', account.id)
        .execute();
      await bare.database.db
        .insertInto('company_members')
        .values({
          company_id: boss.companyId,
          account_id: account.id,
          role: 'member',
          updated_at: new Date(),
        })
        .execute();
      for (const path of ['/api/v1/manage/user/send-login-url', '/api/v1/manage/user/email']) {
        const answer = await call(
          bare,
          path,
          { userId: account.id },
          { token: boss.token, companyId: boss.companyId, lang: 'en' },
        );
        expect(answer).toMatchObject({
          code: 503,
          msg: 'Email is not set up on this server (TESSERA_SMTP_URL)',
          data: { reason: 'mail.not_configured' },
        });
      }
      expect(await bare.database.db.selectFrom('sign_in_links').selectAll().execute()).toEqual([]);
      expect(
        await bare.database.db
          .selectFrom('audit_events')
          .selectAll()
          .where('action', 'like', 'user.%')
          .execute(),
      ).toEqual([]);
    } finally {
      await bare.close();
    }
  });
});

describe('forced password change at sign-in', () => {
  it('makes the person choose a valid new password before reaching the application', async () => {
    const user = await managedUser({ username: 'first-timer', password: 'Initial-Pass-1', mustChange: true });

    // Going around the page does not finish the sign-in: the provider asks again.
    const sneaky = new CookieJar();
    const start = await browse(sneaky, `${ctx.baseUrl}/portal/account`);
    const uid = /\/interaction\/([^/?]+)/.exec(start.url)![1]!;
    const signedIn = await submitSignIn(sneaky, start.url, user.username, user.password);
    expect(signedIn.status).toBe(303);
    const stepPage = await browse(sneaky, absolute(start.url, signedIn.headers.get('location')));
    expect(stepPage.html).toContain('Choose a new password');
    const resumed = await browse(sneaky, `${ctx.baseUrl}/oidc/auth/${uid}`);
    expect(resumed.url).not.toContain('/portal/callback');
    expect(sneaky.cookies.get('tessera_portal')).toBeUndefined();
    expect((await browse(sneaky, `${ctx.baseUrl}/portal/account`)).html).toContain('name="password"');

    const jar = new CookieJar();
    const first = await browse(jar, `${ctx.baseUrl}/portal/account`);
    const posted = await submitSignIn(jar, first.url, user.username, user.password);
    const page = await browse(jar, absolute(first.url, posted.headers.get('location')));
    expect(page.url).toBe(first.url);
    const action = `${first.url}/step/change_password`;
    const csrf = csrfOf(page.html);

    const attempt = async (newPassword: string, confirmPassword = newPassword) => {
      const answer = await postForm(jar, action, { csrf, newPassword, confirmPassword });
      return { status: answer.response.status, html: answer.html, url: answer.url };
    };
    expect(await attempt('Brand-New-Pass-2', 'Brand-New-Pass-3')).toMatchObject({ status: 400 });
    expect((await attempt('Brand-New-Pass-2', 'Brand-New-Pass-3')).html).toContain(
      'Entered Passwords Differ',
    );
    expect((await attempt('short')).html).toContain('at least');
    expect((await attempt('Initial-Pass-1')).html).toContain('must differ from the current one');
    expect((await attempt('first-timer-Pass-9')).html).toContain('must not contain the username');
    // A forged step name goes back to the step that is due.
    expect((await postForm(jar, `${first.url}/step/second_factor`, { csrf })).html).toContain(
      'Choose a new password',
    );
    const stored = await ctx.database.db
      .selectFrom('accounts')
      .select('must_change_password')
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(stored.must_change_password).toBe(true);

    const done = await attempt('Brand-New-Pass-2');
    expect(done.url).toBe(`${ctx.baseUrl}/portal/account`);
    expect(done.html).toContain('first-timer');
    const after = await ctx.database.db
      .selectFrom('accounts')
      .select(['must_change_password', 'credential_version'])
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(after).toEqual({ must_change_password: false, credential_version: 1 });
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .select('action')
      .where('target_id', '=', user.id)
      .execute();
    expect(audit).toEqual([{ action: 'user.password_change' }]);

    // Afterwards: the new password signs in straight to the application, the old one no longer.
    const later = new CookieJar();
    const again = await browse(later, `${ctx.baseUrl}/portal/account`);
    expect((await submitSignIn(later, again.url, user.username, 'Initial-Pass-1')).status).toBe(401);
    const ok = await submitSignIn(later, again.url, user.username, 'Brand-New-Pass-2');
    expect((await browse(later, absolute(again.url, ok.headers.get('location')))).url).toBe(
      `${ctx.baseUrl}/portal/account`,
    );
  });

  it('asks an imported account without a password to choose one after its sign-in link, in Chinese', async () => {
    const user = await managedUser({ username: 'imported-one', mustChange: true, hash: '!' });
    await sendLink(user.id, 'zh');
    const link = linkIn(await mailTo('imported-one@example.com'))!;
    const jar = new CookieJar();
    const step = await useLink(jar, link);
    expect(step.url).toContain('/interaction/');
    expect(step.html).toContain('设置新密码');
    const done = await postForm(jar, `${step.url}/step/change_password`, {
      csrf: csrfOf(step.html),
      newPassword: 'Chosen-Pass-77',
      confirmPassword: 'Chosen-Pass-77',
    });
    expect(done.url).toBe(`${ctx.baseUrl}/portal/account`);
    expect(jar.cookies.get('tessera_portal')).toBeTruthy();
    expect(jar.cookies.get('tessera_first_factor')).toBeUndefined();
  });
});
