import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import { startTestSmtp } from '../../test/smtp.ts';
import type { GeneralSafety } from '../safety/safety.repo.ts';

/**
 * Issue 35: "Create user" invites by email (the person chooses their own password through a
 * sign-in link), and the form shows the company's password rules before it is sent.
 */

type Owner = Awaited<ReturnType<typeof ownerWithCompany>>;
let smtp: Awaited<ReturnType<typeof startTestSmtp>>;
let ctx: TestContext;
let bare: TestContext;
let owner: Owner;
let bareOwner: Owner;

beforeAll(async () => {
  smtp = await startTestSmtp();
  ctx = await startTestApp({ mail: { smtpUrl: smtp.url, from: 'Tessera <id@tessera.example>' } });
  bare = await startTestApp();
  owner = await ownerWithCompany(ctx, 'invite-owner', 'Invite Co');
  bareOwner = await ownerWithCompany(bare, 'noinvite-owner', 'No Mail Co');
});
afterAll(async () => {
  await ctx?.close();
  await bare?.close();
  await smtp?.close();
});

const as = (who: Owner, lang = 'en') => ({ token: who.token, companyId: who.companyId, lang });

async function mailTo(address: string): Promise<ParsedMail> {
  for (let i = 0; i < 200; i++) {
    const mail = smtp.received.find((m) => m.to && JSON.stringify(m.to).includes(address));
    if (mail) return mail;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no mail to ${address}`);
}

const accountNamed = (context: TestContext, username: string) =>
  context.database.db.selectFrom('accounts').selectAll().where('username', '=', username).executeTakeFirst();

describe('invite by email', () => {
  it('creates the person without a password and mails them a sign-in link', async () => {
    const created = await call(
      ctx,
      '/api/v1/manage/user/create',
      {
        username: 'invited.one',
        email: 'Invited.One@example.com',
        password: '',
        confirmPassword: '',
        invite: true,
      },
      as(owner),
    );
    expect(created.code, created.msg).toBe(200);
    expect(created.data).toMatchObject({ username: 'invited.one', invitedTo: 'invited.one@example.com' });
    const account = await accountNamed(ctx, 'invited.one');
    expect(account).toMatchObject({ password_hash: '!', must_change_password: true });
    const mail = await mailTo('invited.one@example.com');
    expect(mail.text).toMatch(/\/portal\/link\/[A-Za-z0-9_-]+\?lang=en/);
  });

  it('refuses an invitation without an email address, with a password, or without mail; nothing stored', async () => {
    const noEmail = await call(
      ctx,
      '/api/v1/manage/user/create',
      { username: 'invited.two', password: '', confirmPassword: '', invite: true },
      as(owner),
    );
    expect(noEmail).toMatchObject({ data: { reason: 'user.no_email' } });
    const withPassword = await call(
      ctx,
      '/api/v1/manage/user/create',
      {
        username: 'invited.two',
        email: 'two@example.com',
        password: 'Some-Pass-2026',
        confirmPassword: 'Some-Pass-2026',
        invite: true,
      },
      as(owner, 'zh'),
    );
    expect(withPassword).toMatchObject({
      code: 400,
      msg: expect.stringContaining('邀请的人员会自行设置密码'),
    });
    const noMail = await call(
      bare,
      '/api/v1/manage/user/create',
      { username: 'invited.two', email: 'two@example.com', password: '', confirmPassword: '', invite: true },
      as(bareOwner),
    );
    expect(noMail).toMatchObject({ code: 503, data: { reason: 'mail.not_configured' } });
    expect(await accountNamed(ctx, 'invited.two')).toBeUndefined();
    expect(await accountNamed(bare, 'invited.two')).toBeUndefined();
  });

  it('still asks for a password when nobody is invited', async () => {
    const answer = await call(
      ctx,
      '/api/v1/manage/user/create',
      { username: 'invited.three', password: '', confirmPassword: '' },
      as(owner),
    );
    expect(answer).toMatchObject({ code: 400, msg: expect.stringContaining('Please enter the password') });
  });
});

describe('password rules', () => {
  it("answers the company's rules as its safety settings say", async () => {
    const general = (await call<GeneralSafety>(ctx, '/api/v1/manage/safety/general', {}, as(owner))).data;
    general.password.minLength = 12;
    general.password.classes = ['lower', 'upper', 'digit', 'symbol'];
    expect((await call(ctx, '/api/v1/manage/safety/general/update', general, as(owner))).code).toBe(200);
    const rules = await call(ctx, '/api/v1/manage/user/password-rules', {}, as(owner));
    expect(rules.data).toMatchObject({
      minLength: 12,
      classes: ['lower', 'upper', 'digit', 'symbol'],
      forbidUsername: general.password.forbidUsername,
      forbidCommon: general.password.forbidCommon,
    });
  });
});
