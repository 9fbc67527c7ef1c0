import { defaultSafetySettings } from '@tessera/contract';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfOf, postForm, signInToPortal } from '../../test/browser-flow.ts';
import {
  call,
  createAccount,
  ownerWithCompany,
  sessionFor,
  startTestApp,
  type TestContext,
  upload,
} from '../../test/harness.ts';
import { createAccountsRepo } from '../account/account.repo.ts';
import { createSignInService } from '../signin/signin.service.ts';
import { type GeneralSafety, getSafetySettings } from './safety.repo.ts';

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let rules: Awaited<ReturnType<typeof ownerWithCompany>>;
let other: Awaited<ReturnType<typeof ownerWithCompany>>;

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  owner = await ownerWithCompany(ctx, 'safety-owner', 'Safety Ltd');
  rules = await ownerWithCompany(ctx, 'rules-owner', 'Strict Rules Ltd');
  other = await ownerWithCompany(ctx, 'other-owner', 'Other Ltd');
});
afterAll(() => ctx.close());

type As = { token: string; companyId: string };
const GENERAL = '/api/v1/manage/safety/general';
const MFA = '/api/v1/manage/safety/mfa';

const defaultGeneral = (): GeneralSafety => ({
  loginMethods: [...defaultSafetySettings.loginMethods],
  password: { ...defaultSafetySettings.password, classes: [...defaultSafetySettings.password.classes] },
  lockout: { ...defaultSafetySettings.lockout },
  selfServiceReset: defaultSafetySettings.selfServiceReset,
});

const setGeneral = async (as: As, change: (g: GeneralSafety) => void) => {
  const general = (await call<GeneralSafety>(ctx, GENERAL, {}, as)).data;
  change(general);
  const answer = await call(ctx, `${GENERAL}/update`, general, as);
  expect(answer.code, answer.msg).toBe(200);
};

const storedRow = (companyId: string) =>
  ctx.database.db
    .selectFrom('company_safety')
    .selectAll()
    .where('company_id', '=', companyId)
    .executeTakeFirst();
const auditOf = (companyId: string, action: string) =>
  ctx.database.db
    .selectFrom('audit_events')
    .select(['before', 'after', 'actor_account_id'])
    .where('company_id', '=', companyId)
    .where('action', '=', action)
    .orderBy('created_at')
    .execute();

/** An account the company manages (home company), optionally with a forced change or an old password. */
async function managedUser(
  username: string,
  companyId: string,
  fields: { mustChange?: boolean; passwordAgeDays?: number; password?: string } = {},
) {
  const account = await createAccount(ctx, { username, password: fields.password });
  await ctx.database.db
    .updateTable('accounts')
    .set({
      home_company_id: companyId,
      must_change_password: fields.mustChange ?? false,
      password_changed_at: new Date(Date.now() - (fields.passwordAgeDays ?? 0) * 86_400_000),
    })
    .where('id', '=', account.id)
    .execute();
  await ctx.database.db
    .insertInto('company_members')
    .values({ company_id: companyId, account_id: account.id, role: 'member', updated_at: new Date() })
    .execute();
  return account;
}

