import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.ts';
import {
  call,
  createAccount,
  ownerWithCompany,
  sessionFor,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';

const run = promisify(execFile);
const cli = fileURLToPath(new URL('../../cli/license.ts', import.meta.url));

let ctx: TestContext;
let folder: string;
let vendorPublicKey: string;
let operatorToken: string;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'tessera-vendor-'));
  await run(process.execPath, ['--conditions=source', '--import', 'tsx', cli, 'keygen', '--out', folder]);
  vendorPublicKey = await readFile(join(folder, 'vendor-public.pem'), 'utf8');
  ctx = await startTestApp();
  // The same database, served by an app that trusts the test vendor's key.
  await ctx.tessera.close();
  ctx.tessera = await buildApp({
    config: {
      publicUrl: 'http://localhost',
      session: { idleSeconds: 7200, absoluteSeconds: 43_200 },
      logLevel: 'silent',
      licensePublicKey: vendorPublicKey,
    },
    database: ctx.database,
    masterKey: ctx.masterKey,
    validateResponses: true,
  });
  owner = await ownerWithCompany(ctx, 'licence-owner');
  const operator = await createAccount(ctx, { username: 'operator', platformAdmin: true });
  operatorToken = await sessionFor(ctx, operator.id, 'admin');
  await ctx.database.db
    .insertInto('company_members')
    .values({ company_id: owner.companyId, account_id: operator.id, role: 'admin' })
    .execute();
});
afterAll(() => ctx.close());

async function issue(code: string, extra: string[] = [], key = join(folder, 'vendor-private.pem')) {
  const out = join(folder, `licence-${Math.random().toString(36).slice(2)}.lic`);
  await run(process.execPath, [
    '--conditions=source',
    '--import',
    'tsx',
    cli,
    'issue',
    '--key',
    key,
    '--code',
    code,
    '--customer',
    'Example Co',
    '--expires',
    '2099-12-31',
    '--out',
    out,
    ...extra,
  ]);
  return readFile(out, 'utf8');
}

const asOperator = (path: string, body: unknown = {}) =>
  call<Record<string, unknown>>(ctx, path, body, { token: operatorToken, companyId: owner.companyId });

