import type { TestContext } from '../test/harness.ts';
import { call } from '../test/harness.ts';

/**
 * The tenant wall's probes of the SCIM token calls (issue 31): B's token, named by id in A's
 * probes, must stay as it was (not revoked), its name never appear in an answer to A, and B's
 * password setting stay on.
 */
export function scimWall(ctxOf: () => TestContext, bOf: () => { token: string; companyId: string }) {
  const tokenName = 'Beta Secret Entra';
  let bTokenId = '';

  async function setUp() {
    const created = await call<{ tokenId: string }>(
      ctxOf(),
      '/api/v1/manage/company/scim/token/create',
      { name: tokenName, expiresInDays: null, groupsAs: 'departments' },
      bOf(),
    );
    bTokenId = created.data.tokenId;
    await call(ctxOf(), '/api/v1/manage/company/scim/settings/update', { allowPasswords: true }, bOf());
  }

  const stateOfB = async () => {
    const { db } = ctxOf().database;
    const tokens = await db
      .selectFrom('scim_tokens')
      .select(['id', 'name', 'token_hash', 'expires_at'])
      .where('company_id', '=', bOf().companyId)
      .execute();
    const settings = await db
      .selectFrom('scim_settings')
      .select('allow_passwords')
      .where('company_id', '=', bOf().companyId)
      .execute();
    return JSON.stringify({ tokens, settings });
  };

  const probes: Record<string, () => unknown> = {
    '/api/v1/manage/company/scim/tokens': () => ({ companyId: bOf().companyId }),
    '/api/v1/manage/company/scim/token/create': () => ({
      companyId: bOf().companyId,
      name: 'Planted by A',
      expiresInDays: 1,
    }),
    '/api/v1/manage/company/scim/token/revoke': () => ({ tokenId: bTokenId }),
    '/api/v1/manage/company/scim/settings/update': () => ({
      companyId: bOf().companyId,
      allowPasswords: false,
    }),
  };

  return { setUp, stateOfB, probes, secrets: () => [tokenName] };
}
