import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, startAuthorization } from '../../test/browser-flow.ts';
import {
  call,
  ownerWithCompany,
  startTestApp,
  type TestContext,
  TINY_PNG,
  upload,
} from '../../test/harness.ts';

/** Issue 16: a company's brand on its sign-in pages. */
let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
const asOwner = (lang?: string) => ({ token: owner.token, companyId: owner.companyId, lang });
const redirectUri = 'http://localhost:7001/callback';

async function openedApp() {
  const created = await call<{ app: { appId: string; clientId: string } }>(
    ctx,
    '/api/v1/manage/app/create',
    { name: 'Intranet' },
    asOwner(),
  );
  const { appId, clientId } = created.data.app;
  await call(ctx, '/api/v1/manage/app/update', { appId, redirectUris: [redirectUri] }, asOwner());
  await call(ctx, '/api/v1/manage/app/status', { appId, status: 'opened' }, asOwner());
  return clientId;
}

async function signInPage(clientId: string, headers: Record<string, string> = {}, lang?: string) {
  const started = await startAuthorization({ baseUrl: ctx.baseUrl, clientId, redirectUri });
  if (lang) started.jar.cookies.set('lang', lang);
  const page = await request(started.jar, started.location, { headers });
  return page.text();
}

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  owner = await ownerWithCompany(ctx, 'brand-owner', 'Brand Works');
});
afterAll(() => ctx.close());

describe('brand settings', () => {
  it('refuses a bad colour or link in both languages and stores nothing', async () => {
    const before = await call(ctx, '/api/v1/manage/brand/detail', {}, asOwner());
    for (const [body, en, zh] of [
      [
        { primaryColor: 'blue' },
        'The primary colour is a hex colour such as #1677ff',
        '主色须为十六进制颜色，例如 #1677ff',
      ],
      [
        { footerLink: 'javascript:alert(1)' },
        'The link must be a complete https or http address',
        '链接须为完整的 https 或 http 地址',
      ],
    ] as const) {
      expect(await call(ctx, '/api/v1/manage/brand/update', body, asOwner('en'))).toMatchObject({
        code: 400,
        msg: en,
      });
      expect(await call(ctx, '/api/v1/manage/brand/update', body, asOwner('zh'))).toMatchObject({
        code: 400,
        msg: zh,
      });
    }
    expect(await call(ctx, '/api/v1/manage/brand/detail', {}, asOwner())).toEqual(before);
  });

  it('sniffs uploads by their bytes and sanitises SVG', async () => {
    const fake = await upload(
      ctx,
      '/api/v1/manage/brand/logo',
      {
        bytes: Buffer.from('<html><script>alert(1)</script></html>'),
        filename: 'logo.png',
        type: 'image/png',
      },
      asOwner(),
    );
    expect(fake).toMatchObject({ code: 415, data: { reason: 'upload.unsupported_type' } });
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script><rect width="10" height="10" fill="#c00"/></svg>',
    );
    const logo = await upload(
      ctx,
      '/api/v1/manage/brand/logo',
      { bytes: svg, filename: 'logo.svg', type: 'image/svg+xml' },
      asOwner(),
    );
    expect(logo.code).toBe(200);
    const stored = await ctx.tessera.app.inject({ method: 'GET', url: logo.data.logo as string });
    expect(stored.headers['content-type']).toBe('image/svg+xml');
    expect(stored.body).toContain('<rect');
    expect(stored.body).not.toMatch(/script|onload/i);
    const big = await upload(
      ctx,
      '/api/v1/manage/brand/background',
      {
        bytes: Buffer.concat([TINY_PNG, Buffer.alloc(3 * 1024 * 1024)]),
        filename: 'bg.png',
        type: 'image/png',
      },
      asOwner(),
    );
    expect(big).toMatchObject({ code: 413 });
  });
});

describe('branded sign-in pages', () => {
  it("shows the company's brand for its applications, in its default language, and the platform's look elsewhere", async () => {
    const clientId = await openedApp();
    await upload(
      ctx,
      '/api/v1/manage/brand/background',
      { bytes: TINY_PNG, filename: 'bg.png', type: 'image/png' },
      asOwner(),
    );
    const saved = await call(
      ctx,
      '/api/v1/manage/brand/update',
      {
        primaryColor: '#C41D7F',
        title: 'Brand Works Sign-in',
        footerText: '京ICP备12345678号',
        footerLink: 'https://beian.miit.gov.cn/',
        defaultLanguage: 'zh',
      },
      asOwner(),
    );
    expect(saved).toMatchObject({ code: 200, data: { primaryColor: '#c41d7f', defaultLanguage: 'zh' } });
    const branded = await signInPage(clientId, { 'accept-language': 'en' });
    expect(branded).toContain('<html lang="zh-CN">');
    expect(branded).toContain('<strong>Brand Works Sign-in</strong>');
    expect(branded).toContain(
      '<a href="https://beian.miit.gov.cn/" target="_blank" rel="noopener noreferrer">京ICP备12345678号</a>',
    );
    expect(branded).not.toMatch(/<script|style="/);
    const stylesheet = /<link rel="stylesheet" href="(\/portal\/brand\/[^"]+)">/.exec(branded)?.[1] as string;
    const css = await (await fetch(`${ctx.baseUrl}${stylesheet}`)).text();
    expect(css).toContain('--primary:#c41d7f');
    expect(css).toMatch(/body\{background:#f5f7fa url\("\/api\/v1\/files\/[0-9a-f-]+"\)/);
    // A person who chose English keeps it.
    const chosen = await signInPage(clientId, { 'accept-language': 'zh' }, 'en');
    expect(chosen).toContain('<html lang="en">');
    // Another company's application, and the platform's own pages, keep the platform's look.
    const other = await ownerWithCompany(ctx, 'plain-owner', 'Plain Works');
    const created = await call<{ app: { appId: string; clientId: string } }>(
      ctx,
      '/api/v1/manage/app/create',
      { name: 'Plain' },
      { token: other.token, companyId: other.companyId },
    );
    await call(
      ctx,
      '/api/v1/manage/app/update',
      { appId: created.data.app.appId, redirectUris: [redirectUri] },
      { token: other.token, companyId: other.companyId },
    );
    await call(
      ctx,
      '/api/v1/manage/app/status',
      { appId: created.data.app.appId, status: 'opened' },
      { token: other.token, companyId: other.companyId },
    );
    const plain = await signInPage(created.data.app.clientId);
    expect(plain).not.toContain('Brand Works');
    expect(plain).not.toContain('class="branded"');
  });
});
