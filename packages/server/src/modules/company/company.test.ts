import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createAccount,
  ownerWithCompany,
  sessionFor,
  startTestApp,
  type TestContext,
  TINY_PNG,
  upload,
} from '../../test/harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(() => ctx.close());

const count = async (table: 'companies' | 'company_members' | 'accounts' | 'audit_events' | 'files') =>
  Number(
    (
      await ctx.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('companies', () => {
  it('creates a company under the developer console; the creator is its owner', async () => {
    const person = await createAccount(ctx, { username: 'founder' });
    const token = await sessionFor(ctx, person.id);
    expect((await call(ctx, '/api/v1/manage/company/my/list', {}, { token })).data).toEqual({ list: null });
    const created = await call<Record<string, string>>(
      ctx,
      '/api/v1/manage/company/create',
      { name: '  Acme  ' },
      { token },
    );
    expect(created.code).toBe(200);
    expect(created.data).toMatchObject({
      name: 'Acme',
      ownerUsername: 'founder',
      defaultLanguage: 'en',
      icon: null,
    });
    expect(created.data.key).toMatch(/^[\w-]{32}$/);
    const list = await call<{ list: unknown[] }>(ctx, '/api/v1/manage/company/my/list', {}, { token });
    expect(list.data.list).toEqual([
      { companyId: created.data.companyId, name: 'Acme', icon: null, isOwner: true },
    ]);
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .selectAll()
      .where('company_id', '=', created.data.companyId!)
      .execute();
    expect(audit.map((a) => a.action)).toEqual(['company.create']);
  });

  it("refuses a missing, blank or too long name in the caller's language, storing nothing", async () => {
    const person = await createAccount(ctx, { username: 'namer' });
    const token = await sessionFor(ctx, person.id);
    const before = await count('companies');
    const blank = await call(ctx, '/api/v1/manage/company/create', { name: '   ' }, { token });
    expect(blank).toMatchObject({
      code: 400,
      msg: 'Please enter the company name',
      data: { reason: 'company.name_required' },
    });
    const missing = await call(ctx, '/api/v1/manage/company/create', {}, { token });
    expect(missing.msg).toBe('Please enter the company name');
    const zh = await call(
      ctx,
      '/api/v1/manage/company/create',
      { name: '' },
      { token, lang: 'zh-CN,zh;q=0.9' },
    );
    expect(zh.msg).toBe('请输入企业名称');
    const long = await call(ctx, '/api/v1/manage/company/create', { name: 'x'.repeat(51) }, { token });
    expect(long).toMatchObject({ code: 400, data: { reason: 'company.name_too_long' } });
    const wrongType = await call(ctx, '/api/v1/manage/company/create', { name: 42 }, { token });
    expect(wrongType.code).toBe(400);
    expect((await call(ctx, '/api/v1/manage/company/create', { name: 'x'.repeat(50) }, { token })).code).toBe(
      200,
    );
    expect(await count('companies')).toBe(before + 1);
  });

  it('creates companies only under the developer console', async () => {
    const operator = await createAccount(ctx, { username: 'operator', platformAdmin: true });
    const token = await sessionFor(ctx, operator.id, 'admin');
    const before = await count('companies');
    const response = await call(ctx, '/api/v1/manage/company/create', { name: 'Nope' }, { token });
    expect(response).toMatchObject({ code: 403, data: { reason: 'company.create_dev_only' } });
    expect(await count('companies')).toBe(before);
  });

  it('shows and updates the company, with an audit record of before and after', async () => {
    const { token, companyId } = await ownerWithCompany(ctx, 'updater', 'Before');
    const updated = await call<Record<string, string>>(
      ctx,
      '/api/v1/manage/company/update',
      { name: 'After' },
      { token, companyId },
    );
    expect(updated.data).toMatchObject({ name: 'After', defaultLanguage: 'en' });
    const detail = await call<Record<string, string>>(
      ctx,
      '/api/v1/manage/company/detail',
      {},
      { token, companyId },
    );
    expect(detail.data.name).toBe('After');
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .selectAll()
      .where('company_id', '=', companyId)
      .where('action', '=', 'company.update')
      .executeTakeFirstOrThrow();
    expect(audit.before).toMatchObject({ name: 'Before' });
    expect(audit.after).toMatchObject({ name: 'After' });
    const bad = await call(
      ctx,
      '/api/v1/manage/company/update',
      { defaultLanguage: 'fr' },
      { token, companyId },
    );
    expect(bad).toMatchObject({ code: 400, msg: 'defaultLanguage is not one of the allowed values' });
  });

  it('leaves the default language to the brand: company/update refuses it and changes nothing (issue 35)', async () => {
    const { token, companyId } = await ownerWithCompany(ctx, 'language-owner', 'Lang Co');
    await call(ctx, '/api/v1/manage/brand/update', { defaultLanguage: 'zh' }, { token, companyId });
    for (const [lang, msg] of [
      [
        'en',
        'The default language is set on the Branding page (Sign-in page brand), not in the company settings',
      ],
      ['zh', '默认语言在“品牌定制”（登录页品牌）页面设置，不在企业设置中'],
    ] as const) {
      const refused = await call(
        ctx,
        '/api/v1/manage/company/update',
        { name: 'Renamed', defaultLanguage: 'en' },
        { token, companyId, lang },
      );
      expect(refused).toMatchObject({
        code: 400,
        msg,
        data: { reason: 'company.default_language_on_brand' },
      });
    }
    const detail = await call<Record<string, string>>(
      ctx,
      '/api/v1/manage/company/detail',
      {},
      { token, companyId },
    );
    // Both answers still carry the one stored value, written by the brand.
    expect(detail.data).toMatchObject({ name: 'Lang Co', defaultLanguage: 'zh' });
    const brand = await call<Record<string, string>>(
      ctx,
      '/api/v1/manage/brand/detail',
      {},
      { token, companyId },
    );
    expect(brand.data.defaultLanguage).toBe('zh');
  });

  it('regenerates the company key, with an audit record', async () => {
    const { token, companyId } = await ownerWithCompany(ctx, 'rekeyer');
    const before = await call<Record<string, string>>(
      ctx,
      '/api/v1/manage/company/detail',
      {},
      { token, companyId },
    );
    const reset = await call<Record<string, string>>(
      ctx,
      '/api/v1/manage/company/key/reset',
      {},
      { token, companyId },
    );
    expect(reset.data.key).toMatch(/^[\w-]{32}$/);
    expect(reset.data.key).not.toBe(before.data.key);
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .select('action')
      .where('company_id', '=', companyId)
      .execute();
    expect(audit.map((a) => a.action)).toContain('company.reset_key');
  });

  it('requires the company_id header on company calls', async () => {
    const { token } = await ownerWithCompany(ctx, 'headless');
    const response = await call(ctx, '/api/v1/manage/company/detail', {}, { token });
    expect(response).toMatchObject({ code: 400, msg: 'company_id is required' });
  });
});

describe('company logo', () => {
  it('accepts a PNG and serves it back with its content type', async () => {
    const { token, companyId } = await ownerWithCompany(ctx, 'painter');
    const response = await upload(
      ctx,
      '/api/v1/manage/company/update/icon',
      { bytes: TINY_PNG, filename: 'logo.png', type: 'image/png' },
      { token, companyId },
    );
    expect(response.code).toBe(200);
    const icon = response.data.icon as string;
    const served = await ctx.tessera.app.inject({ method: 'GET', url: icon });
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(Buffer.compare(served.rawPayload, TINY_PNG)).toBe(0);
  });

  it('sanitises an SVG: scripts, handlers and external references are removed', async () => {
    const { token, companyId } = await ownerWithCompany(ctx, 'svg-maker');
    const svg = `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" onload="alert(1)"><script>alert(2)</script><a xlink:href="javascript:alert(3)"><rect width="10" height="10" fill="red"/></a><foreignObject><iframe src="https://x"/></foreignObject><circle r="4" onclick="alert(4)"/></svg>`;
    const response = await upload(
      ctx,
      '/api/v1/manage/company/update/icon',
      { bytes: Buffer.from(svg), filename: 'logo.svg', type: 'image/svg+xml' },
      { token, companyId },
    );
    expect(response.code).toBe(200);
    const served = await ctx.tessera.app.inject({ method: 'GET', url: response.data.icon as string });
    expect(served.headers['content-type']).toBe('image/svg+xml');
    expect(served.headers['content-security-policy']).toContain("default-src 'none'");
    const body = served.payload;
    expect(body).toContain('<circle');
    expect(body).not.toMatch(/script|onload|onclick|javascript:|foreignObject|iframe/i);
  });

  it('refuses a file over 1 MiB with 413 and another type with 415, changing nothing', async () => {
    const { token, companyId } = await ownerWithCompany(ctx, 'uploader');
    const files = await count('files');
    const big = Buffer.concat([TINY_PNG, Buffer.alloc(1024 * 1024)]);
    const tooLarge = await upload(
      ctx,
      '/api/v1/manage/company/update/icon',
      { bytes: big, filename: 'big.png', type: 'image/png' },
      { token, companyId },
    );
    expect(tooLarge).toMatchObject({ status: 413, code: 413, data: { reason: 'upload.too_large' } });
    const gif = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'binary');
    const wrongType = await upload(
      ctx,
      '/api/v1/manage/company/update/icon',
      { bytes: gif, filename: 'logo.png', type: 'image/png' },
      { token, companyId },
    );
    expect(wrongType).toMatchObject({ status: 415, code: 415, data: { reason: 'upload.unsupported_type' } });
    expect(wrongType.msg).toContain('PNG, JPEG, SVG, WEBP');
    const json = await call(ctx, '/api/v1/manage/company/update/icon', { file: 'x' }, { token, companyId });
    expect(json.code).toBe(415);
    expect(await count('files')).toBe(files);
    const detail = await call<Record<string, unknown>>(
      ctx,
      '/api/v1/manage/company/detail',
      {},
      { token, companyId },
    );
    expect(detail.data.icon).toBeNull();
  });
});

describe('company members and administrators', () => {
  it('adds new accounts; a taken username or email is refused without linking the existing account', async () => {
    const { token, companyId } = await ownerWithCompany(ctx, 'boss');
    await createAccount(ctx, { username: 'already-here', email: 'here@example.org' });
    const fresh = await call<Record<string, unknown>>(
      ctx,
      '/api/v1/manage/company/user/create',
      { username: 'newbie', role: 'admin', password: 'Sunny-Day-42', email: 'newbie@example.com' },
      { token, companyId },
    );
    expect(fresh.data).toMatchObject({
      username: 'newbie',
      role: 'admin',
      email: 'newbie@example.com',
      isOwner: false,
    });
    const added = await call<Record<string, unknown>>(
      ctx,
      '/api/v1/manage/company/user/create',
      { username: 'helper', role: 'member', password: 'Sunny-Day-42' },
      { token, companyId },
    );
    expect(added.data).toMatchObject({ username: 'helper', role: 'member' });
    const taken = await call(
      ctx,
      '/api/v1/manage/company/user/create',
      { username: 'Already-Here', role: 'member', password: 'Sunny-Day-42' },
      { token, companyId },
    );
    expect(taken).toMatchObject({ code: 409, msg: 'This username is already taken' });
    expect(JSON.stringify(taken)).not.toContain('here@example.org');
    const emailTaken = await call(
      ctx,
      '/api/v1/manage/company/user/create',
      { username: 'other', role: 'member', password: 'Sunny-Day-42', email: 'HERE@example.org' },
      { token, companyId },
    );
    expect(emailTaken).toMatchObject({ code: 409, data: { reason: 'member.email_taken' } });
    // Two administrators racing for one username: one wins, the other gets the same 409.
    const race = await Promise.all(
      [1, 2].map(() =>
        call(
          ctx,
          '/api/v1/manage/company/user/create',
          { username: 'racer', role: 'member', password: 'Sunny-Day-42' },
          { token, companyId },
        ),
      ),
    );
    expect(race.map((r) => r.code).sort()).toEqual([200, 409]);
    const list = await call<{ list: { username: string }[]; total: number }>(
      ctx,
      '/api/v1/manage/company/user',
      { page: 1, pageSize: 2 },
      { token, companyId },
    );
    expect(list.data.total).toBe(4);
    expect(list.data.list.map((m) => m.username)).toEqual(['boss', 'newbie']);
    const searched = await call<{ list: { username: string }[]; total: number }>(
      ctx,
      '/api/v1/manage/company/user',
      { keyword: 'EXAMPLE.com' },
      { token, companyId },
    );
    expect(searched.data.list.map((m) => m.username)).toEqual(['newbie']);
    const wildcard = await call<{ total: number }>(
      ctx,
      '/api/v1/manage/company/user',
      { keyword: '%' },
      { token, companyId },
    );
    expect(wildcard.data.total).toBe(0);
  });

  it('refuses bad member input with a message naming the problem, storing nothing', async () => {
    const { token, companyId } = await ownerWithCompany(ctx, 'strict');
    const accounts = await count('accounts');
    const members = await count('company_members');
    const cases: [unknown, string][] = [
      [
        { username: 'bad name!', role: 'admin', password: 'Sunny-Day-42' },
        'The username can only contain letters, digits, dot, underscore and hyphen, and optionally one @ followed by a domain (alice@example.com)',
      ],
      [{ username: 'nopass', role: 'admin' }, 'Please enter a password for the new account'],
      [
        { username: 'shortpass', role: 'admin', password: '123' },
        'The password must be at least 8 characters',
      ],
      [
        { username: 'badrole', role: 'owner', password: 'Sunny-Day-42' },
        'role is not one of the allowed values',
      ],
      [
        { username: 'bademail', role: 'admin', password: 'Sunny-Day-42', email: 'nope' },
        'email is not in a valid format',
      ],
      [{ username: 42, role: 'admin', password: 'Sunny-Day-42' }, 'username has the wrong type'],
      [{ role: 'admin', password: 'Sunny-Day-42' }, 'username is required'],
    ];
    for (const [body, message] of cases) {
      const response = await call(ctx, '/api/v1/manage/company/user/create', body, { token, companyId });
      expect(response.msg).toBe(message);
      expect(response.code).toBeGreaterThanOrEqual(400);
    }
    expect(await count('accounts')).toBe(accounts);
    expect(await count('company_members')).toBe(members);
  });

  it('protects the owner, external administrators and roles above the caller', async () => {
    const { account: owner, token, companyId } = await ownerWithCompany(ctx, 'keeper');
    const add = (username: string, role: string) =>
      call<{ userId: string }>(
        ctx,
        '/api/v1/manage/company/user/create',
        { username, role, password: 'Sunny-Day-42' },
        { token, companyId },
      );
    const external = await add('ext-one', 'external_admin');
    const external2 = await add('ext-two', 'external_admin');
    const member = await add('plain', 'member');

    expect(
      (await call(ctx, '/api/v1/manage/company/user/del', { userId: owner.id }, { token, companyId })).data,
    ).toMatchObject({
      reason: 'member.owner_protected',
    });

    const extToken = await sessionFor(ctx, external.data.userId);
    const extAdd = await call(
      ctx,
      '/api/v1/manage/company/user/create',
      { username: 'ext-three', role: 'external_admin', password: 'Sunny-Day-42' },
      { token: extToken, companyId },
    );
    expect(extAdd).toMatchObject({ code: 403, data: { reason: 'member.external_admin_forbidden' } });
    const extDel = await call(
      ctx,
      '/api/v1/manage/company/user/del',
      { userId: external2.data.userId },
      { token: extToken, companyId },
    );
    expect(extDel).toMatchObject({ code: 403, data: { reason: 'member.external_admin_forbidden' } });
    // Issue 12: an external administrator cannot make anyone (themselves included) an administrator.
    expect(
      await call(
        ctx,
        '/api/v1/manage/company/user/create',
        { username: 'by-ext', role: 'admin', password: 'Sunny-Day-42' },
        { token: extToken, companyId },
      ),
    ).toMatchObject({ code: 403, data: { reason: 'user.role_above_own' } });

    const selfDel = await call(
      ctx,
      '/api/v1/manage/company/user/del',
      { userId: external.data.userId },
      { token: extToken, companyId },
    );
    expect(selfDel.data).toMatchObject({ reason: 'member.self_removal' });

    const memberToken = await sessionFor(ctx, member.data.userId);
    const asMember = await call(ctx, '/api/v1/manage/company/detail', {}, { token: memberToken, companyId });
    expect(asMember).toMatchObject({ code: 404, data: { reason: 'company.not_found' } });

    const removed = await call(
      ctx,
      '/api/v1/manage/company/user/del',
      { userId: member.data.userId },
      { token, companyId },
    );
    expect(removed.code).toBe(200);
    expect(
      (
        await call(
          ctx,
          '/api/v1/manage/company/user/del',
          { userId: member.data.userId },
          { token, companyId },
        )
      ).code,
    ).toBe(404);
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .select('action')
      .where('company_id', '=', companyId)
      .execute();
    expect(audit.map((a) => a.action)).toContain('company.member.remove');
  });
});
