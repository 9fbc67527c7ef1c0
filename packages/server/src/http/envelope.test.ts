import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestContext } from '../test/harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(() => ctx.close());

const post = (
  url: string,
  payload: string,
  headers: Record<string, string> = { 'content-type': 'application/json' },
) => ctx.tessera.app.inject({ method: 'POST', url, payload, headers });

describe('envelope and errors', () => {
  it('answers malformed JSON with 400 in the envelope', async () => {
    const response = await post('/api/v1/sso/config', '{"variant":');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      code: 400,
      msg: 'The request body is not valid JSON',
      data: { reason: 'request.malformed_json' },
    });
  });

  it('answers an unknown path with 404 in the envelope, localised', async () => {
    const response = await ctx.tessera.app.inject({
      method: 'POST',
      url: '/api/v1/manage/nothing',
      headers: { cookie: 'lang=zh' },
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({
      code: 404,
      msg: '接口不存在',
      data: { reason: 'request.route_not_found' },
    });
  });

  it('answers an unsupported content type with 415', async () => {
    const response = await post('/api/v1/sso/config', 'variant=dev', { 'content-type': 'text/plain' });
    expect(response.statusCode).toBe(415);
    expect(response.json().data.reason).toBe('request.unsupported_content_type');
  });

  it('names the field of a validation error and mirrors the code as the HTTP status', async () => {
    const response = await post('/api/v1/sso/config', JSON.stringify({ variant: 'other' }));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 400,
      msg: 'variant is not one of the allowed values',
      data: { reason: 'request.invalid', fields: [{ field: 'variant' }] },
    });
  });

  it('accepts an empty body as an empty object', async () => {
    const response = await post('/api/v1/sso/config', '');
    expect(response.json()).toMatchObject({ code: 200, data: { clientId: 'tessera-console-dev' } });
  });

  it('never sends a stack trace: an internal failure is a plain 500', async () => {
    ctx.tessera.app.log.level = 'silent';
    const original = ctx.database.db.selectFrom.bind(ctx.database.db);
    const db = ctx.database.db as unknown as { selectFrom: unknown };
    db.selectFrom = () => {
      throw new Error('database exploded at secret.ts:42');
    };
    try {
      const response = await ctx.tessera.app.inject({
        method: 'POST',
        url: '/api/v1/manage/company/my/list',
        headers: { access_token: 'x'.repeat(43) },
      });
      expect(response.statusCode).toBe(500);
      expect(response.json()).toEqual({
        code: 500,
        msg: 'Something went wrong on the server, please try again',
        data: { reason: 'internal.error' },
      });
      expect(response.payload).not.toContain('secret.ts');
    } finally {
      db.selectFrom = original;
    }
  });

  it('serves the OpenAPI document with every bound call, and its viewer', async () => {
    const response = await ctx.tessera.app.inject({ method: 'GET', url: '/api/openapi.json' });
    const document = response.json() as {
      openapi: string;
      paths: Record<string, { post: { summary: string } }>;
    };
    expect(document.openapi).toBe('3.0.3');
    expect(Object.keys(document.paths).sort()).toEqual(ctx.tessera.boundCalls.map((c) => c.path).sort());
    expect(document.paths['/api/v1/manage/company/create']!.post.summary).toMatch(/Create a company/);
    // The calls open to programmatic access accounts are marked, with the client credentials scheme.
    const apiCalls = Object.entries(document.paths)
      .filter(([, item]) => (item.post as { 'x-api-access'?: boolean })['x-api-access'])
      .map(([path]) => path);
    expect(apiCalls.sort()).toEqual(
      ctx.tessera.boundCalls
        .filter((c) => c.apiAccess)
        .map((c) => c.path)
        .sort(),
    );
    expect(apiCalls).toContain('/api/v1/manage/user/create');
    expect(apiCalls).not.toContain('/api/v1/manage/app/api-account/create');
    expect(JSON.stringify(document)).toContain('"clientCredentials"');
    const viewer = await ctx.tessera.app.inject({ method: 'GET', url: '/api/docs' });
    expect(viewer.statusCode).toBe(200);
    expect(viewer.payload).toContain('swagger-ui-bundle.js');
    const asset = await ctx.tessera.app.inject({
      method: 'GET',
      url: '/api/docs/assets/swagger-ui-bundle.js',
    });
    expect(asset.statusCode).toBe(200);
  });
});
