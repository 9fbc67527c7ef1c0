import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  companyMember,
  ownerWithCompany,
  sessionFor,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import { assertScimError, createToken, scimClient } from './scim-test-client.ts';

/**
 * Issue 31 (inbound SCIM): a company's SCIM tokens from the console (secret shown once, expiry,
 * last use, revocation), the discovery endpoints, and the wall around each company's endpoint:
 * a token acts on its own company only, and wrong tokens spend a budget per address.
 */

let ctx: TestContext;
let a: Awaited<ReturnType<typeof ownerWithCompany>>;
let b: Awaited<ReturnType<typeof ownerWithCompany>>;
let tokenA: { secret: string; tokenId: string };

beforeAll(async () => {
  ctx = await startTestApp();
  a = await ownerWithCompany(ctx, 'scim-tok-a', 'Alpha SCIM');
  b = await ownerWithCompany(ctx, 'scim-tok-b', 'Beta SCIM');
  tokenA = await createToken(ctx, a);
});
afterAll(() => ctx.close());

describe('console: SCIM tokens', () => {
  it('shows the secret once, stores only its hash, and lists the token with its last use', async () => {
    expect(tokenA.secret).toMatch(/^tsc_[A-Za-z0-9_-]{43}$/);
    const stored = await ctx.database.db
      .selectFrom('scim_tokens')
      .selectAll()
      .where('id', '=', tokenA.tokenId)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(tokenA.secret);
    const before = await call<{ baseUrl: string; list: Record<string, unknown>[]; allowPasswords: boolean }>(
      ctx,
      '/api/v1/manage/company/scim/tokens',
      {},
      a,
    );
    expect(before.data.baseUrl).toBe(`http://localhost/scim/v2/${a.companyId}`);
    expect(before.data.allowPasswords).toBe(false);
    expect(before.data.list).toHaveLength(1);
    expect(JSON.stringify(before.data)).not.toContain(tokenA.secret);
    expect(before.data.list[0]).toMatchObject({
      name: 'Entra provisioning',
      lastUsedAt: null,
      groupsAs: 'departments',
    });
    const scim = scimClient(ctx, a.companyId, tokenA.secret, '10.9.8.7');
    expect((await scim('GET', '/ServiceProviderConfig')).status).toBe(200);
    const after = await call<{ list: Record<string, unknown>[] }>(
      ctx,
      '/api/v1/manage/company/scim/tokens',
      {},
      a,
    );
    expect(after.data.list[0]).toMatchObject({ lastUsedIp: '10.9.8.7' });
    expect(after.data.list[0]?.lastUsedAt).not.toBeNull();
  });

  it('refuses bad input without storing anything, and audits creation and revocation', async () => {
    const count = async () => (await ctx.database.db.selectFrom('scim_tokens').select('id').execute()).length;
    const before = await count();
    for (const body of [
      { name: '', expiresInDays: 30 },
      { name: 'x'.repeat(65), expiresInDays: 30 },
      { name: 'ok', expiresInDays: 0 },
      { name: 'ok', expiresInDays: 30, groupsAs: 'teams' },
    ]) {
      const answer = await call(ctx, '/api/v1/manage/company/scim/token/create', body, { ...a, lang: 'zh' });
      expect(answer.code).toBe(400);
    }
    expect(await count()).toBe(before);
    const temporary = await createToken(ctx, a, 'Okta');
    const revoked = await call(
      ctx,
      '/api/v1/manage/company/scim/token/revoke',
      { tokenId: temporary.tokenId },
      a,
    );
    expect(revoked.code).toBe(200);
    const scim = scimClient(ctx, a.companyId, temporary.secret);
    assertScimError(await scim('GET', '/Users'), 401);
    const events = await ctx.database.db
      .selectFrom('audit_events')
      .select(['action', 'actor_account_id'])
      .where('company_id', '=', a.companyId)
      .where('action', 'like', 'scim.%')
      .execute();
    expect(events.map((e) => e.action).sort()).toEqual([
      'scim.token_create',
      'scim.token_create',
      'scim.token_revoke',
    ]);
    expect(events.every((e) => e.actor_account_id === a.account.id)).toBe(true);
  });

  it('lets only administrators with company settings manage tokens; B never sees A’s', async () => {
    // A plain member has no console in the company: the company is not found for them.
    const member = await companyMember(ctx, a, 'scim-tok-member');
    const memberToken = await sessionFor(ctx, member.id);
    const asMember = await call(
      ctx,
      '/api/v1/manage/company/scim/tokens',
      {},
      { token: memberToken, companyId: a.companyId },
    );
    expect(asMember.code).toBe(404);
    // A delegated administrator whose console role reads company settings: sees, cannot change.
    const role = await call<{ roleId: string }>(
      ctx,
      '/api/v1/manage/console-role/create',
      { name: 'Settings reader', grants: { groups: { companySettings: 'read' } } },
      a,
    );
    expect(role.code, role.msg).toBe(200);
    const reader = await call<{ userId: string }>(
      ctx,
      '/api/v1/manage/company/user/create',
      {
        username: 'scim-tok-reader',
        role: 'delegated_admin',
        consoleRoleId: role.data.roleId,
        password: 'Sunny-Day-42',
      },
      a,
    );
    const readerToken = { token: await sessionFor(ctx, reader.data.userId), companyId: a.companyId };
    expect((await call(ctx, '/api/v1/manage/company/scim/tokens', {}, readerToken)).code).toBe(200);
    const refused = await call(
      ctx,
      '/api/v1/manage/company/scim/token/create',
      { name: 'x', expiresInDays: null },
      readerToken,
    );
    expect(refused).toMatchObject({ code: 403, data: { reason: 'auth.group_forbidden' } });
    expect(
      (await call(ctx, '/api/v1/manage/company/scim/token/revoke', { tokenId: tokenA.tokenId }, readerToken))
        .code,
    ).toBe(403);
    const bRevokesA = await call(
      ctx,
      '/api/v1/manage/company/scim/token/revoke',
      { tokenId: tokenA.tokenId },
      b,
    );
    expect(bRevokesA.code).toBe(404);
    const bList = await call<{ list: unknown[] }>(ctx, '/api/v1/manage/company/scim/tokens', {}, b);
    expect(bList.data.list).toEqual([]);
  });

  it('turns SCIM passwords on and off (audited)', async () => {
    const on = await call(ctx, '/api/v1/manage/company/scim/settings/update', { allowPasswords: true }, a);
    expect(on.data).toEqual({ allowPasswords: true });
    const off = await call(ctx, '/api/v1/manage/company/scim/settings/update', { allowPasswords: false }, a);
    expect(off.data).toEqual({ allowPasswords: false });
    const bad = await call(ctx, '/api/v1/manage/company/scim/settings/update', { allowPasswords: 'yes' }, a);
    expect(bad.code).toBe(400);
  });
});