describe('general and MFA safety calls', () => {
  it('answers the contract defaults for a company that stored nothing', async () => {
    expect((await call(ctx, GENERAL, {}, owner)).data).toEqual(defaultGeneral());
    expect((await call(ctx, MFA, {}, owner)).data).toEqual(defaultSafetySettings.mfa);
    expect(await getSafetySettings(ctx.database.db, owner.companyId)).toEqual({
      general: defaultGeneral(),
      mfa: defaultSafetySettings.mfa,
    });
  });

  it('refuses settings outside the ranges in the caller language and stores nothing', async () => {
    const cases: [(g: GeneralSafety) => void, string, string, string][] = [
      [
        (g) => (g.password.minLength = 5),
        'safety.min_length_range',
        'The minimum password length must be between 6 and 30',
        '密码最小长度须在 6 到 30 之间',
      ],
      [
        (g) => (g.password.minLength = 31),
        'safety.min_length_range',
        'The minimum password length must be between 6 and 30',
        '密码最小长度须在 6 到 30 之间',
      ],
      [
        (g) => (g.password.changeCycleDays = 10),
        'safety.change_cycle_range',
        'The forced change cycle is 0 (unlimited) or at least 30 days',
        '强制修改周期为 0（不限制）或不少于 30 天',
      ],
      [
        (g) => (g.loginMethods = ['passkey']),
        'safety.password_method_required',
        'Password sign-in cannot be turned off',
        '不能关闭密码登录',
      ],
      [
        (g) => (g.lockout.maxFailures = 2),
        'safety.lockout_failures_range',
        'The failed attempts before a lock-out must be between 3 and 20',
        '锁定前允许的失败次数须在 3 到 20 之间',
      ],
    ];
    for (const [change, reason, en, zh] of cases) {
      const body = defaultGeneral();
      change(body);
      for (const [lang, message] of [
        ['en', en],
        ['zh', zh],
      ] as const) {
        const answer = await call(ctx, `${GENERAL}/update`, body, { ...owner, lang });
        expect({
          code: answer.code,
          reason: (answer.data as { reason?: string }).reason,
          msg: answer.msg,
        }).toEqual({
          code: 400,
          reason,
          msg: message,
        });
      }
    }
    expect(await storedRow(owner.companyId)).toBeUndefined();
    expect(await auditOf(owner.companyId, 'safety.general_update')).toEqual([]);
  });

  it('stores valid settings (cycle 0 and 30, length 6 and 30) with an audit event of before and after', async () => {
    const first = {
      ...defaultGeneral(),
      password: { ...defaultGeneral().password, minLength: 6, changeCycleDays: 0 },
    };
    expect((await call(ctx, `${GENERAL}/update`, first, owner)).data).toEqual(first);
    const second: GeneralSafety = {
      loginMethods: ['password', 'passkey'],
      password: {
        minLength: 30,
        classes: ['upper', 'symbol'],
        forbidUsername: false,
        forbidCommon: false,
        changeCycleDays: 30,
      },
      lockout: { maxFailures: 3, lockMinutes: 1440 },
      selfServiceReset: false,
    };
    expect((await call(ctx, `${GENERAL}/update`, second, owner)).data).toEqual(second);
    expect((await call(ctx, GENERAL, {}, owner)).data).toEqual(second);
    const audit = await auditOf(owner.companyId, 'safety.general_update');
    expect(audit).toEqual([
      { before: defaultGeneral(), after: first, actor_account_id: owner.account.id },
      { before: first, after: second, actor_account_id: owner.account.id },
    ]);
    // The MFA part is untouched by a general update.
    expect((await call(ctx, MFA, {}, owner)).data).toEqual(defaultSafetySettings.mfa);
    await call(ctx, `${GENERAL}/update`, defaultGeneral(), owner);
  });

  it('refuses an unknown MFA kind and a bad lock-out, storing nothing; stores every kind of spec §3', async () => {
    const refused = await call(
      ctx,
      `${MFA}/update`,
      { mode: 'required', types: ['otp', 'voice'], lockout: { maxFailures: 5, lockMinutes: 15 } },
      { ...owner, lang: 'zh' },
    );
    expect(refused).toMatchObject({ code: 400 });
    const badLock = await call(
      ctx,
      `${MFA}/update`,
      { mode: 'required', types: ['otp'], lockout: { maxFailures: 5, lockMinutes: 0 } },
      owner,
    );
    expect(badLock).toMatchObject({ code: 400, data: { reason: 'safety.lockout_minutes_range' } });
    expect(await auditOf(owner.companyId, 'safety.mfa_update')).toEqual([]);

    const mfa = {
      mode: 'admins',
      types: ['otp', 'otp_sm3', 'ukey_keyid', 'ukey_pubkey', 'ukey_cert', 'soft_lock', 'email', 'sms'],
      lockout: { maxFailures: 4, lockMinutes: 10 },
    };
    expect((await call(ctx, `${MFA}/update`, mfa, owner)).data).toEqual(mfa);
    expect((await call(ctx, MFA, {}, owner)).data).toEqual(mfa);
    expect((await getSafetySettings(ctx.database.db, owner.companyId)).mfa).toEqual(mfa);
    expect(await auditOf(owner.companyId, 'safety.mfa_update')).toEqual([
      { before: defaultSafetySettings.mfa, after: mfa, actor_account_id: owner.account.id },
    ]);
    await call(ctx, `${MFA}/update`, defaultSafetySettings.mfa, owner);
  });

  it('lets administrators change the settings, external administrators only read them', async () => {
    const member = async (username: string, role: 'admin' | 'external_admin') => {
      const created = await call<{ userId: string }>(
        ctx,
        '/api/v1/manage/company/user/create',
        { username, role, password: 'Sturdy-Gate-42' },
        owner,
      );
      expect(created.code, created.msg).toBe(200);
      return { token: await sessionFor(ctx, created.data.userId), companyId: owner.companyId };
    };
    const external = await member('safety-external', 'external_admin');
    expect((await call(ctx, GENERAL, {}, external)).code).toBe(200);
    expect(await call(ctx, `${GENERAL}/update`, defaultGeneral(), external)).toMatchObject({
      code: 403,
      data: { reason: 'auth.forbidden' },
    });
    expect(await call(ctx, `${MFA}/update`, defaultSafetySettings.mfa, external)).toMatchObject({
      code: 403,
      data: { reason: 'auth.forbidden' },
    });
    const admin = await member('safety-admin', 'admin');
    expect((await call(ctx, `${MFA}/update`, defaultSafetySettings.mfa, admin)).code).toBe(200);
  });

  it("keeps another company's settings behind the tenant wall", async () => {
    await setGeneral(other, (g) => (g.password.minLength = 14));
    for (const path of [GENERAL, `${GENERAL}/update`, MFA, `${MFA}/update`]) {
      const body = path.startsWith(GENERAL) ? defaultGeneral() : defaultSafetySettings.mfa;
      expect(await call(ctx, path, body, { token: owner.token, companyId: other.companyId })).toMatchObject({
        code: 404,
        data: { reason: 'company.not_found' },
      });
    }
    expect((await call<GeneralSafety>(ctx, GENERAL, {}, other)).data.password.minLength).toBe(14);
    await call(ctx, `${GENERAL}/update`, defaultGeneral(), other);
  });
});

