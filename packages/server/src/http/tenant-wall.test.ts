import { generateKeyPairSync } from 'node:crypto';
import { defaultSafetySettings } from '@tessera/contract';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../lib/ids.ts';
import { call, ownerWithCompany, startTestApp, type TestContext, TINY_PNG, upload } from '../test/harness.ts';
import { casWall } from './tenant-wall.cas.ts';
import { answerTo, signInToBothConsoles, stillSignedIn } from './tenant-wall.consoles.ts';
import { exchangeWall } from './tenant-wall.exchange.ts';
import { identitySourceWall } from './tenant-wall.identity-source.ts';
import { ldapServerWall } from './tenant-wall.ldap-server.ts';
import { oidcSourceWall } from './tenant-wall.oidc-source.ts';
import { pkiWall } from './tenant-wall.pki.ts';
import { provisioningWall } from './tenant-wall.provisioning.ts';
import { samlSourceWall } from './tenant-wall.saml-source.ts';
import { scimWall } from './tenant-wall.scim.ts';
import { smsWall } from './tenant-wall.sms.ts';

/**
 * Regression guard of the tenant wall (foundation issue): every `/api/v1/manage/*` call, made by
 * an administrator of company A, must give nothing of company B back, whether B is named in the
 * company_id header or by ids in the body. A call without a probe here fails the test. The wall
 * between the platform console (/admin/) and the company console (/dev/) is at the end.
 */
let ctx: TestContext;
let a: Awaited<ReturnType<typeof ownerWithCompany>>;
let b: Awaited<ReturnType<typeof ownerWithCompany>>;
let bMemberId: string;

beforeAll(async () => {
  // Listening: the consoles' wall signs in through the provider's pages.
  ctx = await startTestApp({ listen: true });
  a = await ownerWithCompany(ctx, 'alpha-owner', 'Alpha Works');
  b = await ownerWithCompany(ctx, 'beta-owner', 'Beta Secret Holdings');
  const member = await call<{ userId: string }>(
    ctx,
    '/api/v1/manage/company/user/create',
    { username: 'beta-staff', role: 'admin', password: 'Sunny-Day-42', email: 'staff@beta.example' },
    { token: b.token, companyId: b.companyId },
  );
  bMemberId = member.data.userId;
});
afterAll(() => ctx.close());

// ---- SAML identity sources (identity-source/saml-source): B's upstream identity provider
// (made before the identity-source probes' snapshot of B's sources, which lists it).
const samlSource = samlSourceWall(
  () => ctx,
  () => b,
);
let bSamlSourceBefore: string;
beforeAll(async () => {
  await samlSource.setUp();
  bSamlSourceBefore = await samlSource.stateOfB();
});

// ---- identity sources (modules/identity-source): probes and B's state in their own file.
const sources = identitySourceWall(() => ({ ctx, b }));
let bSourcesBefore: string;
const oidcSource = oidcSourceWall(() => ({ ctx, b }));
let bOidcSourceBefore: string;
beforeAll(async () => {
  await sources.setUp();
  // B's upstream OpenID Connect source (issue 33) is one of its sources too.
  await oidcSource.setUp();
  bSourcesBefore = await sources.stateOfB();
  bOidcSourceBefore = await oidcSource.stateOfB();
});

// ---- departments: a department of B, named by id in A's probes; B's tree must come out unchanged.
let bDepartmentId: string;
let bTreeBefore: string;
const treeOfB = async () =>
  JSON.stringify(
    (await call(ctx, '/api/v1/manage/department/tree', {}, { token: b.token, companyId: b.companyId })).data,
  );
beforeAll(async () => {
  const tree = await call<{ tree: { departmentId: string } }>(
    ctx,
    '/api/v1/manage/department/tree',
    {},
    { token: b.token, companyId: b.companyId },
  );
  const created = await call<{ departmentId: string }>(
    ctx,
    '/api/v1/manage/department/create',
    { name: 'Beta Secret Lab', parentId: tree.data.tree.departmentId },
    { token: b.token, companyId: b.companyId },
  );
  bDepartmentId = created.data.departmentId;
  await call(
    ctx,
    '/api/v1/manage/department/member/add',
    { departmentId: bDepartmentId, userIds: [bMemberId] },
    { token: b.token, companyId: b.companyId },
  );
  bTreeBefore = await treeOfB();
});
const departmentProbes: Record<string, () => unknown> = {
  '/api/v1/manage/department/tree': () => ({ companyId: b.companyId }),
  '/api/v1/manage/department/create': () => ({ name: 'Planted by A', parentId: bDepartmentId }),
  '/api/v1/manage/department/update': () => ({ departmentId: bDepartmentId, name: 'Renamed by A' }),
  '/api/v1/manage/department/move': () => ({ departmentId: bDepartmentId, parentId: bDepartmentId }),
  '/api/v1/manage/department/del': () => ({ departmentId: bDepartmentId }),
  '/api/v1/manage/department/member/add': () => ({ departmentId: bDepartmentId, userIds: [bMemberId] }),
  '/api/v1/manage/department/member/remove': () => ({ departmentId: bDepartmentId, userIds: [bMemberId] }),
};

