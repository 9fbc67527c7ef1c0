import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { CallMap, company, license } from '@tessera/contract';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { issueLicenseFile } from '../modules/license/license-file.ts';
import {
  call,
  createAccount,
  ownerWithCompany,
  sessionFor,
  startTestApp,
  type TestContext,
} from '../test/harness.ts';

/**
 * Regression guard of issue 22: every path of spec §7 answers (none is "No such call"), and the
 * paths §7 lists twice are aliases that answer exactly what the call they mirror answers.
 */

const manage = (paths: string) => paths.split(' ').map((path) => `/api/v1/manage/${path}`);
const session = (paths: string) =>
  ['admin', 'dev'].flatMap((variant) => paths.split(' ').map((path) => `/api/v1/${variant}/${path}`));

/**
 * The paths of spec §7, in its order. The session calls count once per console variant (§1:
 * the prefix picks the admin or the developer path, and both are called), and of the company
 * calls "also seen", the four that repeat a listed path count once: 56 paths in all.
 */
const specPaths = [
  ...manage('license/detail license/import license/code'),
  ...manage('index/user-data-overview index/user-login-trend index/user-mfa-info index/app-login-count'),
  ...manage('index/app-login-trend index/app-login-count-ratio index/new-fail-list index/fail-trend'),
  ...manage('index/login-hotspot index/new-login-list system/info'),
  ...session('login/logout oidc/refresh oidc/token'),
  ...manage('company/my/list'),
  '/api/v1/sso/config',
  ...manage('company/create company/detail company/update company/update/icon company/user'),
  ...manage('company/user/create company/user/del company/syslog/conf company/syslog/update'),
  ...manage('company/syslog/status'),
  ...manage('user/company company/license company/license/code company/license/import company/dev'),
  ...manage('user/list user/create user/admin/create-dev-user user/batch-task/create user/batch-task'),
  ...manage('user/password/reset user/status user/update user/del user/detail user/photo'),
  ...manage('user/send-login-url user/email user/log user/self-details'),
  ...manage('mfa/admin/user mfa/admin/user/del user/exchange/admin/device/list'),
  ...manage('user/exchange/admin/device/del'),
];

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let other: Awaited<ReturnType<typeof ownerWithCompany>>;
let operator: { token: string };
let vendorKey: string;

beforeAll(async () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  vendorKey = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  ctx = await startTestApp({
    licensePublicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  });
  owner = await ownerWithCompany(ctx, 'spec-owner', 'Spec Works');
  other = await ownerWithCompany(ctx, 'other-owner', 'Other Holdings');
  // A platform administrator who also administers the owner's company (licence imports are theirs).
  const account = await createAccount(ctx, { username: 'spec-operator', platformAdmin: true });
  operator = { token: await sessionFor(ctx, account.id, 'admin') };
  await ctx.database.db
    .insertInto('company_members')
    .values({ company_id: owner.companyId, account_id: account.id, role: 'admin' })
    .execute();
});
afterAll(() => ctx.close());

describe('spec §7 paths', () => {
  it('counts 56 distinct paths', () => {
    expect(specPaths).toHaveLength(56);
    expect(new Set(specPaths).size).toBe(56);
  });

  it("answers every path with a company owner's token", async () => {
    // Refreshing replaces the token and logging out ends it, so those come last, in that order.
    const last = (path: string) => ['/oidc/refresh', '/login/logout'].findIndex((end) => path.endsWith(end));
    const order = [...specPaths].sort((x, y) => last(x) - last(y));
    const walker = await ownerWithCompany(ctx, 'path-walker');
    const unanswered: string[] = [];
    for (const path of order) {
      const answer = await call(ctx, path, {}, { token: walker.token, companyId: walker.companyId });
      if ((answer.data as { reason?: string } | null)?.reason === 'request.route_not_found')
        unanswered.push(path);
    }
    expect(unanswered).toEqual([]);
  });
});

/** The paths spec §7 lists among the company calls "also seen", and the call each one is. */
const aliasesOfSpec = {
  '/api/v1/manage/user/company': '/api/v1/manage/company/my/list',
  '/api/v1/manage/company/dev': '/api/v1/manage/company/detail',
  '/api/v1/manage/company/license': '/api/v1/manage/license/detail',
  '/api/v1/manage/company/license/code': '/api/v1/manage/license/code',
  '/api/v1/manage/company/license/import': '/api/v1/manage/license/import',
};

/** Bodies each alias is tried with: one its call accepts and, where it takes input, one it refuses. */
const aliasBodies: Record<string, unknown[]> = {
  '/api/v1/manage/user/company': [{}],
  '/api/v1/manage/company/dev': [{}],
  '/api/v1/manage/company/license': [{}],
  '/api/v1/manage/company/license/code': [{}],
  '/api/v1/manage/company/license/import': [{ license: 'not a licence file' }, { license: '' }, {}],
};

const boundAliases = () => ctx.tessera.boundCalls.filter((bound) => bound.aliasOf);

