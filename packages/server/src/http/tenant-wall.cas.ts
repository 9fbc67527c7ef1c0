import type { TestContext } from '../test/harness.ts';
import { call } from '../test/harness.ts';

/**
 * The tenant wall's probes of the CAS settings calls (issue 30): company B's CAS application,
 * named by id in A's probes, must come out as it was, and its service URL never appears in an
 * answer to A.
 */
export function casWall(ctxOf: () => TestContext, bOf: () => { token: string; companyId: string }) {
  const service = 'https://oa.beta-secret.example/cas';
  let appId = '';

  async function setUp() {
    const created = await call<{ app: { appId: string } }>(
      ctxOf(),
      '/api/v1/manage/app/create',
      { name: 'Beta Secret OA', protocol: 'cas' },
      bOf(),
    );
    appId = created.data.app.appId;
    await call(
      ctxOf(),
      '/api/v1/manage/app/cas/update',
      { appId, servicePatterns: [{ kind: 'prefix', value: service }] },
      bOf(),
    );
  }

  const stateOfB = async () =>
    JSON.stringify((await call(ctxOf(), '/api/v1/manage/app/cas/detail', { appId }, bOf())).data);

  const probes: Record<string, () => unknown> = {
    '/api/v1/manage/app/cas/detail': () => ({ appId }),
    '/api/v1/manage/app/cas/update': () => ({
      appId,
      servicePatterns: [{ kind: 'exact', value: 'https://planted.example/cas' }],
    }),
  };

  return { setUp, stateOfB, probes, secrets: () => [service] };
}