// ---- users: B's user named by id in A's probes; B's view of that user must come out unchanged.
const userOfB = async () =>
  JSON.stringify(
    (
      await call(
        ctx,
        '/api/v1/manage/user/detail',
        { userId: bMemberId },
        { token: b.token, companyId: b.companyId },
      )
    ).data,
  );
let bUserBefore: string;
beforeAll(async () => {
  bUserBefore = await userOfB();
});
const newPassword = { password: 'Planted-By-A-1', confirmPassword: 'Planted-By-A-1' };
const userProbes: Record<string, () => unknown> = {
  '/api/v1/manage/user/list': () => ({
    companyId: b.companyId,
    keyword: 'beta',
    departmentId: bDepartmentId,
  }),
  '/api/v1/manage/user/create': () => ({
    username: 'planted-by-a',
    ...newPassword,
    departmentIds: [bDepartmentId],
  }),
  '/api/v1/manage/user/password-rules': () => ({ companyId: b.companyId }),
  '/api/v1/manage/user/admin/create-dev-user': () => ({ username: 'dev-by-a', ...newPassword }),
  '/api/v1/manage/user/update': () => ({ userId: bMemberId, name: 'Renamed by A', departmentIds: [] }),
  '/api/v1/manage/user/del': () => ({ userId: bMemberId }),
  '/api/v1/manage/user/detail': () => ({ userId: bMemberId }),
  '/api/v1/manage/user/status': () => ({ userId: bMemberId, status: 'disabled' }),
  '/api/v1/manage/user/password/reset': () => ({ userId: bMemberId, ...newPassword }),
  '/api/v1/manage/user/photo': () => ({ userId: bMemberId }),
  '/api/v1/manage/user/log': () => ({ userId: bMemberId }),
  '/api/v1/manage/user/self-details': () => ({ userId: bMemberId }),
};

// ---- user import: a task of B, named by id in A's probes; the downloads are read back as text.
let bImportTaskId: string;
beforeAll(async () => {
  bImportTaskId = newId();
  await ctx.database.db
    .insertInto('import_tasks')
    .values({
      id: bImportTaskId,
      company_id: b.companyId,
      created_by: b.account.id,
      status: 'success',
      total: 1,
      created: 1,
    })
    .execute();
});
const importProbes: Record<string, () => unknown> = {
  '/api/v1/manage/user/batch-task/create': () => ({}),
  '/api/v1/manage/user/batch-task': () => ({ taskId: bImportTaskId }),
  '/api/v1/manage/user/batch-task/template': () => ({ language: 'en' }),
  '/api/v1/manage/user/export': () => ({ keyword: 'beta' }),
};
/** A download answers with an .xlsx file: its cells, as text; an error answers with the envelope. */
async function downloadAsText(path: string, body: unknown, companyId: string | undefined) {
  const response = await ctx.tessera.app.inject({
    method: 'POST',
    url: path,
    headers: {
      'content-type': 'application/json',
      access_token: a.token,
      ...(companyId ? { company_id: companyId } : {}),
    },
    payload: JSON.stringify(body),
  });
  if (response.headers['content-type']?.toString().startsWith('application/json')) return response.json();
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(response.rawPayload as unknown as ExcelJS.Buffer);
  const cells: string[] = [];
  for (const sheet of book.worksheets) sheet.eachRow((row) => row.eachCell((cell) => cells.push(cell.text)));
  return { code: response.statusCode, data: cells };
}

// ---- MFA (modules/mfa): a bound factor of B's user, named by id in A's probes; it must survive.
let bFactorId: string;
beforeAll(async () => {
  bFactorId = newId();
  await ctx.database.db
    .insertInto('mfa_factors')
    .values({
      id: bFactorId,
      account_id: bMemberId,
      type: 'otp',
      name: 'OTP',
      status: 'bound',
      secret_sealed: 'x',
    })
    .execute();
});
const mfaProbes: Record<string, () => unknown> = {
  '/api/v1/manage/mfa/admin/user': () => ({ userId: bMemberId }),
  '/api/v1/manage/mfa/admin/user/del': () => ({ userId: bMemberId, factorId: bFactorId }),
  '/api/v1/manage/mfa/admin/user/bind': () => ({
    userId: bMemberId,
    type: 'ukey_pubkey',
    publicKey: generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({
      type: 'spki',
      format: 'pem',
    }),
  }),
};
/** B's user's factors: the bound one, and nothing bound by A's probes. */
const factorOfB = async () =>
  (await ctx.database.db.selectFrom('mfa_factors').select('id').where('account_id', '=', bMemberId).execute())
    .map((f) => f.id)
    .join();

// ---- safety (modules/safety): A's probes send valid settings; B's must stay unstored (the defaults).
const safetyProbes: Record<string, () => unknown> = {
  '/api/v1/manage/safety/general': () => ({ companyId: b.companyId }),
  '/api/v1/manage/safety/general/update': () => ({
    companyId: b.companyId,
    loginMethods: defaultSafetySettings.loginMethods,
    password: defaultSafetySettings.password,
    lockout: defaultSafetySettings.lockout,
  }),
  '/api/v1/manage/safety/mfa': () => ({ companyId: b.companyId }),
  '/api/v1/manage/safety/mfa/update': () => ({ companyId: b.companyId, ...defaultSafetySettings.mfa }),
};
const safetyOfB = () =>
  ctx.database.db.selectFrom('company_safety').selectAll().where('company_id', '=', b.companyId).execute();