describe('alias paths', () => {
  it('binds the five paths as aliases of the calls they mirror, and tries each of them below', () => {
    expect(Object.fromEntries(boundAliases().map((bound) => [bound.path, bound.aliasOf]))).toEqual(
      aliasesOfSpec,
    );
    expect(Object.keys(aliasBodies).sort()).toEqual(Object.keys(aliasesOfSpec).sort());
    // Clients look an alias path up as the call it is a path of (checked by the type check).
    expectTypeOf<CallMap['/api/v1/manage/company/license/import']>().toEqualTypeOf<
      typeof license.licenseImport
    >();
    expectTypeOf<CallMap['/api/v1/manage/user/company']>().toEqualTypeOf<typeof company.myCompanies>();
  });

  it('answers exactly what the mirrored call answers, for every role, company, body and language', async () => {
    // Every role a person can hold in the company, and people outside it.
    const roles = ['admin', 'external_admin', 'member'] as const;
    const callers: Record<string, string | undefined> = {
      owner: owner.token,
      'platform operator': operator.token,
      'other company owner': other.token,
      'no token': undefined,
      'unknown token': 'x'.repeat(43),
    };
    for (const role of roles) {
      const person = await call<{ userId: string }>(
        ctx,
        '/api/v1/manage/company/user/create',
        { username: `spec-${role.replace('_', '-')}`, role, password: 'Sunny-Day-42' },
        { token: owner.token, companyId: owner.companyId },
      );
      callers[role] = await sessionFor(ctx, person.data.userId);
    }
    const seen = new Set<string>();
    for (const { path, aliasOf } of boundAliases()) {
      for (const [who, token] of Object.entries(callers)) {
        for (const companyId of [owner.companyId, other.companyId, undefined]) {
          for (const body of aliasBodies[path] ?? []) {
            for (const lang of ['en', 'zh']) {
              const options = { token, companyId, lang };
              const mirrored = await call(ctx, aliasOf as string, body, options);
              const aliased = await call(ctx, path, body, options);
              const situation = { path, who, companyId, body, lang };
              expect({ ...situation, answer: aliased }).toEqual({ ...situation, answer: mirrored });
              seen.add(`${mirrored.code} ${(mirrored.data as { reason?: string } | null)?.reason ?? ''}`);
            }
          }
        }
      }
    }
    // The situations cover answers and refusals alike.
    expect([...seen].sort()).toEqual([
      '200 ',
      '400 license.file_required',
      '400 license.malformed',
      '400 request.invalid',
      '401 auth.login_required',
      '403 license.platform_admin_only',
      '404 company.not_found',
    ]);
  });

  it('imports a licence through company/license/import exactly as through license/import', async () => {
    const asOperator = { token: operator.token, companyId: owner.companyId };
    const code = await call<{ code: string }>(ctx, '/api/v1/manage/company/license/code', {}, asOperator);
    const expiresAt = '2099-12-31T23:59:59.000Z';
    const license = issueLicenseFile(
      {
        format: 1,
        licenseId: randomUUID(),
        applicationCode: code.data.code,
        customer: 'Spec Works',
        issuedAt: new Date().toISOString(),
        modules: [
          { module: 'user', total: 500, expiresAt },
          { module: 'app', total: 50, expiresAt },
        ],
      },
      vendorKey,
    );
    const mirrored = await call<{ importedAt: string }>(
      ctx,
      '/api/v1/manage/license/import',
      { license },
      asOperator,
    );
    const aliased = await call<{ importedAt: string }>(
      ctx,
      '/api/v1/manage/company/license/import',
      { license },
      asOperator,
    );
    expect(mirrored).toMatchObject({ code: 200, data: { customer: 'Spec Works' } });
    // The same licence imported again: only the time of the import differs.
    expect(aliased).toEqual({ ...mirrored, data: { ...mirrored.data, importedAt: aliased.data.importedAt } });
    const detail = await call(ctx, '/api/v1/manage/license/detail', {}, asOperator);
    expect(detail.data).toEqual(aliased.data);
    expect(await call(ctx, '/api/v1/manage/company/license', {}, asOperator)).toEqual(detail);
  });

  it("lists each alias in the OpenAPI document with its call's schemas, marked x-alias-of", async () => {
    const response = await ctx.tessera.app.inject({ method: 'GET', url: '/api/openapi.json' });
    const paths = (response.json() as { paths: Record<string, { post: Record<string, unknown> }> }).paths;
    for (const [alias, mirrored] of Object.entries(aliasesOfSpec)) {
      const { summary, description, 'x-alias-of': aliasOf, ...operation } = paths[alias]!.post;
      const { summary: mirroredSummary, ...mirroredOperation } = paths[mirrored]!.post;
      expect({ alias, aliasOf, operation }).toEqual({
        alias,
        aliasOf: mirrored,
        operation: mirroredOperation,
      });
      expect(description).toBe(`Another path of ${mirrored}: the same request, rules and answer.`);
      // The summary says what the path answers and why, since spec §7 shows no payload for it.
      expect(summary).toMatch(/exactly as .+ spec §7/);
      expect(summary).not.toBe(mirroredSummary);
    }
  });
});
