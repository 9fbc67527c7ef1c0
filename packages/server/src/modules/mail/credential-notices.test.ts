import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lib/ids.ts';
import { call, createAccount, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import { startTestSmtp } from '../../test/smtp.ts';

/**
 * Issue 12: a person is told by mail of any change an administrator makes to their credentials
 * (a password reset, second factors removed), in their company's language.
 */

let smtp: Awaited<ReturnType<typeof startTestSmtp>>;
let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;

beforeAll(async () => {
  smtp = await startTestSmtp();
  ctx = await startTestApp({ mail: { smtpUrl: smtp.url, from: 'Tessera <id@tessera.example>' } });
  owner = await ownerWithCompany(ctx, 'notice-owner', 'Notice Co');
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

const admin = (path: string, body: unknown) =>
  call(ctx, path, body, { token: owner.token, companyId: owner.companyId });

async function managed(username: string) {
  const account = await createAccount(ctx, { username, email: `${username}@example.com` });
  await ctx.database.db
    .updateTable('accounts')
    .set({ home_company_id: owner.companyId })
    .where('id', '=', account.id)
    .execute();
  await ctx.database.db
    .insertInto('company_members')
    .values({ company_id: owner.companyId, account_id: account.id, role: 'member' })
    .execute();
  return account;
}

const mailTo = (address: string) =>
  smtp.received.filter((mail) => mail.to && JSON.stringify(mail.to).includes(address));

describe('notices of credential changes', () => {
  it('tells the person of a password reset, without the password', async () => {
    const person = await managed(`reset-${newId().slice(0, 6)}`);
    const answer = await admin('/api/v1/manage/user/password/reset', {
      userId: person.id,
      password: 'Fresh-Start-2027',
      confirmPassword: 'Fresh-Start-2027',
      mustChangePassword: true,
    });
    expect(answer.code).toBe(200);
    const [mail] = mailTo(`${person.username}@example.com`);
    expect(mail?.subject).toBe('Your sign-in details at Notice Co were changed');
    expect(mail?.text).toContain(`set a new password for your account ${person.username}`);
    expect(mail?.text).not.toContain('Fresh-Start-2027');
  });

  it('tells the person, in the company language, of second factors removed', async () => {
    await admin('/api/v1/manage/brand/update', { defaultLanguage: 'zh' });
    const person = await managed(`factor-${newId().slice(0, 6)}`);
    await ctx.database.db
      .insertInto('mfa_factors')
      .values({
        id: newId(),
        account_id: person.id,
        type: 'otp',
        name: 'Phone',
        status: 'bound',
        secret_sealed: null,
        credential_id: null,
        public_key: null,
      })
      .execute();
    expect((await admin('/api/v1/manage/mfa/admin/user/del', { userId: person.id })).code).toBe(200);
    const [mail] = mailTo(`${person.username}@example.com`);
    expect(mail?.subject).toBe('您在 Notice Co 的登录信息已被修改');
    expect(mail?.text).toContain('移除了您的账号');
  });
});