// ---- applications (modules/app): an app of B with an API account and an assignment, named by id
// in A's probes; B's view of it must come out unchanged.
let bAppId: string;
let bApiAccountId: string;
let bAppBefore: string;
const appOfB = async () => {
  const asB = { token: b.token, companyId: b.companyId };
  const detail = await call(ctx, '/api/v1/manage/app/detail', { appId: bAppId }, asB);
  const accounts = await call(ctx, '/api/v1/manage/app/api-account/list', { appId: bAppId }, asB);
  const assigned = await call(ctx, '/api/v1/manage/app/assignment/list', { appId: bAppId }, asB);
  const form = await call(ctx, '/api/v1/manage/app/form/detail', { appId: bAppId }, asB);
  const groups = await call(ctx, '/api/v1/manage/app/assignment/group/list', { appId: bAppId }, asB);
  return JSON.stringify([detail.data, accounts.data, assigned.data, form.data, groups.data]);
};
beforeAll(async () => {
  const asB = { token: b.token, companyId: b.companyId };
  const created = await call<{ app: { appId: string } }>(
    ctx,
    '/api/v1/manage/app/create',
    { name: 'Beta Secret App', protocol: 'form' },
    asB,
  );
  bAppId = created.data.app.appId;
  await call(
    ctx,
    '/api/v1/manage/app/form/update',
    {
      appId: bAppId,
      loginUrl: 'https://beta.example/login',
      usernameField: 'u',
      passwordField: 'p',
      credentialMode: 'user',
    },
    asB,
  );
  const account = await call<{ account: { accountId: string } }>(
    ctx,
    '/api/v1/manage/app/api-account/create',
    { appId: bAppId, name: 'Beta robot' },
    asB,
  );
  bApiAccountId = account.data.account.accountId;
  await call(ctx, '/api/v1/manage/app/assignment/add', { appId: bAppId, userIds: [bMemberId] }, asB);
  await call(
    ctx,
    '/api/v1/manage/app/assignment/group/add',
    { appId: bAppId, departmentIds: [bDepartmentId] },
    asB,
  );
  bAppBefore = await appOfB();
});
const appProbes: Record<string, () => unknown> = {
  '/api/v1/manage/app/list': () => ({ keyword: 'Beta' }),
  '/api/v1/manage/app/create': () => ({ name: 'Planted by A' }),
  '/api/v1/manage/app/detail': () => ({ appId: bAppId }),
  '/api/v1/manage/app/update': () => ({ appId: bAppId, name: 'Renamed by A', defaultAccess: 'prohibit_all' }),
  '/api/v1/manage/app/status': () => ({ appId: bAppId, status: 'opened' }),
  '/api/v1/manage/app/del': () => ({ appId: bAppId }),
  '/api/v1/manage/app/secret/reset': () => ({ appId: bAppId }),
  '/api/v1/manage/app/logo': () => ({ appId: bAppId }),
  '/api/v1/manage/app/assignment/list': () => ({ appId: bAppId }),
  '/api/v1/manage/app/assignment/add': () => ({ appId: bAppId, userIds: [bMemberId] }),
  '/api/v1/manage/app/assignment/del': () => ({ appId: bAppId, userIds: [bMemberId] }),
  '/api/v1/manage/app/assignment/group/list': () => ({ appId: bAppId }),
  '/api/v1/manage/app/assignment/group/add': () => ({ appId: bAppId, departmentIds: [bDepartmentId] }),
  '/api/v1/manage/app/assignment/group/del': () => ({ appId: bAppId, departmentIds: [bDepartmentId] }),
  '/api/v1/manage/app/api-account/list': () => ({ appId: bAppId }),
  '/api/v1/manage/app/api-account/create': () => ({ appId: bAppId, name: 'Planted by A' }),
  '/api/v1/manage/app/api-account/update': () => ({ appId: bAppId, accountId: bApiAccountId, name: 'By A' }),
  '/api/v1/manage/app/api-account/secret/reset': () => ({ appId: bAppId, accountId: bApiAccountId }),
  '/api/v1/manage/app/api-account/del': () => ({ appId: bAppId, accountId: bApiAccountId }),
  '/api/v1/manage/app/form/detail': () => ({ appId: bAppId }),
  '/api/v1/manage/app/form/update': () => ({
    appId: bAppId,
    loginUrl: 'https://a.example/login',
    usernameField: 'x',
    passwordField: 'y',
    credentialMode: 'shared',
    sharedPassword: 'planted',
  }),
};

// ---- Exchange (modules/exchange): a device of B's person and B's registration token.
const exchange = exchangeWall(
  () => ctx,
  () => b,
  () => bMemberId,
);
let bExchangeBefore: string;
beforeAll(async () => {
  await exchange.setUp();
  bExchangeBefore = await exchange.stateOfB();
});

