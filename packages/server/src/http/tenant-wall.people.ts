import { generateKeyPairSync } from 'node:crypto';
import { defaultSafetySettings } from '@tessera/contract';
import { newId } from '../lib/ids.ts';
import { call, type ownerWithCompany, type TestContext } from '../test/harness.ts';

/**
 * Tenant-wall probes of company B's people (tenant-wall.test.ts): B's department with B's member
 * in it, that member, an import task of B and a bound MFA factor of the member, named by id in
 * A's probes; B's tree, B's view of the member and the factor must come out unchanged, and B's
 * safety settings unstored (A's probes send valid settings).
 */
export interface CompanyB {
  ctx: TestContext;
  b: Awaited<ReturnType<typeof ownerWithCompany>>;
  /** B's member, an administrator of B. */
  bMemberId: string;
}

export function peopleWall(context: () => CompanyB) {
  let departmentId = '';
  let importTaskId = '';
  let factorId = '';
  const before = { tree: '', user: '' };
  const asB = () => ({ token: context().b.token, companyId: context().b.companyId });

  const treeOfB = async () =>
    JSON.stringify((await call(context().ctx, '/api/v1/manage/department/tree', {}, asB())).data);
  const userOfB = async () =>
    JSON.stringify(
      (await call(context().ctx, '/api/v1/manage/user/detail', { userId: context().bMemberId }, asB())).data,
    );
  /** B's member's factors: the bound one, and nothing bound by A's probes. */
  const factorOfB = async () =>
    (
      await context()
        .ctx.database.db.selectFrom('mfa_factors')
        .select('id')
        .where('account_id', '=', context().bMemberId)
        .execute()
    )
      .map((f) => f.id)
      .join();
  const safetyOfB = () =>
    context()
      .ctx.database.db.selectFrom('company_safety')
      .selectAll()
      .where('company_id', '=', context().b.companyId)
      .execute();

  async function setUp() {
    const { ctx, b, bMemberId } = context();
    const tree = await call<{ tree: { departmentId: string } }>(
      ctx,
      '/api/v1/manage/department/tree',
      {},
      asB(),
    );
    const created = await call<{ departmentId: string }>(
      ctx,
      '/api/v1/manage/department/create',
      { name: 'Beta Secret Lab', parentId: tree.data.tree.departmentId },
      asB(),
    );
    departmentId = created.data.departmentId;
    await call(ctx, '/api/v1/manage/department/member/add', { departmentId, userIds: [bMemberId] }, asB());
    before.tree = await treeOfB();
    before.user = await userOfB();
    importTaskId = newId();
    await ctx.database.db
      .insertInto('import_tasks')
      .values({
        id: importTaskId,
        company_id: b.companyId,
        created_by: b.account.id,
        status: 'success',
        total: 1,
        created: 1,
      })
      .execute();
    factorId = newId();
    await ctx.database.db
      .insertInto('mfa_factors')
      .values({
        id: factorId,
        account_id: bMemberId,
        type: 'otp',
        name: 'OTP',
        status: 'bound',
        secret_sealed: 'x',
      })
      .execute();
  }

  const companyId = () => context().b.companyId;
  const memberId = () => context().bMemberId;
  const newPassword = { password: 'Planted-By-A-1', confirmPassword: 'Planted-By-A-1' };
  const probes: Record<string, () => unknown> = {
    // Departments.
    '/api/v1/manage/department/tree': () => ({ companyId: companyId() }),
    '/api/v1/manage/department/create': () => ({ name: 'Planted by A', parentId: departmentId }),
    '/api/v1/manage/department/update': () => ({ departmentId, name: 'Renamed by A' }),
    '/api/v1/manage/department/move': () => ({ departmentId, parentId: departmentId }),
    '/api/v1/manage/department/del': () => ({ departmentId }),
    '/api/v1/manage/department/member/add': () => ({ departmentId, userIds: [memberId()] }),
    '/api/v1/manage/department/member/remove': () => ({ departmentId, userIds: [memberId()] }),
    // Users.
    '/api/v1/manage/user/list': () => ({ companyId: companyId(), keyword: 'beta', departmentId }),
    '/api/v1/manage/user/create': () => ({
      username: 'planted-by-a',
      ...newPassword,
      departmentIds: [departmentId],
    }),
    '/api/v1/manage/user/password-rules': () => ({ companyId: companyId() }),
    '/api/v1/manage/user/admin/create-dev-user': () => ({ username: 'dev-by-a', ...newPassword }),
    '/api/v1/manage/user/update': () => ({ userId: memberId(), name: 'Renamed by A', departmentIds: [] }),
    '/api/v1/manage/user/del': () => ({ userId: memberId() }),
    '/api/v1/manage/user/detail': () => ({ userId: memberId() }),
    '/api/v1/manage/user/status': () => ({ userId: memberId(), status: 'disabled' }),
    '/api/v1/manage/user/password/reset': () => ({ userId: memberId(), ...newPassword }),
    '/api/v1/manage/user/photo': () => ({ userId: memberId() }),
    '/api/v1/manage/user/log': () => ({ userId: memberId() }),
    '/api/v1/manage/user/self-details': () => ({ userId: memberId() }),
    // Mail: B's member named by id (the test app has no SMTP; the answer must still be "not found").
    '/api/v1/manage/user/send-login-url': () => ({ userId: memberId() }),
    '/api/v1/manage/user/email': () => ({ userId: memberId() }),
    // User import: the downloads are read back as text (tenant-wall.test.ts).
    '/api/v1/manage/user/batch-task/create': () => ({}),
    '/api/v1/manage/user/batch-task': () => ({ taskId: importTaskId }),
    '/api/v1/manage/user/batch-task/template': () => ({ language: 'en' }),
    '/api/v1/manage/user/export': () => ({ keyword: 'beta' }),
    // MFA (modules/mfa).
    '/api/v1/manage/mfa/admin/user': () => ({ userId: memberId() }),
    '/api/v1/manage/mfa/admin/user/del': () => ({ userId: memberId(), factorId }),
    '/api/v1/manage/mfa/admin/user/bind': () => ({
      userId: memberId(),
      type: 'ukey_pubkey',
      publicKey: generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({
        type: 'spki',
        format: 'pem',
      }),
    }),
    // Safety (modules/safety).
    '/api/v1/manage/safety/general': () => ({ companyId: companyId() }),
    '/api/v1/manage/safety/general/update': () => ({
      companyId: companyId(),
      loginMethods: defaultSafetySettings.loginMethods,
      password: defaultSafetySettings.password,
      lockout: defaultSafetySettings.lockout,
    }),
    '/api/v1/manage/safety/mfa': () => ({ companyId: companyId() }),
    '/api/v1/manage/safety/mfa/update': () => ({ companyId: companyId(), ...defaultSafetySettings.mfa }),
  };

  return {
    setUp,
    probes,
    secrets: () => ['Beta Secret Lab', departmentId, importTaskId],
    before,
    departmentId: () => departmentId,
    factorId: () => factorId,
    treeOfB,
    userOfB,
    factorOfB,
    safetyOfB,
  };
}
