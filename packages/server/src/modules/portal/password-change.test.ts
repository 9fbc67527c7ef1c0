import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  browse,
  CookieJar,
  csrfOf,
  request,
  signInToPortal as signInThroughProvider,
  submitSignIn,
} from '../../test/browser-flow.ts';
import {
  call,
  createAccount,
  ownerWithCompany,
  sessionFor,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import type { GeneralSafety } from '../safety/safety.repo.ts';

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  owner = await ownerWithCompany(ctx, 'pw-owner', 'Password Co');
  // The company's own rule: at least 14 characters.
  const as = { token: owner.token, companyId: owner.companyId };
  const general = (await call<GeneralSafety>(ctx, '/api/v1/manage/safety/general', {}, as)).data;
  general.password.minLength = 14;
  const saved = await call(ctx, '/api/v1/manage/safety/general/update', general, as);
  expect(saved.code, saved.msg).toBe(200);
});
afterAll(() => ctx.close());

const PASSWORD_PAGE = () => `${ctx.baseUrl}/portal/account/password`;

/** A user of the company (home company set, with a record in it). */
async function managedUser(username: string, password: string) {
  const account = await createAccount(ctx, { username, password });
  await ctx.database.db
    .updateTable('accounts')
    .set({ home_company_id: owner.companyId, must_change_password: false })
    .where('id', '=', account.id)
    .execute();
  await ctx.database.db
    .insertInto('company_members')
    .values({ company_id: owner.companyId, account_id: account.id, role: 'member', updated_at: new Date() })
    .execute();
  return account;
}

/** Signs in to the user centre through the provider; returns the jar and the account page. */
async function signInToPortal(username: string, password: string) {
  const { jar, interactionUrl, page } = await signInThroughProvider(ctx.baseUrl, username, password);
  expect(interactionUrl).toContain('/interaction/');
  expect(page.url).toBe(`${ctx.baseUrl}/portal/account`);
  return { jar, page: page.html };
}

/** Whether the password signs in (the provider's sign-in form answers 303 on success). */
async function passwordSignsIn(username: string, password: string) {
  const jar = new CookieJar();
  const first = await browse(jar, `${ctx.baseUrl}/portal/account`);
  return (await submitSignIn(jar, first.url, username, password)).status === 303;
}

const stored = (id: string) =>
  ctx.database.db
    .selectFrom('accounts')
    .select(['password_hash', 'credential_version', 'must_change_password', 'password_changed_at'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

const submit = (
  jar: CookieJar,
  form: { csrf: string; currentPassword: string; newPassword: string; confirmPassword?: string },
  lang = 'en',
) =>
  browse(jar, PASSWORD_PAGE(), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'accept-language': lang },
    body: new URLSearchParams({ confirmPassword: form.newPassword, ...form }).toString(),
  });