// ---- RADIUS and certificate authorities (modules/radius, modules/ca): B's client, CA and certificate.
const pki = pkiWall(
  () => ctx,
  () => b,
  () => bMemberId,
);
let bPkiBefore: string;
beforeAll(async () => {
  await pki.setUp();
  bPkiBefore = await pki.stateOfB();
});

// ---- CAS (modules/cas): B's CAS application and its service URL.
const cas = casWall(
  () => ctx,
  () => b,
);
let bCasBefore: string;
beforeAll(async () => {
  await cas.setUp();
  bCasBefore = await cas.stateOfB();
});

// ---- Provisioning (modules/provisioning): B's SCIM target, its address and token.
const provisioning = provisioningWall(
  () => ctx,
  () => b,
);
let bProvisioningBefore: string;
beforeAll(async () => {
  await provisioning.setUp();
  bProvisioningBefore = await provisioning.stateOfB();
});

// ---- LDAP applications (modules/ldap-server): B's service account and its base DN.
const ldapServer = ldapServerWall(
  () => ctx,
  () => b,
);
let bLdapBefore: string;
beforeAll(async () => {
  await ldapServer.setUp();
  bLdapBefore = await ldapServer.stateOfB();
});

// ---- SMS (modules/sms): B's own sign name and template.
const sms = smsWall(
  () => ctx,
  () => b,
);
let bSmsBefore: string;
beforeAll(async () => {
  await sms.setUp();
  bSmsBefore = await sms.stateOfB();
});

// ---- SCIM tokens (modules/scim): B's token and its password setting.
const scim = scimWall(
  () => ctx,
  () => b,
);
let bScimBefore: string;
beforeAll(async () => {
  await scim.setUp();
  bScimBefore = await scim.stateOfB();
});

// ---- logs, dashboard, syslog, brand (issue 16): B's sign-ins and changes, named by ids in A's
// probes; B's syslog and brand settings must stay as they were (unset).
beforeAll(async () => {
  await ctx.database.db
    .insertInto('login_events')
    .values({
      id: newId(),
      company_id: b.companyId,
      account_id: bMemberId,
      identifier: 'beta-staff',
      client_id: null,
      ip: '81.2.69.142',
      user_agent: null,
      result: 'failure',
      failure_cause: 'wrong_password',
      country: 'GB',
    })
    .execute();
});
const windowBody = () => ({ companyId: b.companyId, window: 'month' });
const logProbes: Record<string, () => unknown> = {
  '/api/v1/manage/index/user-data-overview': () => ({ companyId: b.companyId }),
  '/api/v1/manage/index/user-login-trend': windowBody,
  '/api/v1/manage/index/user-mfa-info': () => ({ companyId: b.companyId }),
  '/api/v1/manage/index/app-login-count': windowBody,
  '/api/v1/manage/index/app-login-trend': windowBody,
  '/api/v1/manage/index/app-login-count-ratio': windowBody,
  '/api/v1/manage/index/new-fail-list': () => ({ companyId: b.companyId }),
  '/api/v1/manage/index/fail-trend': windowBody,
  '/api/v1/manage/index/login-hotspot': () => ({ companyId: b.companyId, scope: 'world' }),
  '/api/v1/manage/index/new-login-list': () => ({ companyId: b.companyId }),
  '/api/v1/manage/log/sign-in/list': () => ({ companyId: b.companyId, userId: bMemberId, appId: bAppId }),
  '/api/v1/manage/log/admin/list': () => ({ companyId: b.companyId, actorId: b.account.id }),
  '/api/v1/manage/log/admin/actions': () => ({ companyId: b.companyId }),
  '/api/v1/manage/log/export': () => ({ view: 'signin', format: 'xlsx', userId: bMemberId }),
  '/api/v1/manage/log/settings': () => ({ companyId: b.companyId }),
  '/api/v1/manage/log/settings/update': () => ({ companyId: b.companyId, retentionDays: 1 }),
  '/api/v1/manage/company/syslog/conf': () => ({ companyId: b.companyId }),
  '/api/v1/manage/company/syslog/update': () => ({
    companyId: b.companyId,
    enabled: true,
    protocol: 'udp',
    host: '127.0.0.1',
    port: 514,
    tag: 'planted',
  }),
  '/api/v1/manage/company/syslog/status': () => ({ companyId: b.companyId }),
  '/api/v1/manage/brand/detail': () => ({ companyId: b.companyId }),
  '/api/v1/manage/brand/update': () => ({ companyId: b.companyId, title: 'Planted by A' }),
  '/api/v1/manage/brand/preview': () => ({ companyId: b.companyId, title: 'Planted by A' }),
  '/api/v1/manage/brand/logo': () => ({}),
  '/api/v1/manage/brand/background': () => ({}),
};
const settingsOfB = async () =>
  Promise.all([
    ctx.database.db.selectFrom('company_syslog').selectAll().where('company_id', '=', b.companyId).execute(),
    ctx.database.db.selectFrom('company_brand').selectAll().where('company_id', '=', b.companyId).execute(),
    ctx.database.db
      .selectFrom('company_log_settings')
      .selectAll()
      .where('company_id', '=', b.companyId)
      .execute(),
  ]);
