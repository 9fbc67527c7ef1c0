import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  companyMember,
  ownerWithCompany,
  sessionFor,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';

/**
 * Issue 15: custom console roles (spec §6 permission groups). A help desk (users read and
 * credential resets) reaches exactly that; the role is given and taken under the one role rule;
 * a change of the role applies to its holders' next call; deleting it returns them to members.
 */
let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let helpDesk: string;
let desk: { id: string; username: string; token: string };

const asOwner = <T = Record<string, unknown>>(path: string, body: unknown = {}, lang?: string) =>
  call<T>(ctx, `/api/v1/manage/${path}`, body, { token: owner.token, companyId: owner.companyId, lang });
const asDesk = <T = Record<string, unknown>>(path: string, body: unknown = {}, lang?: string) =>
  call<T>(ctx, `/api/v1/manage/${path}`, body, { token: desk.token, companyId: owner.companyId, lang });
const roleCount = async () =>
  Number(
    (
      await ctx.database.db
        .selectFrom('console_roles')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

beforeAll(async () => {
  ctx = await startTestApp();
  owner = await ownerWithCompany(ctx, 'roles-owner');
});
afterAll(() => ctx.close());

describe('console roles', () => {
  it('need a name and at least one group, in English and Chinese, storing nothing', async () => {
    const before = await roleCount();
    expect(await asOwner('console-role/create', { grants: { groups: { user: 'read' } } })).toMatchObject({
      code: 400,
      msg: 'Please enter the console role name',
    });
    expect(await asOwner('console-role/create', { name: ' ', grants: { groups: {} } }, 'zh')).toMatchObject({
      code: 400,
      msg: '请输入控制台角色名称',
    });
    expect(
      await asOwner('console-role/create', { name: 'Nothing', grants: { groups: {}, abilities: [] } }, 'zh'),
    ).toMatchObject({
      code: 400,
      msg: '请至少选择一个权限组或能力',
    });
    expect(
      (await asOwner('console-role/create', { name: 'Odd', grants: { groups: { user: 'own' } } })).code,
    ).toBe(400);
    expect(await roleCount()).toBe(before);
  });

  it('make a delegated administrator who reaches only their groups', async () => {
    const created = await asOwner<{ roleId: string }>('console-role/create', {
      name: 'Help desk',
      description: 'Gets people back in',
      grants: { groups: { user: 'read' }, abilities: ['resetCredentials'] },
    });
    expect(created.code).toBe(200);
    helpDesk = created.data.roleId;
    expect(
      (await asOwner('console-role/create', { name: 'HELP DESK', grants: { groups: { log: 'read' } } })).data,
    ).toMatchObject({
      reason: 'console_role.name_taken',
    });
    expect(
      await asOwner('company/user/create', {
        username: 'desk.one',
        role: 'delegated_admin',
        password: 'Sunny-Day-42',
      }),
    ).toMatchObject({
      code: 400,
      data: { reason: 'console_role.required' },
    });
    const added = await asOwner<{ userId: string; role: string; consoleRole: { name: string } }>(
      'company/user/create',
      {
        username: 'desk.one',
        role: 'delegated_admin',
        consoleRoleId: helpDesk,
        password: 'Sunny-Day-42',
      },
    );
    expect(added.data).toMatchObject({ role: 'delegated_admin', consoleRole: { name: 'Help desk' } });
    desk = { id: added.data.userId, username: 'desk.one', token: await sessionFor(ctx, added.data.userId) };

    const companies = await call<{ list: { companyId: string }[] }>(
      ctx,
      '/api/v1/manage/company/my/list',
      {},
      { token: desk.token },
    );
    expect(companies.data.list.map((c) => c.companyId)).toEqual([owner.companyId]);
    expect((await asDesk('company/my/access')).data).toEqual({
      role: 'delegated_admin',
      consoleRole: { roleId: helpDesk, name: 'Help desk' },
      grants: { groups: { user: 'read' }, abilities: ['resetCredentials'] },
    });
    expect((await asOwner('company/my/access')).data).toMatchObject({ role: 'owner', consoleRole: null });

    const member = await companyMember(ctx, owner, 'desk.customer');
    expect((await asDesk('user/list')).code).toBe(200);
    const reset = await asDesk('user/password/reset', {
      userId: member.id,
      password: 'Fresh-Start-77',
      confirmPassword: 'Fresh-Start-77',
    });
    expect(reset.code, reset.msg).toBe(200);
    const refused = await asDesk('user/status', { userId: member.id, status: 'disabled' });
    expect(refused).toMatchObject({
      code: 403,
      msg: 'Your console role does not allow this (Users: manage); ask an administrator of the company',
      data: { reason: 'auth.group_forbidden' },
    });
    expect((await asDesk('safety/general', {}, 'zh')).msg).toBe(
      '您的控制台角色不允许此操作（安全：查看），请联系公司管理员',
    );
    // Within their groups, still never on anyone above a member.
    const admin = await asOwner<{ userId: string }>('company/user/create', {
      username: 'desk.admin',
      role: 'admin',
      password: 'Sunny-Day-42',
    });
    expect(
      (
        await asDesk('user/password/reset', {
          userId: admin.data.userId,
          password: 'Fresh-Start-77',
          confirmPassword: 'Fresh-Start-77',
        })
      ).data,
    ).toMatchObject({ reason: 'user.role_above_own' });
  });

  it('are given and taken under the role rule: never by a delegated administrator, never to an administrator', async () => {
    const member = await companyMember(ctx, owner, 'desk.two');
    const given = await asOwner('console-role/assign', { userId: member.id, roleId: helpDesk });
    expect(given.data).toMatchObject({ role: 'delegated_admin', consoleRole: { name: 'Help desk' } });
    const admins = await asOwner<{ list: { username: string; consoleRole: { name: string } | null }[] }>(
      'company/user',
      {
        keyword: 'desk.two',
      },
    );
    expect(admins.data.list).toMatchObject([{ username: 'desk.two', consoleRole: { name: 'Help desk' } }]);
    expect(
      (await asOwner('console-role/assign', { userId: owner.account.id, roleId: helpDesk })).data,
    ).toMatchObject({
      reason: 'console_role.not_for_admins',
    });
    // A delegated administrator with company settings to manage still cannot change roles or give them.
    await asOwner('console-role/update', {
      roleId: helpDesk,
      grants: { groups: { user: 'read', companySettings: 'manage' } },
    });
    expect((await asDesk('console-role/assign', { userId: member.id, roleId: null })).data).toMatchObject({
      reason: 'member.delegated_admin_forbidden',
    });
    expect(
      (await asDesk('console-role/create', { name: 'Mine', grants: { groups: { app: 'manage' } } })).data,
    ).toMatchObject({
      reason: 'member.delegated_admin_forbidden',
    });
    const taken = await asOwner('console-role/assign', { userId: member.id, roleId: null });
    expect(taken.data).toMatchObject({ role: 'member', consoleRole: null });
  });

  it("apply a change to their holders' next call, and return them to members when deleted", async () => {
    const member = await companyMember(ctx, owner, 'desk.three');
    await asOwner('console-role/update', {
      roleId: helpDesk,
      grants: { groups: { user: 'read' }, abilities: [] },
    });
    expect(
      (
        await asDesk('user/password/reset', {
          userId: member.id,
          password: 'Fresh-Start-77',
          confirmPassword: 'Fresh-Start-77',
        })
      ).code,
    ).toBe(403);
    const listed = await asOwner<{ list: { name: string; memberCount: number }[] }>('console-role/list');
    expect(listed.data.list).toMatchObject([{ name: 'Help desk', memberCount: 1 }]);
    expect((await asOwner('console-role/del', { roleId: helpDesk })).data).toMatchObject({
      membersReturned: 1,
    });
    expect((await asDesk('user/list')).data).toMatchObject({ reason: 'company.not_found' });
    const companies = await call<{ list: null }>(
      ctx,
      '/api/v1/manage/company/my/list',
      {},
      { token: desk.token },
    );
    expect(companies.data.list).toBeNull();
  });
});