describe('own password change in the user centre', () => {
  it('refuses a wrong current password, a mismatch, the same password, a rule and a forged form', async () => {
    const user = await managedUser('pw-refused', 'Initial-Pass-1234');
    const { jar, page } = await signInToPortal(user.username, user.password);
    expect(page).toContain('href="/portal/account/password"');
    expect(page).toContain('Change password');
    const before = await stored(user.id);

    const form = await browse(jar, PASSWORD_PAGE());
    expect(form.response.status).toBe(200);
    expect(form.html).toContain('name="currentPassword"');
    const csrf = csrfOf(form.html);
    expect(csrf).toBeTruthy();

    const wrong = await submit(jar, {
      csrf,
      currentPassword: 'Not-The-Pass-1234',
      newPassword: 'Brand-New-Pass-5678',
    });
    expect(wrong.response.status).toBe(400);
    expect(wrong.html).toContain('The current password is incorrect');
    const events = await ctx.database.db
      .selectFrom('login_events')
      .select(['result', 'failure_cause', 'client_id'])
      .where('account_id', '=', user.id)
      .where('result', '=', 'failure')
      .execute();
    expect(events).toEqual([
      { result: 'failure', failure_cause: 'wrong_password', client_id: 'tessera-portal' },
    ]);
    // It shows in the person's recent sign-ins.
    expect((await browse(jar, `${ctx.baseUrl}/portal/account`)).html).toContain('Wrong password');

    const mismatch = await submit(jar, {
      csrf,
      currentPassword: user.password,
      newPassword: 'Brand-New-Pass-5678',
      confirmPassword: 'Brand-New-Pass-5679',
    });
    expect(mismatch.response.status).toBe(400);
    expect(mismatch.html).toContain('Entered Passwords Differ');

    const same = await submit(jar, { csrf, currentPassword: user.password, newPassword: user.password });
    expect(same.response.status).toBe(400);
    expect(same.html).toContain('The new password must differ from the current one');

    // The company asks for 14 characters (the default would be fewer).
    const short = await submit(jar, { csrf, currentPassword: user.password, newPassword: 'Short-Pass-1' });
    expect(short.response.status).toBe(400);
    expect(short.html).toContain('The password must be at least 14 characters');
    const shortZh = await submit(
      jar,
      { csrf, currentPassword: user.password, newPassword: 'Short-Pass-1' },
      'zh',
    );
    expect(shortZh.response.status).toBe(400);
    expect(shortZh.html).toContain('密码至少需要 14 个字符');
    const withName = await submit(jar, {
      csrf,
      currentPassword: user.password,
      newPassword: 'pw-refused-Pass-5678',
    });
    expect(withName.html).toContain('The password must not contain the username');

    const forged = await submit(jar, {
      csrf: 'forged',
      currentPassword: user.password,
      newPassword: 'Brand-New-Pass-5678',
    });
    expect(forged.response.status).toBe(403);
    const noCsrf = await browse(jar, PASSWORD_PAGE(), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        currentPassword: user.password,
        newPassword: 'Brand-New-Pass-5678',
        confirmPassword: 'Brand-New-Pass-5678',
      }).toString(),
    });
    expect(noCsrf.response.status).toBe(403);

    // Nothing changed.
    expect(await stored(user.id)).toEqual(before);
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .select('action')
      .where('target_id', '=', user.id)
      .execute();
    expect(audit).toEqual([]);
    expect(await passwordSignsIn(user.username, user.password)).toBe(true);
  });

  it('changes the password, ends the other sessions and keeps this one', async () => {
    const user = await managedUser('pw-changer', 'Initial-Pass-1234');
    // must_change_password would stop the browser sign-in: it is set once signed in.
    const { jar } = await signInToPortal(user.username, user.password);
    const other = await signInToPortal(user.username, user.password);
    await ctx.database.db
      .updateTable('accounts')
      .set({ must_change_password: true })
      .where('id', '=', user.id)
      .execute();
    const consoleToken = await sessionFor(ctx, user.id);
    expect((await call(ctx, '/api/v1/manage/company/my/list', {}, { token: consoleToken })).code).toBe(200);
    const before = await stored(user.id);
    const oldCookie = jar.cookies.get('tessera_portal');

    const csrf = csrfOf((await browse(jar, PASSWORD_PAGE())).html);
    const done = await submit(jar, {
      csrf,
      currentPassword: user.password,
      newPassword: 'Brand-New-Pass-5678',
    });
    expect(done.url).toBe(`${ctx.baseUrl}/portal/account?notice=password_changed`);
    expect(done.response.status).toBe(200);
    expect(done.html).toContain('Your password has been changed.');
    expect(done.html).toContain('pw-changer');
    // A fresh session token; the old one is no longer a session.
    expect(jar.cookies.get('tessera_portal')).toBeTruthy();
    expect(jar.cookies.get('tessera_portal')).not.toBe(oldCookie);

    const after = await stored(user.id);
    expect(after.password_hash).not.toBe(before.password_hash);
    expect(after.credential_version).toBe(before.credential_version + 1);
    expect(after.must_change_password).toBe(false);
    expect(after.password_changed_at.getTime()).toBeGreaterThanOrEqual(before.password_changed_at.getTime());

    // Still signed in here; the console token and the other user-centre session are refused.
    expect((await browse(jar, `${ctx.baseUrl}/portal/account`)).url).toBe(`${ctx.baseUrl}/portal/account`);
    expect((await call(ctx, '/api/v1/manage/company/my/list', {}, { token: consoleToken })).code).toBe(401);
    const stale = await request(other.jar, `${ctx.baseUrl}/portal/account`);
    expect(stale.status).toBe(302);
    expect(stale.headers.get('location')).toContain('/oidc/auth');

    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .select(['action', 'actor_account_id', 'company_id', 'target_type'])
      .where('target_id', '=', user.id)
      .execute();
    expect(audit).toEqual([
      {
        action: 'user.password_change',
        actor_account_id: user.id,
        company_id: owner.companyId,
        target_type: 'user',
      },
    ]);

    expect(await passwordSignsIn(user.username, user.password)).toBe(false);
    expect(await passwordSignsIn(user.username, 'Brand-New-Pass-5678')).toBe(true);
  });

  it('shows the success notice in Chinese too', async () => {
    const user = await managedUser('pw-zh', 'Initial-Pass-1234');
    const { jar } = await signInToPortal(user.username, user.password);
    jar.cookies.set('lang', 'zh');
    const csrf = csrfOf((await browse(jar, PASSWORD_PAGE())).html);
    const done = await submit(
      jar,
      { csrf, currentPassword: user.password, newPassword: 'Brand-New-Pass-5678' },
      'zh',
    );
    expect(done.url).toBe(`${ctx.baseUrl}/portal/account?notice=password_changed`);
    expect(done.html).toContain('密码已修改。');
  });

  it('stops checking after repeated wrong current passwords', async () => {
    const user = await managedUser('pw-guesser', 'Initial-Pass-1234');
    const { jar } = await signInToPortal(user.username, user.password);
    const csrf = csrfOf((await browse(jar, PASSWORD_PAGE())).html);
    for (let i = 0; i < 5; i++) {
      const answer = await submit(jar, {
        csrf,
        currentPassword: `Guess-${i}`,
        newPassword: 'Brand-New-Pass-5678',
      });
      expect(answer.html).toContain('The current password is incorrect');
    }
    const right = await submit(jar, {
      csrf,
      currentPassword: user.password,
      newPassword: 'Brand-New-Pass-5678',
    });
    expect(right.response.status).toBe(400);
    expect(right.html).toContain('Too many wrong attempts');
    expect((await stored(user.id)).credential_version).toBe(0);
  });

  it('is not offered to an account without a password yet', async () => {
    const user = await managedUser('pw-imported', 'Initial-Pass-1234');
    const { jar } = await signInToPortal(user.username, user.password);
    await ctx.database.db
      .updateTable('accounts')
      .set({ password_hash: '!' })
      .where('id', '=', user.id)
      .execute();
    const page = await browse(jar, `${ctx.baseUrl}/portal/account`);
    expect(page.html).toContain('pw-imported');
    expect(page.html).not.toContain('/portal/account/password');
    const form = await browse(jar, PASSWORD_PAGE());
    expect(form.url).toBe(`${ctx.baseUrl}/portal/account`);
  });
});