// ---- permissions and console roles (issue 15): B's resource, role, authorization and console
// role, named by id in A's probes; B's view of them must come out unchanged.
let bResourceId: string;
let bRoleId: string;
let bAuthorizationId: string;
let bConsoleRoleId: string;
let bPermissionsBefore: string;
const permissionsOfB = async () => {
  const asB = { token: b.token, companyId: b.companyId };
  const answers = await Promise.all([
    call(ctx, '/api/v1/manage/permission/resource/list', {}, asB),
    call(ctx, '/api/v1/manage/permission/role/list', {}, asB),
    call(ctx, '/api/v1/manage/permission/role/member/list', { roleId: bRoleId }, asB),
    call(ctx, '/api/v1/manage/permission/authorization/list', {}, asB),
    call(ctx, '/api/v1/manage/console-role/list', {}, asB),
  ]);
  return JSON.stringify(answers.map((answer) => answer.data));
};
beforeAll(async () => {
  const asB = { token: b.token, companyId: b.companyId };
  const resource = await call<{ resourceId: string }>(
    ctx,
    '/api/v1/manage/permission/resource/create',
    { appId: bAppId, name: 'beta-secret-resource', actions: ['read'] },
    asB,
  );
  bResourceId = resource.data.resourceId;
  const role = await call<{ roleId: string }>(
    ctx,
    '/api/v1/manage/permission/role/create',
    { name: 'Beta Secret Role', description: 'Beta only' },
    asB,
  );
  bRoleId = role.data.roleId;
  await call(
    ctx,
    '/api/v1/manage/permission/role/member/add',
    { roleId: bRoleId, userIds: [bMemberId] },
    asB,
  );
  const authorization = await call<{ authorizationId: string }>(
    ctx,
    '/api/v1/manage/permission/authorization/create',
    { appId: bAppId, subject: { type: 'role', id: bRoleId }, resourceIds: [bResourceId] },
    asB,
  );
  bAuthorizationId = authorization.data.authorizationId;
  const consoleRole = await call<{ roleId: string }>(
    ctx,
    '/api/v1/manage/console-role/create',
    { name: 'Beta Secret Desk', grants: { groups: { user: 'read' } } },
    asB,
  );
  bConsoleRoleId = consoleRole.data.roleId;
  bPermissionsBefore = await permissionsOfB();
});
const authorizationOfB = () => ({
  appId: bAppId,
  subject: { type: 'role', id: bRoleId },
  resourceIds: [bResourceId],
});
const permissionProbes: Record<string, () => unknown> = {
  '/api/v1/manage/permission/resource/list': () => ({ appId: bAppId, keyword: 'beta' }),
  '/api/v1/manage/permission/resource/create': () => ({ appId: bAppId, name: 'planted-by-a' }),
  '/api/v1/manage/permission/resource/update': () => ({ resourceId: bResourceId, name: 'renamed-by-a' }),
  '/api/v1/manage/permission/resource/del': () => ({ resourceId: bResourceId }),
  '/api/v1/manage/permission/role/list': () => ({ keyword: 'beta' }),
  '/api/v1/manage/permission/role/detail': () => ({ roleId: bRoleId }),
  '/api/v1/manage/permission/role/create': () => ({ name: 'Role planted by A', description: 'Planted by A' }),
  '/api/v1/manage/permission/role/update': () => ({ roleId: bRoleId, name: 'Renamed by A' }),
  '/api/v1/manage/permission/role/del': () => ({ roleId: bRoleId }),
  '/api/v1/manage/permission/role/member/list': () => ({ roleId: bRoleId }),
  '/api/v1/manage/permission/role/member/add': () => ({ roleId: bRoleId, userIds: [bMemberId] }),
  '/api/v1/manage/permission/role/member/remove': () => ({ roleId: bRoleId, userIds: [bMemberId] }),
  '/api/v1/manage/permission/role/member/preview': () => ({ roleId: bRoleId, remove: [bMemberId] }),
  '/api/v1/manage/permission/authorization/list': () => ({ appId: bAppId, subjectId: bRoleId }),
  '/api/v1/manage/permission/authorization/create': authorizationOfB,
  '/api/v1/manage/permission/authorization/update': () => ({
    authorizationId: bAuthorizationId,
    authorization: authorizationOfB(),
  }),
  '/api/v1/manage/permission/authorization/del': () => ({ authorizationId: bAuthorizationId }),
  '/api/v1/manage/permission/authorization/preview': () => ({
    authorizationId: bAuthorizationId,
    authorization: authorizationOfB(),
  }),
  '/api/v1/manage/permission/check': () => ({ userId: bMemberId, resourceId: bResourceId, action: 'read' }),
  '/api/v1/manage/console-role/list': () => ({}),
  '/api/v1/manage/console-role/create': () => ({
    name: 'Desk planted by A',
    grants: { groups: { app: 'read' } },
  }),
  '/api/v1/manage/console-role/update': () => ({ roleId: bConsoleRoleId, name: 'Renamed by A' }),
  '/api/v1/manage/console-role/del': () => ({ roleId: bConsoleRoleId }),
  '/api/v1/manage/console-role/assign': () => ({ userId: bMemberId, roleId: bConsoleRoleId }),
  '/api/v1/manage/company/my/access': () => ({ companyId: b.companyId }),
};