/** The four rules the company of `rules` sets, each with a password that breaks it and its message. */
const ruleCases = (username: string) =>
  [
    {
      rule: 'too_short',
      password: 'Ab1cd',
      en: 'The password must be at least 10 characters',
      zh: '密码至少需要 10 个字符',
    },
    {
      rule: 'missing_classes',
      password: 'abcdefghij12',
      en: 'The password must contain an uppercase letter',
      zh: '密码必须包含大写字母',
    },
    {
      rule: 'contains_username',
      password: `Zx9-${username}`,
      en: 'The password must not contain the username',
      zh: '密码不能包含用户名',
    },
    {
      rule: 'too_common',
      password: 'Qwerty123456',
      en: 'The password is one of the most common passwords; choose a less predictable one',
      zh: '密码过于常见，请换一个不易猜到的密码',
    },
  ] as const;
const langs = ['en', 'zh'] as const;
const GOOD = 'Harbour-Lantern-81';

describe("the company's password rules wherever a password is set", () => {
  beforeAll(async () => {
    await setGeneral(rules, (g) => {
      g.password = {
        minLength: 10,
        classes: ['lower', 'upper', 'digit'],
        forbidUsername: true,
        forbidCommon: true,
        changeCycleDays: 0,
      };
    });
  });

  it('applies at user create, in English and Chinese', async () => {
    for (const c of ruleCases('rule-create')) {
      for (const lang of langs) {
        const answer = await call(
          ctx,
          '/api/v1/manage/user/create',
          { username: 'rule-create', password: c.password, confirmPassword: c.password },
          { ...rules, lang },
        );
        expect({
          rule: c.rule,
          code: answer.code,
          reason: (answer.data as { reason: string }).reason,
          msg: answer.msg,
        }).toEqual({
          rule: c.rule,
          code: 400,
          reason: `password.${c.rule}`,
          msg: c[lang],
        });
      }
    }
    const created = await call(
      ctx,
      '/api/v1/manage/user/create',
      { username: 'rule-create', password: GOOD, confirmPassword: GOOD },
      rules,
    );
    expect(created.code, created.msg).toBe(200);
    // Another company keeps the defaults: eight characters and a common password are its own business.
    const elsewhere = await call(
      ctx,
      '/api/v1/manage/user/create',
      { username: 'rule-elsewhere', password: 'Ab1cdefg', confirmPassword: 'Ab1cdefg' },
      other,
    );
    expect(elsewhere.code, elsewhere.msg).toBe(200);
  });

  it('follows a relaxed rule: forbidCommon off lets a common password through', async () => {
    await setGeneral(other, (g) => {
      g.password.forbidCommon = false;
      g.password.minLength = 8;
    });
    const answer = await call(
      ctx,
      '/api/v1/manage/user/create',
      { username: 'rule-common-ok', password: 'qwerty123', confirmPassword: 'qwerty123' },
      other,
    );
    expect(answer.code, answer.msg).toBe(200);
    await setGeneral(other, (g) => (g.password.forbidCommon = true));
    const refused = await call(
      ctx,
      '/api/v1/manage/user/create',
      { username: 'rule-common-no', password: 'password1', confirmPassword: 'password1' },
      other,
    );
    expect(refused).toMatchObject({ code: 400, data: { reason: 'password.too_common' } });
  });

  it('applies at password reset and at company/user/create', async () => {
    const user = await managedUser('rule-reset', rules.companyId);
    for (const c of ruleCases('rule-reset')) {
      for (const lang of langs) {
        const answer = await call(
          ctx,
          '/api/v1/manage/user/password/reset',
          { userId: user.id, password: c.password, confirmPassword: c.password },
          { ...rules, lang },
        );
        expect({ rule: c.rule, code: answer.code, msg: answer.msg }).toEqual({
          rule: c.rule,
          code: 400,
          msg: c[lang],
        });
      }
    }
    const reset = await call(
      ctx,
      '/api/v1/manage/user/password/reset',
      { userId: user.id, password: GOOD, confirmPassword: GOOD },
      rules,
    );
    expect(reset.code, reset.msg).toBe(200);

    for (const c of ruleCases('rule-member')) {
      for (const lang of langs) {
        const answer = await call(
          ctx,
          '/api/v1/manage/company/user/create',
          { username: 'rule-member', role: 'member', password: c.password },
          { ...rules, lang },
        );
        expect({ rule: c.rule, code: answer.code, msg: answer.msg }).toEqual({
          rule: c.rule,
          code: 400,
          msg: c[lang],
        });
      }
    }
    const member = await call(
      ctx,
      '/api/v1/manage/company/user/create',
      { username: 'rule-member', role: 'member', password: GOOD },
      rules,
    );
    expect(member.code, member.msg).toBe(200);
  });

  it('applies at import, each row naming its rule', async () => {
    const cases = ruleCases('rule-import');
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('Users');
    sheet.addRow(['Username', 'Name', 'Nickname', 'Email', 'Phone', 'Departments', 'Password']);
    cases.forEach((c, i) => {
      // The username rule needs the row's own username.
      sheet.addRow([
        c.rule === 'contains_username' ? 'rule-import' : `rule-import-${i}`,
        '',
        '',
        '',
        '',
        '',
        c.password,
      ]);
    });
    const started = await upload(
      ctx,
      '/api/v1/manage/user/batch-task/create',
      {
        bytes: Buffer.from(await book.xlsx.writeBuffer()),
        filename: 'rules.xlsx',
        type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      },
      rules,
    );
    expect(started.code, started.msg).toBe(200);
    const taskId = started.data.taskId as string;
    for (const lang of langs) {
      let task: { status: string; errors: { row: number; message: string }[] } | undefined;
      for (let i = 0; i < 200; i++) {
        task = (
          await call<typeof task & {}>(ctx, '/api/v1/manage/user/batch-task', { taskId }, { ...rules, lang })
        ).data;
        if (task.status !== 'importing') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(task?.status).toBe('failed');
      expect(task?.errors.map((e) => e.message)).toEqual(cases.map((c) => c[lang]));
    }
  });
});

describe('the sign-in steps that set a password', () => {
  it('applies the home company rules at the forced change, in English and Chinese', async () => {
    const user = await managedUser('rule-forced', rules.companyId, { mustChange: true });
    for (const lang of langs) {
      const { jar, interactionUrl, page } = await signInToPortal(
        ctx.baseUrl,
        user.username,
        user.password,
        lang,
      );
      expect(page.html).toContain(lang === 'en' ? 'Choose a new password' : '设置新密码');
      const csrf = csrfOf(page.html);
      for (const c of ruleCases('rule-forced')) {
        const answer = await postForm(jar, `${interactionUrl}/step/change_password`, {
          csrf,
          newPassword: c.password,
          confirmPassword: c.password,
        });
        expect({ rule: c.rule, shown: answer.html.includes(c[lang]) }).toEqual({ rule: c.rule, shown: true });
      }
    }
  });

  it('asks for a new password once the change cycle ran out, then signs in', async () => {
    await setGeneral(rules, (g) => (g.password.changeCycleDays = 30));
    const fresh = await managedUser('rule-fresh', rules.companyId, { passwordAgeDays: 29 });
    const user = await managedUser('rule-expired', rules.companyId, { passwordAgeDays: 31 });

    // A password younger than the cycle goes straight to the application.
    const straight = await signInToPortal(ctx.baseUrl, fresh.username, fresh.password, 'en');
    expect(new URL(straight.page.url).pathname).toBe('/portal/account');

    for (const lang of langs) {
      const { jar, interactionUrl, page } = await signInToPortal(
        ctx.baseUrl,
        user.username,
        user.password,
        lang,
      );
      expect(page.url).toBe(interactionUrl);
      expect(page.html).toContain(
        lang === 'en'
          ? 'The password of rule-expired has expired: choose a new one to continue.'
          : 'rule-expired 的密码已过期，请设置新密码后继续。',
      );
      const csrf = csrfOf(page.html);
      for (const c of ruleCases('rule-expired')) {
        const answer = await postForm(jar, `${interactionUrl}/step/password_expired`, {
          csrf,
          newPassword: c.password,
          confirmPassword: c.password,
        });
        expect({
          rule: c.rule,
          status: answer.response.status,
          shown: answer.html.includes(c[lang]),
        }).toEqual({
          rule: c.rule,
          status: 400,
          shown: true,
        });
      }
      const same = await postForm(jar, `${interactionUrl}/step/password_expired`, {
        csrf,
        newPassword: user.password,
        confirmPassword: user.password,
      });
      expect(same.html).toContain(
        lang === 'en' ? 'The new password must differ from the current one' : '新密码不能与当前密码相同',
      );
    }
    const causes = await ctx.database.db
      .selectFrom('login_events')
      .select(['result', 'failure_cause', 'company_id'])
      .where('account_id', '=', user.id)
      .where('failure_cause', '=', 'password_expired')
      .execute();
    expect(causes).toHaveLength(2 * (ruleCases('x').length + 1));
    expect(causes[0]).toEqual({
      result: 'failure',
      failure_cause: 'password_expired',
      company_id: rules.companyId,
    });

    // The right new password finishes the sign-in and restarts the cycle.
    const { jar, interactionUrl, page } = await signInToPortal(
      ctx.baseUrl,
      user.username,
      user.password,
      'en',
    );
    const done = await postForm(jar, `${interactionUrl}/step/password_expired`, {
      csrf: csrfOf(page.html),
      newPassword: GOOD,
      confirmPassword: GOOD,
    });
    expect(new URL(done.url).pathname).toBe('/portal/account');
    const after = await ctx.database.db
      .selectFrom('accounts')
      .select(['password_changed_at', 'credential_version'])
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(after.password_changed_at.getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(after.credential_version).toBe(1);
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .select(['action', 'before', 'after'])
      .where('target_id', '=', user.id)
      .execute();
    expect(audit).toEqual([
      {
        action: 'user.password_change',
        before: { passwordExpired: true },
        after: { passwordExpired: false },
      },
    ]);
    // Next time the new password goes straight through; the old one no longer works.
    expect(new URL((await signInToPortal(ctx.baseUrl, user.username, GOOD, 'en')).page.url).pathname).toBe(
      '/portal/account',
    );
    await setGeneral(rules, (g) => (g.password.changeCycleDays = 0));
    // With the cycle off, even a very old password is not asked to change.
    const old = await managedUser('rule-old', rules.companyId, { passwordAgeDays: 4000 });
    expect(
      new URL((await signInToPortal(ctx.baseUrl, old.username, old.password, 'en')).page.url).pathname,
    ).toBe('/portal/account');
  });
});

describe('lock-out per company', () => {
  const attempt = (identifier: string, password: string) => ({
    identifier,
    password,
    ip: '10.7.0.1',
    userAgent: 'vitest',
    clientId: 'tessera-portal',
    companyId: null,
  });

  it("locks after the home company's failures for its minutes; others follow the global policy", async () => {
    await setGeneral(rules, (g) => (g.lockout = { maxFailures: 3, lockMinutes: 7 }));
    const signIn = createSignInService({
      db: ctx.database.db,
      accounts: createAccountsRepo(ctx.database.db),
      policy: { lockoutThreshold: 6, lockoutMinutes: 60 },
    });
    const user = await managedUser('lock-managed', rules.companyId);
    const loose = await createAccount(ctx, { username: 'lock-loose' });
    for (let i = 0; i < 3; i++) {
      await signIn.signInWithPassword(attempt(user.username, 'wrong'));
      await signIn.signInWithPassword(attempt(loose.username, 'wrong'));
    }
    const state = (id: string) =>
      ctx.database.db
        .selectFrom('accounts')
        .select(['failed_count', 'locked_until'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    const locked = await state(user.id);
    expect(locked.failed_count).toBe(3);
    expect(locked.locked_until!.getTime()).toBeGreaterThan(Date.now() + 6 * 60_000);
    expect(locked.locked_until!.getTime()).toBeLessThan(Date.now() + 8 * 60_000);
    expect(await signIn.signInWithPassword(attempt(user.username, user.password))).toMatchObject({
      ok: false,
      cause: 'account_locked',
    });
    // Without a home company: the global policy (6 failures, 60 minutes).
    expect((await state(loose.id)).locked_until).toBeNull();
    for (let i = 0; i < 3; i++) await signIn.signInWithPassword(attempt(loose.username, 'wrong'));
    expect((await state(loose.id)).locked_until!.getTime()).toBeGreaterThan(Date.now() + 59 * 60_000);

    // An administrator lifts the lock by enabling the user.
    const enabled = await call(
      ctx,
      '/api/v1/manage/user/status',
      { userId: user.id, status: 'enabled' },
      rules,
    );
    expect(enabled.code, enabled.msg).toBe(200);
    expect((await state(user.id)).locked_until).toBeNull();
    expect((await signIn.signInWithPassword(attempt(user.username, user.password))).ok).toBe(true);
  });
});
