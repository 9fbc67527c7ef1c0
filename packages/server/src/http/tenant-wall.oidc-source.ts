import { call, type TestContext } from '../test/harness.ts';

/**
 * Tenant-wall probes of the OpenID Connect identity source (issue 33): B's upstream source with
 * a sealed client secret; A's test of an issuer must neither reach nor tell anything of B's, and
 * B's source and its sealed secret come out unchanged.
 */

type Company = { token: string; companyId: string };

export function oidcSourceWall(context: () => { ctx: TestContext; b: Company }) {
  let sourceId = '';
  const clientSecret = 'Beta-Upstream-Secret-1';

  async function setUp() {
    const { ctx, b } = context();
    const created = await call<{ sourceId: string }>(
      ctx,
      '/api/v1/manage/identity-source/create',
      {
        type: 'oidc',
        name: 'Beta Upstream',
        // Nothing listens on port 1: a sign-in or test there fails at once.
        issuer: 'http://127.0.0.1:1/beta',
        clientId: 'beta-client',
        clientSecret,
        emailDomains: ['beta.example'],
      },
      b,
    );
    if (created.code !== 200) throw new Error(`B's upstream source not created: ${created.msg}`);
    sourceId = created.data.sourceId;
  }

  async function stateOfB() {
    const { ctx, b } = context();
    const detail = await call(ctx, '/api/v1/manage/identity-source/detail', { sourceId }, b);
    const sealed = await ctx.database.db
      .selectFrom('identity_sources')
      .select(['settings', 'secret_sealed'])
      .where('id', '=', sourceId)
      .execute();
    return JSON.stringify([detail.data, sealed]);
  }

  const probes: Record<string, () => unknown> = {
    '/api/v1/manage/identity-source/oidc/test': () => ({ sourceId, issuer: 'http://127.0.0.1:1/beta' }),
  };

  return { setUp, stateOfB, probes, secrets: () => [clientSecret, 'beta-client', 'Beta Upstream', sourceId] };
}