// ---- SAML (modules/saml): a SAML app of B with its service provider settings, named by id in
// A's probes; B's settings and signing certificates must come out unchanged.
let bSamlAppId: string;
let bSamlBefore: string;
const samlOfB = async () => {
  const asB = { token: b.token, companyId: b.companyId };
  const detail = await call(ctx, '/api/v1/manage/app/saml/detail', { appId: bSamlAppId }, asB);
  const idp = await call(ctx, '/api/v1/manage/app/saml/idp', {}, asB);
  return JSON.stringify([detail.data, idp.data]);
};
beforeAll(async () => {
  const asB = { token: b.token, companyId: b.companyId };
  const created = await call<{ app: { appId: string } }>(
    ctx,
    '/api/v1/manage/app/create',
    { name: 'Beta Secret Wiki', protocol: 'saml' },
    asB,
  );
  bSamlAppId = created.data.app.appId;
  await call(
    ctx,
    '/api/v1/manage/app/saml/update',
    {
      appId: bSamlAppId,
      entityId: 'https://wiki.beta.example/sp',
      acs: [{ url: 'https://wiki.beta.example/acs', index: 0 }],
    },
    asB,
  );
  await call(ctx, '/api/v1/manage/app/saml/key/prepare', {}, asB);
  bSamlBefore = await samlOfB();
});
const samlProbes: Record<string, () => unknown> = {
  '/api/v1/manage/app/saml/detail': () => ({ appId: bSamlAppId }),
  '/api/v1/manage/app/saml/update': () => ({ appId: bSamlAppId, entityId: 'https://planted.example' }),
  '/api/v1/manage/app/saml/metadata/import': () => ({
    appId: bSamlAppId,
    xml: '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://planted.example"/>',
  }),
  // The identity provider calls act on the company in the header only (A's own keys).
  '/api/v1/manage/app/saml/idp': () => ({}),
  '/api/v1/manage/app/saml/key/prepare': () => ({}),
  '/api/v1/manage/app/saml/key/activate': () => ({}),
  '/api/v1/manage/app/saml/key/discard': () => ({}),
};

/** What B has that must never leak. */
const secretsOfB = () => [
  ...exchange.secrets(),
  ...pki.secrets(),
  b.companyId,
  'Beta Secret Holdings',
  'beta-staff',
  'staff@beta.example',
  bMemberId,
  'Beta Secret Lab',
  bDepartmentId,
  bImportTaskId,
  'Beta Secret App',
  'Beta robot',
  ...sources.secrets(),
  'beta-secret-resource',
  bResourceId,
  'Beta Secret Role',
  bRoleId,
  bAuthorizationId,
  'Beta Secret Desk',
  bConsoleRoleId,
  'Beta Secret Wiki',
  'wiki.beta.example',
  ...sms.secrets(),
  ...scim.secrets(),
  ...oidcSource.secrets(),
  ...cas.secrets(),
  ...provisioning.secrets(),
  ...ldapServer.secrets(),
  ...samlSource.secrets(),
];

