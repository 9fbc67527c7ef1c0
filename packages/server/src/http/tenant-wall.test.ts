import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ownerWithCompany, startTestApp, type TestContext, TINY_PNG, upload } from '../test/harness.ts';

/**
 * Regression guard of the tenant wall (foundation issue): every `/api/v1/manage/*` call, made by
 * an administrator of company A, must give nothing of company B back, whether B is named in the
 * company_id header or by ids in the body. A call without a probe here fails the test.
 */
let ctx: TestContext;
let a: Awaited<ReturnType<typeof ownerWithCompany>>;
let b: Awaited<ReturnType<typeof ownerWithCompany>>;
let bMemberId: string;

beforeAll(async () => {
  ctx = await startTestApp();
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

/** What B has that must never leak. */
const secretsOfB = () => [b.companyId, 'Beta Secret Holdings', 'beta-staff', 'staff@beta.example', bMemberId];

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
  '/api/v1/manage/license/detail': () => ({ companyId: b.companyId }),
  '/api/v1/manage/license/import': () => ({ companyId: b.companyId, license: 'x' }),
  '/api/v1/manage/license/code': () => ({ companyId: b.companyId }),
  '/api/v1/manage/license/info': () => ({ companyId: b.companyId }),
  '/api/v1/manage/system/info': () => ({ companyId: b.companyId }),
  '/api/v1/manage/system/third-party': () => ({ companyId: b.companyId }),
  '/api/v1/manage/company/key/reset': () => ({ companyId: b.companyId }),
};

async function send(path: string, body: unknown, companyId: string | undefined, isUpload: boolean) {
  if (isUpload) {
    return upload(
      ctx,
      path,
      { bytes: TINY_PNG, filename: 'x.png', type: 'image/png' },
      { token: a.token, companyId },
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
