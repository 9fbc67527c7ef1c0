import { insertRun } from '../modules/identity-source/sync/sync-runs.repo.ts';
import { call, type TestContext } from '../test/harness.ts';

/**
 * Tenant-wall probes of the identity sources (tenant-wall.test.ts): an LDAP source of company B
 * with a sealed bind password, a DingTalk source and a finished preview of B, named by id in
 * A's probes. B's view of its sources and runs must come out unchanged, and no probe may answer
 * anything of them.
 */

type Company = { token: string; companyId: string };

export const identitySourceSecretsOfB = ['Beta Directory', 'Beta DingTalk', 'dingBetaKey'];

const ldapSettings = {
  type: 'ldap' as const,
  name: 'Planted by A',
  // Nothing listens on port 1: a test made with these settings fails at once.
  url: 'ldap://127.0.0.1:1',
  bindDn: 'cn=reader,dc=beta,dc=test',
  userRootDn: 'ou=people,dc=beta,dc=test',
  usernameAttribute: 'uid',
  uniqueIdAttribute: 'entryUUID',
  userFilter: '(objectClass=inetOrgPerson)',
};

export function identitySourceWall(context: () => { ctx: TestContext; b: Company }) {
  let ldapId = '';
  let dingtalkId = '';
  let runId = '';

  async function setUp() {
    const { ctx, b } = context();
    const ldap = await call<{ sourceId: string }>(
      ctx,
      '/api/v1/manage/identity-source/create',
      { ...ldapSettings, name: 'Beta Directory', bindPassword: 'Beta-Bind-Secret-1' },
      b,
    );
    ldapId = ldap.data.sourceId;
    const dingtalk = await call<{ sourceId: string }>(
      ctx,
      '/api/v1/manage/identity-source/create',
      { type: 'dingtalk', name: 'Beta DingTalk', appKey: 'dingBetaKey', appSecret: 'Beta-App-Secret-1' },
      b,
    );
    dingtalkId = dingtalk.data.sourceId;
    runId = await insertRun(ctx.database.db, {
      companyId: b.companyId,
      sourceId: ldapId,
      mode: 'preview',
      trigger: 'manual',
      requestedBy: null,
    });
    await ctx.database.db
      .updateTable('sync_runs')
      .set({ status: 'succeeded' })
      .where('id', '=', runId)
      .execute();
  }

  /** What B sees of its sources and runs, with what is stored sealed. */
  async function stateOfB() {
    const { ctx, b } = context();
    const list = await call(ctx, '/api/v1/manage/identity-source/list', {}, b);
    const detail = await call(ctx, '/api/v1/manage/identity-source/detail', { sourceId: ldapId }, b);
    const runs = await call(ctx, '/api/v1/manage/identity-source/sync/runs', { sourceId: ldapId }, b);
    const sealed = await ctx.database.db
      .selectFrom('identity_sources')
      .select(['id', 'secret_sealed', 'enabled'])
      .where('company_id', '=', b.companyId)
      .orderBy('id')
      .execute();
    return JSON.stringify([list.data, detail.data, runs.data, sealed]);
  }

  const probes: Record<string, () => unknown> = {
    '/api/v1/manage/identity-source/list': () => ({}),
    '/api/v1/manage/identity-source/detail': () => ({ sourceId: ldapId }),
    '/api/v1/manage/identity-source/create': () => ({ ...ldapSettings, sourceId: ldapId }),
    '/api/v1/manage/identity-source/update': () => ({ ...ldapSettings, sourceId: ldapId }),
    '/api/v1/manage/identity-source/status': () => ({ sourceId: dingtalkId, enabled: false }),
    '/api/v1/manage/identity-source/del': () => ({ sourceId: ldapId }),
    // With B's source named, a test must not use B's stored bind password (nor say anything of it).
    '/api/v1/manage/identity-source/ldap/test-connection': () => ({
      sourceId: ldapId,
      settings: ldapSettings,
    }),
    '/api/v1/manage/identity-source/ldap/test-user': () => ({
      sourceId: ldapId,
      settings: ldapSettings,
      testUsername: 'beta-staff',
      testPassword: 'x',
    }),
    '/api/v1/manage/identity-source/sync/preview': () => ({ sourceId: ldapId }),
    '/api/v1/manage/identity-source/sync/apply': () => ({ sourceId: ldapId, runId }),
    '/api/v1/manage/identity-source/sync/start': () => ({ sourceId: dingtalkId }),
    '/api/v1/manage/identity-source/sync/runs': () => ({ sourceId: ldapId }),
    '/api/v1/manage/identity-source/sync/run': () => ({ sourceId: ldapId, runId }),
    '/api/v1/manage/identity-source/sync/rows': () => ({ sourceId: ldapId, runId, kind: 'created' }),
  };

  return { setUp, stateOfB, probes, secrets: () => [...identitySourceSecretsOfB, ldapId, dingtalkId, runId] };
}