/** The body each call is probed with: ids and names of company B wherever the call takes them. */
const probes: Record<string, () => unknown> = {
  '/api/v1/manage/company/my/list': () => ({}),
  '/api/v1/manage/company/create': () => ({ name: 'Alpha Two' }),
  '/api/v1/manage/company/detail': () => ({ companyId: b.companyId }),
  '/api/v1/manage/company/update': () => ({ companyId: b.companyId, name: 'Renamed by A' }),
  '/api/v1/manage/company/update/icon': () => ({}),
  '/api/v1/manage/company/user': () => ({ companyId: b.companyId, keyword: 'beta' }),
  '/api/v1/manage/company/user/create': () => ({
    companyId: b.companyId,
    username: 'beta-staff',
    role: 'member',
  }),
  '/api/v1/manage/company/user/del': () => ({ companyId: b.companyId, userId: bMemberId }),
  '/api/v1/manage/company/user/role': () => ({ companyId: b.companyId, userId: bMemberId, role: 'member' }),
  '/api/v1/manage/license/detail': () => ({ companyId: b.companyId }),
  '/api/v1/manage/license/import': () => ({ companyId: b.companyId, license: 'x' }),
  '/api/v1/manage/license/code': () => ({ companyId: b.companyId }),
  '/api/v1/manage/license/info': () => ({ companyId: b.companyId }),
  // Company quotas are the platform's: an administrator of A is refused, whatever B it names.
  '/api/v1/manage/license/quota/list': () => ({ keyword: 'Beta' }),
  '/api/v1/manage/license/quota/update': () => ({
    companyId: b.companyId,
    quotas: { user: 0, app: 0 },
    confirmBelowUsage: true,
  }),
  // The installation's setup is the platform's (issue 35): an administrator of A is refused and
  // changes nothing, whatever B it names; whether A's administrator may create a company is theirs.
  '/api/v1/manage/platform/setup': () => ({ companyId: b.companyId }),
  '/api/v1/manage/platform/company-creation': () => ({ companyId: b.companyId }),
  '/api/v1/manage/platform/company-creation/update': () => ({
    companyId: b.companyId,
    mode: 'platform_admins',
  }),
  '/api/v1/manage/system/info': () => ({ companyId: b.companyId }),
  '/api/v1/manage/system/third-party': () => ({ companyId: b.companyId }),
  '/api/v1/manage/company/key/reset': () => ({ companyId: b.companyId }),
  // Alias paths of spec §7 "also seen", probed as the calls they are paths of.
  '/api/v1/manage/user/company': () => ({}),
  '/api/v1/manage/company/dev': () => ({ companyId: b.companyId }),
  '/api/v1/manage/company/license': () => ({ companyId: b.companyId }),
  '/api/v1/manage/company/license/code': () => ({ companyId: b.companyId }),
  '/api/v1/manage/company/license/import': () => ({ companyId: b.companyId, license: 'x' }),
  ...departmentProbes,
  ...userProbes,
  ...importProbes,
  ...mfaProbes,
  ...safetyProbes,
  ...appProbes,
  ...exchange.probes,
  ...pki.probes,
  ...logProbes,
  ...sources.probes,
  ...permissionProbes,
  ...samlProbes,
  ...sms.probes,
  ...scim.probes,
  ...oidcSource.probes,
  ...cas.probes,
  ...provisioning.probes,
  ...ldapServer.probes,
  ...samlSource.probes,
  // Mail calls: B's user named by id (the test app has no SMTP; the answer must still be "not found").
  '/api/v1/manage/user/send-login-url': () => ({ userId: bMemberId }),
  '/api/v1/manage/user/email': () => ({ userId: bMemberId }),
};

async function send(path: string, body: unknown, companyId: string | undefined, isUpload: boolean) {
  if (
    path === '/api/v1/manage/user/batch-task/template' ||
    path === '/api/v1/manage/user/export' ||
    path === '/api/v1/manage/log/export'
  )
    return downloadAsText(path, body, companyId);
  if (isUpload) {
    return upload(
      ctx,
      path,
      { bytes: TINY_PNG, filename: 'x.png', type: 'image/png' },
      { token: a.token, companyId, fields: body as Record<string, string> },
    );
  }
  return call(ctx, path, body, { token: a.token, companyId });
}

async function stateOfB() {
  const detail = await call(
    ctx,
    '/api/v1/manage/company/detail',
    {},
    { token: b.token, companyId: b.companyId },
  );
  const members = await call(
    ctx,
    '/api/v1/manage/company/user',
    {},
    { token: b.token, companyId: b.companyId },
  );
  return JSON.stringify([detail.data, members.data]);
}

