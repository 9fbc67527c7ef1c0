import type { TestContext } from '../test/harness.ts';
import { call } from '../test/harness.ts';

/**
 * The tenant wall's probes of the LDAP application calls (issue 32): company B's LDAP
 * application, named by id in A's probes, keeps its settings and its service account secret,
 * and B's base DN never appears in an answer to A.
 */
export function ldapServerWall(ctxOf: () => TestContext, bOf: () => { token: string; companyId: string }) {
  let appId = '';
  let baseDn = '';

  async function setUp() {
    const created = await call<{ app: { appId: string } }>(
      ctxOf(),
      '/api/v1/manage/app/create',
      { name: 'Beta Secret NAS', protocol: 'ldap' },
      bOf(),
    );
    appId = created.data.app.appId;
    const rotated = await call<{ baseDn: string }>(
      ctxOf(),
      '/api/v1/manage/app/ldap/secret/rotate',
      { appId },
      bOf(),
    );
    baseDn = rotated.data.baseDn;
  }

  const stateOfB = async () =>
    JSON.stringify([
      (await call(ctxOf(), '/api/v1/manage/app/ldap/detail', { appId }, bOf())).data,
      await ctxOf()
        .database.db.selectFrom('app_ldap_configs')
        .select(['secret_hash', 'allow_password_with_mfa'])
        .where('app_id', '=', appId)
        .executeTakeFirst(),
    ]);

  const probes: Record<string, () => unknown> = {
    '/api/v1/manage/app/ldap/detail': () => ({ appId }),
    '/api/v1/manage/app/ldap/update': () => ({ appId, allowPasswordWithMfa: true }),
    '/api/v1/manage/app/ldap/secret/rotate': () => ({ appId }),
  };

  return { setUp, stateOfB, probes, secrets: () => [baseDn] };
}
