import { call } from '../test/harness.ts';
import type { CompanyB } from './tenant-wall.people.ts';

/**
 * Tenant-wall probes of company B's applications (tenant-wall.test.ts), named by id in A's
 * probes: a form-filling app of B with an API access account and assignments of B's member and
 * department (modules/app), and a SAML app of B with its service provider settings
 * (modules/saml). B's view of each, and B's SAML signing certificates, must come out unchanged.
 */
/** Creates an application of B; answers its id. */
async function createAppOfB(context: () => CompanyB, name: string, protocol: 'form' | 'saml') {
  const { ctx, b } = context();
  const created = await call<{ app: { appId: string } }>(
    ctx,
    '/api/v1/manage/app/create',
    { name, protocol },
    b,
  );
  return created.data.app.appId;
}

export function appWall(context: () => CompanyB & { bDepartmentId: string }) {
  let appId = '';
  let apiAccountId = '';
  const asB = () => ({ token: context().b.token, companyId: context().b.companyId });

  const stateOfB = async () => {
    const { ctx } = context();
    const detail = await call(ctx, '/api/v1/manage/app/detail', { appId }, asB());
    const accounts = await call(ctx, '/api/v1/manage/app/api-account/list', { appId }, asB());
    const assigned = await call(ctx, '/api/v1/manage/app/assignment/list', { appId }, asB());
    const form = await call(ctx, '/api/v1/manage/app/form/detail', { appId }, asB());
    const groups = await call(ctx, '/api/v1/manage/app/assignment/group/list', { appId }, asB());
    return JSON.stringify([detail.data, accounts.data, assigned.data, form.data, groups.data]);
  };

  async function setUp() {
    const { ctx, bMemberId, bDepartmentId } = context();
    appId = await createAppOfB(context, 'Beta Secret App', 'form');
    await call(
      ctx,
      '/api/v1/manage/app/form/update',
      {
        appId,
        loginUrl: 'https://beta.example/login',
        usernameField: 'u',
        passwordField: 'p',
        credentialMode: 'user',
      },
      asB(),
    );
    const account = await call<{ account: { accountId: string } }>(
      ctx,
      '/api/v1/manage/app/api-account/create',
      { appId, name: 'Beta robot' },
      asB(),
    );
    apiAccountId = account.data.account.accountId;
    await call(ctx, '/api/v1/manage/app/assignment/add', { appId, userIds: [bMemberId] }, asB());
    await call(
      ctx,
      '/api/v1/manage/app/assignment/group/add',
      { appId, departmentIds: [bDepartmentId] },
      asB(),
    );
  }

  const userIds = () => [context().bMemberId];
  const departmentIds = () => [context().bDepartmentId];
  const probes: Record<string, () => unknown> = {
    '/api/v1/manage/app/list': () => ({ keyword: 'Beta' }),
    '/api/v1/manage/app/create': () => ({ name: 'Planted by A' }),
    '/api/v1/manage/app/detail': () => ({ appId }),
    '/api/v1/manage/app/update': () => ({ appId, name: 'Renamed by A', defaultAccess: 'prohibit_all' }),
    '/api/v1/manage/app/status': () => ({ appId, status: 'opened' }),
    '/api/v1/manage/app/del': () => ({ appId }),
    '/api/v1/manage/app/secret/reset': () => ({ appId }),
    '/api/v1/manage/app/logo': () => ({ appId }),
    '/api/v1/manage/app/assignment/list': () => ({ appId }),
    '/api/v1/manage/app/assignment/add': () => ({ appId, userIds: userIds() }),
    '/api/v1/manage/app/assignment/del': () => ({ appId, userIds: userIds() }),
    '/api/v1/manage/app/assignment/group/list': () => ({ appId }),
    '/api/v1/manage/app/assignment/group/add': () => ({ appId, departmentIds: departmentIds() }),
    '/api/v1/manage/app/assignment/group/del': () => ({ appId, departmentIds: departmentIds() }),
    '/api/v1/manage/app/api-account/list': () => ({ appId }),
    '/api/v1/manage/app/api-account/create': () => ({ appId, name: 'Planted by A' }),
    '/api/v1/manage/app/api-account/update': () => ({ appId, accountId: apiAccountId, name: 'By A' }),
    '/api/v1/manage/app/api-account/secret/reset': () => ({ appId, accountId: apiAccountId }),
    '/api/v1/manage/app/api-account/del': () => ({ appId, accountId: apiAccountId }),
    '/api/v1/manage/app/form/detail': () => ({ appId }),
    '/api/v1/manage/app/form/update': () => ({
      appId,
      loginUrl: 'https://a.example/login',
      usernameField: 'x',
      passwordField: 'y',
      credentialMode: 'shared',
      sharedPassword: 'planted',
    }),
  };

  return { setUp, stateOfB, probes, secrets: () => ['Beta Secret App', 'Beta robot'], appId: () => appId };
}

/** B's SAML app (modules/saml): its settings and B's signing certificates. */
export function samlAppWall(context: () => CompanyB) {
  let appId = '';
  const asB = () => ({ token: context().b.token, companyId: context().b.companyId });

  const stateOfB = async () => {
    const { ctx } = context();
    const detail = await call(ctx, '/api/v1/manage/app/saml/detail', { appId }, asB());
    const idp = await call(ctx, '/api/v1/manage/app/saml/idp', {}, asB());
    return JSON.stringify([detail.data, idp.data]);
  };

  async function setUp() {
    const { ctx } = context();
    appId = await createAppOfB(context, 'Beta Secret Wiki', 'saml');
    await call(
      ctx,
      '/api/v1/manage/app/saml/update',
      {
        appId,
        entityId: 'https://wiki.beta.example/sp',
        acs: [{ url: 'https://wiki.beta.example/acs', index: 0 }],
      },
      asB(),
    );
    await call(ctx, '/api/v1/manage/app/saml/key/prepare', {}, asB());
  }

  const probes: Record<string, () => unknown> = {
    '/api/v1/manage/app/saml/detail': () => ({ appId }),
    '/api/v1/manage/app/saml/update': () => ({ appId, entityId: 'https://planted.example' }),
    '/api/v1/manage/app/saml/metadata/import': () => ({
      appId,
      xml: '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://planted.example"/>',
    }),
    // The identity provider calls act on the company in the header only (A's own keys).
    '/api/v1/manage/app/saml/idp': () => ({}),
    '/api/v1/manage/app/saml/key/prepare': () => ({}),
    '/api/v1/manage/app/saml/key/activate': () => ({}),
    '/api/v1/manage/app/saml/key/discard': () => ({}),
  };

  return { setUp, stateOfB, probes, secrets: () => ['Beta Secret Wiki', 'wiki.beta.example'] };
}