describe('SCIM endpoint: discovery and the wall', () => {
  it('describes itself (ServiceProviderConfig, ResourceTypes, Schemas)', async () => {
    const scim = scimClient(ctx, a.companyId, tokenA.secret);
    const config = await scim('GET', '/ServiceProviderConfig');
    expect(config.body).toMatchObject({
      patch: { supported: true },
      filter: { supported: true },
      etag: { supported: true },
      bulk: { supported: false },
    });
    expect(String(config.headers['content-type'])).toContain('application/scim+json');
    const types = await scim('GET', '/ResourceTypes');
    expect((types.body.Resources as { id: string }[]).map((t) => t.id)).toEqual(['User', 'Group']);
    const schemas = await scim('GET', '/Schemas');
    expect((schemas.body.Resources as { id: string }[]).map((s) => s.id)).toEqual([
      'urn:ietf:params:scim:schemas:core:2.0:User',
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
      'urn:ietf:params:scim:schemas:core:2.0:Group',
    ]);
    const one = await scim('GET', '/Schemas/urn:ietf:params:scim:schemas:core:2.0:Group');
    expect(one.body.name).toBe('Group');
    assertScimError(await scim('GET', '/Schemas/urn:nothing'), 404);
  });

  it('answers a missing, wrong, or other company’s token alike: 401, nothing about the company', async () => {
    const noToken = await scimClient(ctx, a.companyId, '')('GET', '/Users');
    assertScimError(noToken, 401);
    expect(noToken.headers['www-authenticate']).toContain('Bearer');
    const aOnB = await scimClient(ctx, b.companyId, tokenA.secret)('GET', '/Users');
    const aOnNowhere = await scimClient(ctx, 'no-such-company', tokenA.secret)('GET', '/Users');
    assertScimError(aOnB, 401);
    assertScimError(aOnNowhere, 401);
    expect(aOnB.body).toEqual(aOnNowhere.body);
    const zh = await scimClient(ctx, a.companyId, 'tsc_wrong')('GET', '/Users', undefined, {
      'accept-language': 'zh-CN',
    });
    expect(zh.body.detail).toBe('持有者令牌缺失、错误、已过期或已撤销');
  });

  it('refuses an address’s wrong tokens with 429 once its budget is spent; the right token still works there', async () => {
    const ip = '192.0.2.77';
    const wrong = scimClient(ctx, a.companyId, 'tsc_not-a-token', ip);
    const statuses: number[] = [];
    for (let i = 0; i < 22; i++) statuses.push((await wrong('GET', '/Users')).status);
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    expect(
      (await scimClient(ctx, a.companyId, tokenA.secret, ip)('GET', '/ServiceProviderConfig')).status,
    ).toBe(200);
    expect((await scimClient(ctx, a.companyId, 'tsc_other', '192.0.2.78')('GET', '/Users')).status).toBe(401);
  });
});
