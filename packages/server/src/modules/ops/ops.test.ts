import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthorization, submitSignIn } from '../../test/browser-flow.ts';
import { createAccount, startTestApp, type TestContext } from '../../test/harness.ts';

/**
 * Issue 20, operations: liveness and readiness for an orchestrator, and Prometheus metrics for a
 * bearer token only (requests by route pattern, sign-ins by result, grants, the job backlog).
 */

const token = 'metrics-token-for-the-test-0123456789';
let ctx: TestContext;
let plain: TestContext;
beforeAll(async () => {
  [ctx, plain] = await Promise.all([startTestApp({ listen: true, metricsToken: token }), startTestApp()]);
});
afterAll(() => Promise.all([ctx.close(), plain.close()]));

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${ctx.baseUrl}${path}`, { headers });

describe('health, readiness and metrics', () => {
  it('answers /healthz without the database, and /readyz only while every migration is applied', async () => {
    const health = await get('/healthz');
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });

    const ready = await plain.tessera.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ status: 'ready' });

    const latest = await plain.database.db
      .selectFrom('schema_migrations')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirstOrThrow();
    await plain.database.db.deleteFrom('schema_migrations').where('id', '=', Number(latest.id)).execute();
    const behind = await plain.tessera.app.inject({ url: '/readyz' });
    expect(behind.statusCode).toBe(503);
    expect(behind.json()).toEqual({
      status: 'migrating',
      migration: Number(latest.id) - 1,
      expected: Number(latest.id),
    });
  });

  it('serves no metrics without a configured token', async () => {
    const response = await plain.tessera.app.inject({
      url: '/metrics',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.statusCode).toBe(404);
  });

  it('asks for the bearer token, then counts requests by route pattern, sign-ins by result and the job backlog', async () => {
    expect((await get('/metrics')).status).toBe(401);
    expect((await get('/metrics', { authorization: `Bearer ${token}x` })).status).toBe(401);
    expect((await get('/metrics', { authorization: token })).status).toBe(401);

    await createAccount(ctx, { username: 'metered', password: 'Correct-horse-1' });
    const start = await startAuthorization({
      baseUrl: ctx.baseUrl,
      clientId: 'tessera-console-dev',
      redirectUri: `${ctx.baseUrl}/dev/`,
    });
    await submitSignIn(start.jar, start.location, 'metered', 'a-wrong-password');
    await get('/api/v1/manage/user/no-such-call/12345');

    const response = await get('/metrics', { authorization: `Bearer ${token}` });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toMatch(/tessera_http_requests_total\{method="GET",route="\/healthz",status="200"\} \d/);
    expect(text).toMatch(/tessera_sign_ins_total\{result="wrong_password"\} 1/);
    expect(text).toContain('tessera_jobs_backlog');
    expect(text).toContain('process_resident_memory_bytes');
    // A URL never becomes a label: unknown paths are counted under one pattern.
    expect(text).not.toContain('no-such-call');
    expect(text).not.toContain('a-wrong-password');
  });
});
