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

/**
 * Issue 35: the platform console's setup page lists the installation settings that shape what
 * companies can do (platform administrators only), and its one stored setting, who may create
 * companies, is enforced by company/create with a clear refusal in both languages.
 */
let ctx: TestContext;
let operator: { id: string; token: string };
let acme: Awaited<ReturnType<typeof ownerWithCompany>>;

beforeAll(async () => {
  ctx = await startTestApp({ outboundNetworks: ['10.0.0.0/8'] });
  const account = await createAccount(ctx, { username: 'operator', platformAdmin: true });
  operator = { id: account.id, token: await sessionFor(ctx, account.id, 'admin') };
  acme = await ownerWithCompany(ctx, 'acme-owner', 'Acme Rockets');
});
afterAll(() => ctx.close());

const SETUP = '/api/v1/manage/platform/setup';
const CREATION = '/api/v1/manage/platform/company-creation';
const SET_CREATION = '/api/v1/manage/platform/company-creation/update';

type SetupItem = { key: string; state: string; value: string | null; variables: string[] };

describe('the setup page', () => {
  it('lists each installation setting with its state, value and variables, for platform administrators', async () => {
    const answer = await call<{ items: SetupItem[] }>(ctx, SETUP, {}, { token: operator.token });
    expect(answer.code).toBe(200);
    expect(answer.data.items.map((item) => item.key)).toEqual([
      'publicUrl',
      'mail',
      'outboundNetworks',
      'trustedProxies',
      'metrics',
      'radius',
      'licence',
      'backups',
      'companyCreation',
    ]);
    const byKey = Object.fromEntries(answer.data.items.map((item) => [item.key, item]));
    expect(byKey.outboundNetworks).toEqual({
      key: 'outboundNetworks',
      state: 'ok',
      value: '10.0.0.0/8',
      variables: ['TESSERA_OUTBOUND_ALLOWED_NETWORKS'],
    });
    expect(byKey.publicUrl).toMatchObject({ value: ctx.baseUrl, variables: ['TESSERA_PUBLIC_URL'] });
    expect(byKey.mail).toMatchObject({ state: 'off', value: null });
    expect(byKey.companyCreation).toMatchObject({ value: 'everyone', variables: [] });
  });

  it('refuses every other role, whatever company it names, and changes nothing', async () => {
    const member = await companyMember(ctx, acme, 'acme-member');
    const memberToken = await sessionFor(ctx, member.id);
    const stranger = await createAccount(ctx, { username: 'no-company' });
    const callers = [
      { who: 'owner', token: acme.token, companyId: acme.companyId },
      { who: 'member', token: memberToken, companyId: acme.companyId },
      { who: 'person without company', token: await sessionFor(ctx, stranger.id) },
      { who: 'owner in the admin console', token: await sessionFor(ctx, acme.account.id, 'admin') },
    ];
    for (const { who, token, companyId } of callers) {
      for (const [path, body] of [
        [SETUP, {}],
        [SET_CREATION, { mode: 'platform_admins' }],
      ] as const) {
        const answer = await call(ctx, path, body, { token, companyId });
        expect({ who, path, code: answer.code, reason: answer.data?.reason }).toEqual({
          who,
          path,
          code: 403,
          reason: 'platform.platform_admin_only',
        });
      }
    }
    expect((await call(ctx, SETUP, {})).code).toBe(401);
    expect((await call<{ mode: string }>(ctx, CREATION, {}, { token: acme.token })).data.mode).toBe(
      'everyone',
    );
  });
});

describe('who may create companies', () => {
  it('platform administrators only: company/create refuses anyone else in both languages; the change is audited', async () => {
    const changed = await call<{ mode: string }>(
      ctx,
      SET_CREATION,
      { mode: 'platform_admins' },
      { token: operator.token },
    );
    expect(changed.data).toEqual({ mode: 'platform_admins', mayCreate: true });
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .select(['company_id', 'actor_account_id', 'before', 'after'])
      .where('action', '=', 'platform.company_creation.update')
      .execute();
    expect(audit).toEqual([
      {
        company_id: null,
        actor_account_id: operator.id,
        before: { companyCreation: 'everyone' },
        after: { companyCreation: 'platform_admins' },
      },
    ]);

    const before = await ctx.database.db.selectFrom('companies').select('id').execute();
    expect((await call(ctx, CREATION, {}, { token: acme.token })).data).toEqual({
      mode: 'platform_admins',
      mayCreate: false,
    });
    const refused = await call(
      ctx,
      '/api/v1/manage/company/create',
      { name: 'Second' },
      { token: acme.token },
    );
    expect(refused).toMatchObject({ code: 403, data: { reason: 'company.create_platform_only' } });
    expect(refused.msg).toContain('ask your platform administrator');
    const refusedZh = await call(
      ctx,
      '/api/v1/manage/company/create',
      { name: 'Second' },
      { token: acme.token, lang: 'zh' },
    );
    expect(refusedZh.msg).toBe('本平台仅允许平台管理员创建企业：请联系平台管理员为您创建');
    expect(await ctx.database.db.selectFrom('companies').select('id').execute()).toEqual(before);

    const operatorDev = await sessionFor(ctx, operator.id, 'dev');
    expect(
      (await call(ctx, '/api/v1/manage/company/create', { name: 'Operated' }, { token: operatorDev })).code,
    ).toBe(200);
  });

  it('refuses an unknown mode with a clear message and keeps the setting', async () => {
    const answer = await call(ctx, SET_CREATION, { mode: 'nobody' }, { token: operator.token, lang: 'zh' });
    expect(answer.code).toBe(400);
    expect(answer.msg).toContain('请选择谁可以创建企业');
    expect((await call<{ mode: string }>(ctx, CREATION, {}, { token: operator.token })).data.mode).toBe(
      'platform_admins',
    );
    await call(ctx, SET_CREATION, { mode: 'everyone' }, { token: operator.token });
    expect(
      (await call(ctx, '/api/v1/manage/company/create', { name: 'Third' }, { token: acme.token })).code,
    ).toBe(200);
  });
});
