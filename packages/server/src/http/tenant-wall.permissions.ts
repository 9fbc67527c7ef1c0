import { call } from '../test/harness.ts';
import type { CompanyB } from './tenant-wall.people.ts';

/**
 * Tenant-wall probes of permissions and console roles (issue 15; tenant-wall.test.ts): B's
 * resource of B's app, a role with B's member, an authorization and a console role, named by id
 * in A's probes; B's view of them must come out unchanged.
 */
export function permissionWall(context: () => CompanyB & { bAppId: string }) {
  let resourceId = '';
  let roleId = '';
  let authorizationId = '';
  let consoleRoleId = '';
  const asB = () => ({ token: context().b.token, companyId: context().b.companyId });

  const stateOfB = async () => {
    const { ctx } = context();
    const answers = await Promise.all([
      call(ctx, '/api/v1/manage/permission/resource/list', {}, asB()),
      call(ctx, '/api/v1/manage/permission/role/list', {}, asB()),
      call(ctx, '/api/v1/manage/permission/role/member/list', { roleId }, asB()),
      call(ctx, '/api/v1/manage/permission/authorization/list', {}, asB()),
      call(ctx, '/api/v1/manage/console-role/list', {}, asB()),
    ]);
    return JSON.stringify(answers.map((answer) => answer.data));
  };

  async function setUp() {
    const { ctx, bMemberId, bAppId } = context();
    const resource = await call<{ resourceId: string }>(
      ctx,
      '/api/v1/manage/permission/resource/create',
      { appId: bAppId, name: 'beta-secret-resource', actions: ['read'] },
      asB(),
    );
    resourceId = resource.data.resourceId;
    const role = await call<{ roleId: string }>(
      ctx,
      '/api/v1/manage/permission/role/create',
      { name: 'Beta Secret Role', description: 'Beta only' },
      asB(),
    );
    roleId = role.data.roleId;
    await call(ctx, '/api/v1/manage/permission/role/member/add', { roleId, userIds: [bMemberId] }, asB());
    const authorization = await call<{ authorizationId: string }>(
      ctx,
      '/api/v1/manage/permission/authorization/create',
      { appId: bAppId, subject: { type: 'role', id: roleId }, resourceIds: [resourceId] },
      asB(),
    );
    authorizationId = authorization.data.authorizationId;
    const consoleRole = await call<{ roleId: string }>(
      ctx,
      '/api/v1/manage/console-role/create',
      { name: 'Beta Secret Desk', grants: { groups: { user: 'read' } } },
      asB(),
    );
    consoleRoleId = consoleRole.data.roleId;
  }

  const appId = () => context().bAppId;
  const memberId = () => context().bMemberId;
  const authorizationOfB = () => ({
    appId: appId(),
    subject: { type: 'role', id: roleId },
    resourceIds: [resourceId],
  });
  const probes: Record<string, () => unknown> = {
    '/api/v1/manage/permission/resource/list': () => ({ appId: appId(), keyword: 'beta' }),
    '/api/v1/manage/permission/resource/create': () => ({ appId: appId(), name: 'planted-by-a' }),
    '/api/v1/manage/permission/resource/update': () => ({ resourceId, name: 'renamed-by-a' }),
    '/api/v1/manage/permission/resource/del': () => ({ resourceId }),
    '/api/v1/manage/permission/role/list': () => ({ keyword: 'beta' }),
    '/api/v1/manage/permission/role/detail': () => ({ roleId }),
    '/api/v1/manage/permission/role/create': () => ({
      name: 'Role planted by A',
      description: 'Planted by A',
    }),
    '/api/v1/manage/permission/role/update': () => ({ roleId, name: 'Renamed by A' }),
    '/api/v1/manage/permission/role/del': () => ({ roleId }),
    '/api/v1/manage/permission/role/member/list': () => ({ roleId }),
    '/api/v1/manage/permission/role/member/add': () => ({ roleId, userIds: [memberId()] }),
    '/api/v1/manage/permission/role/member/remove': () => ({ roleId, userIds: [memberId()] }),
    '/api/v1/manage/permission/role/member/preview': () => ({ roleId, remove: [memberId()] }),
    '/api/v1/manage/permission/authorization/list': () => ({ appId: appId(), subjectId: roleId }),
    '/api/v1/manage/permission/authorization/create': authorizationOfB,
    '/api/v1/manage/permission/authorization/update': () => ({
      authorizationId,
      authorization: authorizationOfB(),
    }),
    '/api/v1/manage/permission/authorization/del': () => ({ authorizationId }),
    '/api/v1/manage/permission/authorization/preview': () => ({
      authorizationId,
      authorization: authorizationOfB(),
    }),
    '/api/v1/manage/permission/check': () => ({ userId: memberId(), resourceId, action: 'read' }),
    '/api/v1/manage/console-role/list': () => ({}),
    '/api/v1/manage/console-role/create': () => ({
      name: 'Desk planted by A',
      grants: { groups: { app: 'read' } },
    }),
    '/api/v1/manage/console-role/update': () => ({ roleId: consoleRoleId, name: 'Renamed by A' }),
    '/api/v1/manage/console-role/del': () => ({ roleId: consoleRoleId }),
    '/api/v1/manage/console-role/assign': () => ({ userId: memberId(), roleId: consoleRoleId }),
    '/api/v1/manage/company/my/access': () => ({ companyId: context().b.companyId }),
  };

  return {
    setUp,
    stateOfB,
    probes,
    secrets: () => [
      'beta-secret-resource',
      resourceId,
      'Beta Secret Role',
      roleId,
      authorizationId,
      'Beta Secret Desk',
      consoleRoleId,
    ],
  };
}