describe('tenant wall', () => {
  it('has a probe for every manage call that is bound', () => {
    const manage = ctx.tessera.boundCalls
      .filter((c) => c.path.startsWith('/api/v1/manage/'))
      .map((c) => c.path);
    expect(manage.length).toBeGreaterThan(0);
    expect(manage.filter((path) => !(path in probes))).toEqual([]);
  });

  it('gives nothing of company B to an administrator of company A', async () => {
    const before = await stateOfB();
    for (const def of ctx.tessera.boundCalls.filter((c) => c.path.startsWith('/api/v1/manage/'))) {
      const body = probes[def.path]!();
      const isUpload = Boolean(def.upload);
      if (def.tenant) {
        const asB = await send(def.path, body, b.companyId, isUpload);
        expect({ path: def.path, code: asB.code, reason: (asB.data as { reason?: string })?.reason }).toEqual(
          {
            path: def.path,
            code: 404,
            reason: 'company.not_found',
          },
        );
      }
      // Named by ids in the body while acting in company A.
      const asA = await send(def.path, body, def.tenant ? a.companyId : undefined, isUpload);
      const text = JSON.stringify(asA);
      for (const secret of secretsOfB()) {
        expect({ path: def.path, leaks: text.includes(secret) ? secret : null }).toEqual({
          path: def.path,
          leaks: null,
        });
      }
    }
    expect(await stateOfB()).toBe(before);
  });

  it("leaves B's user as it was", async () => {
    expect(await userOfB()).toBe(bUserBefore);
  });

  it("leaves B's MFA factor bound", async () => {
    expect(await factorOfB()).toBe(bFactorId);
  });

  it("leaves B's safety settings unstored", async () => {
    expect(await safetyOfB()).toEqual([]);
  });

  it("leaves B's application, its access accounts, assignments and form settings as they were", async () => {
    expect(await appOfB()).toBe(bAppBefore);
  });

  it("leaves B's SAML settings and signing certificates as they were", async () => {
    expect(await samlOfB()).toBe(bSamlBefore);
  });

  it("leaves B's quotas as they were", async () => {
    const quotas = await ctx.database.db
      .selectFrom('company_quotas')
      .select(['module', 'quota'])
      .where('company_id', '=', b.companyId)
      .orderBy('module')
      .execute();
    expect(quotas).toEqual([
      { module: 'app', quota: null },
      { module: 'user', quota: null },
    ]);
  });

  it("leaves B's devices, Exchange settings and device permissions as they were", async () => {
    expect(await exchange.stateOfB()).toBe(bExchangeBefore);
  });

  it("leaves B's RADIUS clients, certificate authorities and certificates as they were", async () => {
    expect(await pki.stateOfB()).toBe(bPkiBefore);
  });

  it("leaves B's syslog, brand and log settings unset", async () => {
    expect(await settingsOfB()).toEqual([[], [], []]);
  });

  it("leaves B's identity sources, their secrets and sync runs as they were", async () => {
    expect(await sources.stateOfB()).toBe(bSourcesBefore);
  });

  it("leaves B's resources, roles, authorizations and console roles as they were", async () => {
    expect(await permissionsOfB()).toBe(bPermissionsBefore);
  });

  it("leaves B's CAS application as it was", async () => {
    expect(await cas.stateOfB()).toBe(bCasBefore);
  });

  it("leaves B's provisioning target and runs as they were", async () => {
    expect(await provisioning.stateOfB()).toBe(bProvisioningBefore);
  });

  it("leaves B's LDAP application and its service account secret as they were", async () => {
    expect(await ldapServer.stateOfB()).toBe(bLdapBefore);
  });

  it("leaves B's SAML identity source as it was", async () => {
    expect(await samlSource.stateOfB()).toBe(bSamlSourceBefore);
  });

  it("leaves B's own SMS sign name and template as they were, and no provider set", async () => {
    expect(await sms.stateOfB()).toBe(bSmsBefore);
    expect(await oidcSource.stateOfB()).toBe(bOidcSourceBefore);
    expect(await ctx.database.db.selectFrom('sms_provider').selectAll().execute()).toEqual([]);
  });

  it("leaves B's SCIM token and password setting as they were", async () => {
    expect(await scim.stateOfB()).toBe(bScimBefore);
  });

  it("leaves B's department tree as it was", async () => {
    expect(await treeOfB()).toBe(bTreeBefore);
  });

  it('answers an unknown company like another company: not found', async () => {
    const response = await call(
      ctx,
      '/api/v1/manage/company/detail',
      {},
      { token: a.token, companyId: 'no-such-company' },
    );
    expect(response).toMatchObject({ code: 404, data: { reason: 'company.not_found' } });
  });
});

describe('the wall between the two consoles (issue 28)', () => {
  it("answers each console's calls to the other console's token like an invalid token, and leaves its session", async () => {
    const tokens = await signInToBothConsoles(ctx);
    for (const [own, other] of [
      ['admin', 'dev'],
      ['dev', 'admin'],
    ] as const) {
      for (const path of [`/api/v1/${own}/oidc/refresh`, `/api/v1/${own}/login/logout`]) {
        expect(await answerTo(ctx, path, tokens[other])).toEqual({
          path,
          code: 401,
          reason: 'auth.login_required',
        });
      }
      expect(await stillSignedIn(ctx, tokens[other]), `${other} token after ${own}'s calls`).toBe(true);
    }
    // The calls that only one console makes refuse the other's token.
    expect(
      await answerTo(ctx, '/api/v1/manage/company/create', tokens.admin, { name: 'From admin' }),
    ).toEqual({
      path: '/api/v1/manage/company/create',
      code: 403,
      reason: 'company.create_dev_only',
    });
    const devUser = {
      username: 'made-from-dev',
      password: 'Planted-By-A-1',
      confirmPassword: 'Planted-By-A-1',
    };
    expect(await answerTo(ctx, '/api/v1/manage/user/admin/create-dev-user', tokens.dev, devUser)).toEqual({
      path: '/api/v1/manage/user/admin/create-dev-user',
      code: 403,
      reason: 'user.dev_user_admin_only',
    });
    // Each token still works in its own console: refreshed there, then signed out there.
    for (const variant of ['admin', 'dev'] as const) {
      const own = { token: tokens[variant] };
      const refreshed = await call<{ token: string }>(ctx, `/api/v1/${variant}/oidc/refresh`, {}, own);
      expect(refreshed.code, `${variant} refresh`).toBe(200);
      const out = await answerTo(ctx, `/api/v1/${variant}/login/logout`, refreshed.data.token);
      expect(out.code, `${variant} logout`).toBe(200);
      expect(await stillSignedIn(ctx, refreshed.data.token)).toBe(false);
    }
  });

  it('declares the console of every call under a console prefix', () => {
    const variantCalls = ctx.tessera.boundCalls.filter(
      (c) => c.auth === 'session' && /^\/api\/v1\/(admin|dev)\//.test(c.path),
    );
    expect(variantCalls.map((c) => c.path).sort()).toEqual([
      '/api/v1/admin/login/logout',
      '/api/v1/admin/oidc/refresh',
      '/api/v1/dev/login/logout',
      '/api/v1/dev/oidc/refresh',
    ]);
    for (const c of variantCalls) expect(c.console, c.path).toBe(c.path.split('/')[3]);
  });
});