describe('licences', () => {
  it('gives a stable application code per installation', async () => {
    const first = await asOperator('/api/v1/manage/license/code');
    const second = await call<{ code: string }>(
      ctx,
      '/api/v1/manage/license/code',
      {},
      { token: owner.token, companyId: owner.companyId },
    );
    expect(first.data.code).toMatch(/^[0-9A-F]{4}(-[0-9A-F]{4}){4}$/);
    expect(second.data.code).toBe(first.data.code);
  });

  it('is not active before a licence is imported', async () => {
    const detail = await asOperator('/api/v1/manage/license/detail');
    const user = (detail.data.list as { module: string }[]).find((m) => m.module === 'user');
    expect(user).toMatchObject({ status: 'not_active', total: 100, expiresAt: null, reduceDay: null });
    const info = await asOperator('/api/v1/manage/license/info');
    expect((info.data.Info as unknown[])[0]).toMatchObject({ module: 'user', status: 'not_active' });
  });

  it('imports a valid licence and reports each function', async () => {
    const code = (await asOperator('/api/v1/manage/license/code')).data.code as string;
    const licence = await issue(code, ['--users', '3', '--apps', '5', '--modules', 'mfa,radius']);
    const imported = await asOperator('/api/v1/manage/license/import', { license: licence });
    expect(imported.code).toBe(200);
    expect(imported.data.customer).toBe('Example Co');
    const list = imported.data.list as {
      module: string;
      status: string;
      total: number | null;
      remaining: number | null;
      reduceDay: number;
    }[];
    const user = list.find((m) => m.module === 'user')!;
    expect(user).toMatchObject({ status: 'normal', total: 3 });
    expect(user.remaining).toBe(3 - 1); // the licence owner's account
    expect(user.reduceDay).toBeGreaterThan(365);
    expect(list.find((m) => m.module === 'mfa')).toMatchObject({ status: 'normal', total: null });
    expect(list.find((m) => m.module === 'ca')).toMatchObject({ status: 'not_active' });
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .selectAll()
      .where('action', '=', 'license.import')
      .execute();
    expect(audit).toHaveLength(1);
  });

  it('enforces the user quantity when people are added', async () => {
    const add = (username: string) =>
      call(
        ctx,
        '/api/v1/manage/company/user/create',
        { username, role: 'member', password: 'Sunny-Day-42' },
        { token: owner.token, companyId: owner.companyId },
      );
    expect((await add('seat-two')).code).toBe(200);
    expect((await add('seat-three')).code).toBe(200);
    const refused = await add('seat-four');
    expect(refused).toMatchObject({
      code: 403,
      msg: "The installation licence's user quantity (3) has no room for 1 more; a platform administrator can import a larger licence",
    });
    expect(
      await ctx.database.db
        .selectFrom('accounts')
        .select('id')
        .where('username', '=', 'seat-four')
        .executeTakeFirst(),
    ).toBeUndefined();
  });

  it('refuses a tampered licence, a foreign vendor and another installation, keeping the current licence', async () => {
    const code = (await asOperator('/api/v1/manage/license/code')).data.code as string;
    const before = (await asOperator('/api/v1/manage/license/detail')).data.licenseId;
    const valid = await issue(code, ['--users', '1000']);
    const lines = valid.split('\n');
    const body = lines[1]!;
    const tampered = [
      lines[0],
      `${body.slice(0, 10)}${body[10] === 'A' ? 'B' : 'A'}${body.slice(11)}`,
      ...lines.slice(2),
    ].join('\n');
    expect(await asOperator('/api/v1/manage/license/import', { license: tampered })).toMatchObject({
      code: 400,
      data: { reason: 'license.bad_signature' },
    });

    const foreign = generateKeyPairSync('ed25519');
    const foreignKey = join(folder, 'foreign.pem');
    await (await import('node:fs/promises')).writeFile(
      foreignKey,
      foreign.privateKey.export({ type: 'pkcs8', format: 'pem' }),
    );
    const fromForeign = await issue(code, [], foreignKey);
    expect((await asOperator('/api/v1/manage/license/import', { license: fromForeign })).data).toMatchObject({
      reason: 'license.bad_signature',
    });

    const otherInstallation = await issue('AAAA-BBBB-CCCC-DDDD-EEEE');
    const wrong = await asOperator('/api/v1/manage/license/import', { license: otherInstallation });
    expect(wrong).toMatchObject({
      code: 400,
      msg: 'This licence was issued for another installation (application code AAAA-BBBB-CCCC-DDDD-EEEE)',
    });

    expect((await asOperator('/api/v1/manage/license/import', { license: 'hello' })).data).toMatchObject({
      reason: 'license.malformed',
    });
    expect((await asOperator('/api/v1/manage/license/import', { license: '' })).msg).toBe(
      'Please choose a licence file',
    );
    expect((await asOperator('/api/v1/manage/license/detail')).data.licenseId).toBe(before);
  });

  it('lets only platform administrators import', async () => {
    const code = (await asOperator('/api/v1/manage/license/code')).data.code as string;
    const licence = await issue(code);
    const response = await call(
      ctx,
      '/api/v1/manage/license/import',
      { license: licence },
      { token: owner.token, companyId: owner.companyId },
    );
    expect(response).toMatchObject({ code: 403, data: { reason: 'license.platform_admin_only' } });
  });

  it('lists the shipped third-party packages with their licences', async () => {
    const response = await call<{ list: { name: string; version: string; license: string }[] }>(
      ctx,
      '/api/v1/manage/system/third-party',
      {},
      { token: owner.token },
    );
    const names = response.data.list.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['fastify', 'oidc-provider', 'react', 'antd', 'zod']));
    expect(names).not.toContain('vitest');
    // Bundled data (the common-password list) is listed with its licence too.
    expect(names).toContain('@zxcvbn-ts/language-common');
    expect(response.data.list.find((p) => p.name === 'fastify')?.license).toBe('MIT');
  });

  it('reports version and build', async () => {
    const info = await call<Record<string, string>>(
      ctx,
      '/api/v1/manage/system/info',
      {},
      { token: owner.token },
    );
    expect(info.data.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(info.data.build).toBeTruthy();
    expect(['pglite', 'postgres']).toContain(info.data.database);
  });
});
