import { newId } from '../lib/ids.ts';
import type { CompanyB } from './tenant-wall.people.ts';

/**
 * Tenant-wall probes of logs, the dashboard, syslog and the brand (issue 16; tenant-wall.test.ts):
 * a failed sign-in of B's member, named with B's ids in A's probes (the log export is read back
 * as text); B's syslog, brand and log settings must stay as they were (unset).
 */
export function logWall(context: () => CompanyB & { bAppId: string }) {
  async function setUp() {
    const { ctx, b, bMemberId } = context();
    await ctx.database.db
      .insertInto('login_events')
      .values({
        id: newId(),
        company_id: b.companyId,
        account_id: bMemberId,
        identifier: 'beta-staff',
        client_id: null,
        ip: '81.2.69.142',
        user_agent: null,
        result: 'failure',
        failure_cause: 'wrong_password',
        country: 'GB',
      })
      .execute();
  }

  /** B's syslog, brand and log settings rows. */
  const settingsOfB = async () => {
    const { ctx, b } = context();
    return Promise.all(
      (['company_syslog', 'company_brand', 'company_log_settings'] as const).map((table) =>
        ctx.database.db.selectFrom(table).selectAll().where('company_id', '=', b.companyId).execute(),
      ),
    );
  };

  const companyId = () => context().b.companyId;
  const windowBody = () => ({ companyId: companyId(), window: 'month' });
  const probes: Record<string, () => unknown> = {
    '/api/v1/manage/index/user-data-overview': () => ({ companyId: companyId() }),
    '/api/v1/manage/index/user-login-trend': windowBody,
    '/api/v1/manage/index/user-mfa-info': () => ({ companyId: companyId() }),
    '/api/v1/manage/index/app-login-count': windowBody,
    '/api/v1/manage/index/app-login-trend': windowBody,
    '/api/v1/manage/index/app-login-count-ratio': windowBody,
    '/api/v1/manage/index/new-fail-list': () => ({ companyId: companyId() }),
    '/api/v1/manage/index/fail-trend': windowBody,
    '/api/v1/manage/index/login-hotspot': () => ({ companyId: companyId(), scope: 'world' }),
    '/api/v1/manage/index/new-login-list': () => ({ companyId: companyId() }),
    '/api/v1/manage/log/sign-in/list': () => ({
      companyId: companyId(),
      userId: context().bMemberId,
      appId: context().bAppId,
    }),
    '/api/v1/manage/log/admin/list': () => ({ companyId: companyId(), actorId: context().b.account.id }),
    '/api/v1/manage/log/admin/actions': () => ({ companyId: companyId() }),
    '/api/v1/manage/log/export': () => ({ view: 'signin', format: 'xlsx', userId: context().bMemberId }),
    '/api/v1/manage/log/settings': () => ({ companyId: companyId() }),
    '/api/v1/manage/log/settings/update': () => ({ companyId: companyId(), retentionDays: 1 }),
    '/api/v1/manage/company/syslog/conf': () => ({ companyId: companyId() }),
    '/api/v1/manage/company/syslog/update': () => ({
      companyId: companyId(),
      enabled: true,
      protocol: 'udp',
      host: '127.0.0.1',
      port: 514,
      tag: 'planted',
    }),
    '/api/v1/manage/company/syslog/status': () => ({ companyId: companyId() }),
    '/api/v1/manage/brand/detail': () => ({ companyId: companyId() }),
    '/api/v1/manage/brand/update': () => ({ companyId: companyId(), title: 'Planted by A' }),
    '/api/v1/manage/brand/preview': () => ({ companyId: companyId(), title: 'Planted by A' }),
    '/api/v1/manage/brand/logo': () => ({}),
    '/api/v1/manage/brand/background': () => ({}),
  };

  return { setUp, probes, secrets: () => [], settingsOfB };
}
