import { expect } from 'vitest';
import { call, type TestContext } from './harness.ts';

/** Creates an OIDC application of the company with one redirect URI and opens it; answers its client id. */
export async function openedApp(
  ctx: TestContext,
  company: { token: string; companyId: string },
  redirectUri: string,
  name = 'Wiki',
) {
  const created = await call<{ app: { appId: string; clientId: string } }>(
    ctx,
    '/api/v1/manage/app/create',
    { name },
    company,
  );
  const { appId, clientId } = created.data.app;
  await call(ctx, '/api/v1/manage/app/update', { appId, redirectUris: [redirectUri] }, company);
  expect((await call(ctx, '/api/v1/manage/app/status', { appId, status: 'opened' }, company)).code).toBe(200);
  return clientId;
}
