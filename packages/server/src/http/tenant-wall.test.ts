import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ownerWithCompany, startTestApp, type TestContext, TINY_PNG, upload } from '../test/harness.ts';
import { appWall, samlAppWall } from './tenant-wall.apps.ts';
import { casWall } from './tenant-wall.cas.ts';
import { answerTo, signInToBothConsoles, stillSignedIn } from './tenant-wall.consoles.ts';
import { exchangeWall } from './tenant-wall.exchange.ts';
import { identitySourceWall } from './tenant-wall.identity-source.ts';
import { ldapServerWall } from './tenant-wall.ldap-server.ts';
import { logWall } from './tenant-wall.logs.ts';
import { oidcSourceWall } from './tenant-wall.oidc-source.ts';
import { peopleWall } from './tenant-wall.people.ts';
import { permissionWall } from './tenant-wall.permissions.ts';
import { pkiWall } from './tenant-wall.pki.ts';
import { provisioningWall } from './tenant-wall.provisioning.ts';
import { samlSourceWall } from './tenant-wall.saml-source.ts';
import { scimWall } from './tenant-wall.scim.ts';
import { smsWall } from './tenant-wall.sms.ts';

/**
 * Regression guard of the tenant wall (foundation issue): every `/api/v1/manage/*` call, made by
 * an administrator of company A, must give nothing of company B back, whether B is named in the
 * company_id header or by ids in the body. A call without a probe here fails the test. Each
 * area's probes, B's data they name and B's state that must come out unchanged are in
 * `tenant-wall.<area>.ts`. The wall between the platform console (/admin/) and the company
 * console (/dev/) is at the end.
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

/** Sets up an area's data of B before the probes, in the order registered, and keeps B's state then. */
function registered<W extends { setUp(): Promise<void>; stateOfB(): Promise<string> }>(wall: W) {
  const entry = Object.assign(wall, { before: '' });
  beforeAll(async () => {
    await wall.setUp();
    entry.before = await wall.stateOfB();
  });
  return entry;
}
const ctxOf = () => ctx;
const bOf = () => b;
const bMemberOf = () => bMemberId;
const companyB = () => ({ ctx, b, bMemberId });

// SAML identity sources (identity-source/saml-source): B's upstream identity provider (made before
// the identity-source probes' snapshot of B's sources, which lists it).
const samlSource = registered(samlSourceWall(ctxOf, bOf));
// Identity sources (modules/identity-source); B's upstream OpenID Connect source (issue 33) is one
// of its sources too, made before the snapshot of B's sources.
const oidcSource = registered(oidcSourceWall(() => ({ ctx, b })));
const sources = registered(identitySourceWall(() => ({ ctx, b })));
// Departments, users, user import, MFA, safety.
const people = peopleWall(companyB);
beforeAll(() => people.setUp());
// Applications (modules/app).
const apps = registered(appWall(() => ({ ...companyB(), bDepartmentId: people.departmentId() })));
// Exchange (modules/exchange): a device of B's person and B's registration token.
const exchange = registered(exchangeWall(ctxOf, bOf, bMemberOf));
// RADIUS and certificate authorities (modules/radius, modules/ca): B's client, CA and certificate.
const pki = registered(pkiWall(ctxOf, bOf, bMemberOf));
// CAS (modules/cas): B's CAS application and its service URL.
const cas = registered(casWall(ctxOf, bOf));
// Provisioning (modules/provisioning): B's SCIM target, its address and token.
const provisioning = registered(provisioningWall(ctxOf, bOf));
// LDAP applications (modules/ldap-server): B's service account and its base DN.
const ldapServer = registered(ldapServerWall(ctxOf, bOf));
// SMS (modules/sms): B's own sign name and template.
const sms = registered(smsWall(ctxOf, bOf));
// SCIM tokens (modules/scim): B's token and its password setting.
const scim = registered(scimWall(ctxOf, bOf));
// Logs, dashboard, syslog, brand (issue 16).
const logs = logWall(() => ({ ...companyB(), bAppId: apps.appId() }));
beforeAll(() => logs.setUp());
// Permissions and console roles (issue 15).
const permissions = registered(permissionWall(() => ({ ...companyB(), bAppId: apps.appId() })));
// SAML applications (modules/saml).
const samlApp = registered(samlAppWall(companyB));

/** Every area's probes and what of B they must never answer. */
const areas = [
  samlSource,
  sources,
  oidcSource,
  people,
  apps,
  exchange,
  pki,
  cas,
  provisioning,
  ldapServer,
  sms,
  scim,
  logs,
  permissions,
  samlApp,
];

/** What B has that must never leak. */
const secretsOfB = () => [
  b.companyId,
  'Beta Secret Holdings',
  'beta-staff',
  'staff@beta.example',
  bMemberId,
  ...areas.flatMap((area) => area.secrets()),
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
  ...Object.assign({}, ...areas.map((area) => area.probes)),
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

  // Each area's state as B sees it, taken before the probes.
  for (const [name, area] of [
    ["leaves B's application, its access accounts, assignments and form settings as they were", apps],
    ["leaves B's SAML settings and signing certificates as they were", samlApp],
    ["leaves B's devices, Exchange settings and device permissions as they were", exchange],
    ["leaves B's RADIUS clients, certificate authorities and certificates as they were", pki],
    ["leaves B's identity sources, their secrets and sync runs as they were", sources],
    ["leaves B's resources, roles, authorizations and console roles as they were", permissions],
    ["leaves B's CAS application as it was", cas],
    ["leaves B's provisioning target and runs as they were", provisioning],
    ["leaves B's LDAP application and its service account secret as they were", ldapServer],
    ["leaves B's SAML identity source as it was", samlSource],
    ["leaves B's SCIM token and password setting as they were", scim],
  ] as const) {
    it(name, async () => {
      expect(await area.stateOfB()).toBe(area.before);
    });
  }

  it("leaves B's user as it was", async () => {
    expect(await people.userOfB()).toBe(people.before.user);
  });

  it("leaves B's MFA factor bound", async () => {
    expect(await people.factorOfB()).toBe(people.factorId());
  });

  it("leaves B's safety settings unstored", async () => {
    expect(await people.safetyOfB()).toEqual([]);
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

  it("leaves B's syslog, brand and log settings unset", async () => {
    expect(await logs.settingsOfB()).toEqual([[], [], []]);
  });

  it("leaves B's own SMS sign name and template as they were, and no provider set", async () => {
    expect(await sms.stateOfB()).toBe(sms.before);
    expect(await oidcSource.stateOfB()).toBe(oidcSource.before);
    expect(await ctx.database.db.selectFrom('sms_provider').selectAll().execute()).toEqual([]);
  });

  it("leaves B's department tree as it was", async () => {
    expect(await people.treeOfB()).toBe(people.before.tree);
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
