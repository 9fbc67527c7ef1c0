import type { TestContext } from '../test/harness.ts';
import { call } from '../test/harness.ts';

/**
 * The tenant wall's probes of the provisioning calls (issue 31): company B's application with a
 * SCIM target, named by id in A's probes, must come out as it was (no run queued, target
 * unchanged), and neither its address nor its token appears in an answer to A.
 */
export function provisioningWall(ctxOf: () => TestContext, bOf: () => { token: string; companyId: string }) {
  const baseUrl = 'http://127.0.0.1:9/scim/beta-secret-provisioning';
  const token = 'beta-secret-scim-token-4f1e';
  let appId = '';

  async function setUp() {
    const created = await call<{ app: { appId: string } }>(
      ctxOf(),
      '/api/v1/manage/app/create',
      { name: 'Beta Secret Payroll' },
      bOf(),
    );
    appId = created.data.app.appId;
    const saved = await call(
      ctxOf(),
      '/api/v1/manage/app/provisioning/update',
      {
        appId,
        baseUrl,
        token,
        userNameFrom: 'username',
        attributes: ['name'],
        lifecycle: 'full',
        onLoss: 'deactivate',
        enabled: true,
      },
      bOf(),
    );
    if (saved.code !== 200) throw new Error(`provisioning target not saved: ${saved.msg}`);
  }

  const stateOfB = async () =>
    JSON.stringify([
      (await call(ctxOf(), '/api/v1/manage/app/provisioning/detail', { appId }, bOf())).data,
      (await call(ctxOf(), '/api/v1/manage/app/provisioning/runs', { appId }, bOf())).data,
    ]);

  const probes: Record<string, () => unknown> = {
    '/api/v1/manage/app/provisioning/detail': () => ({ appId }),
    '/api/v1/manage/app/provisioning/update': () => ({
      appId,
      baseUrl: 'http://127.0.0.1:9/planted',
      token: 'planted',
      userNameFrom: 'email',
      attributes: [],
      lifecycle: 'create_only',
      onLoss: 'delete',
      enabled: false,
    }),
    '/api/v1/manage/app/provisioning/remove': () => ({ appId }),
    '/api/v1/manage/app/provisioning/test': () => ({ appId }),
    '/api/v1/manage/app/provisioning/preview': () => ({ appId }),
    '/api/v1/manage/app/provisioning/run': () => ({ appId }),
    '/api/v1/manage/app/provisioning/runs': () => ({ appId }),
  };

  return { setUp, stateOfB, probes, secrets: () => [baseUrl, token] };
}
