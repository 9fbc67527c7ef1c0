import type { TestContext } from '../test/harness.ts';
import { call } from '../test/harness.ts';

/**
 * The tenant wall's probes of the SMS calls (issue 29): company B's own sign name and template,
 * named in A's probes, must come out as they were and never appear in an answer to A; the
 * platform's provider calls refuse A's administrator whatever B they name.
 */
export function smsWall(ctxOf: () => TestContext, bOf: () => { token: string; companyId: string }) {
  const signName = 'Beta Secret Sign';
  const templateId = 'SMS_BETA_SECRET_1';

  async function setUp() {
    await call(ctxOf(), '/api/v1/manage/company/sms/update', { signName, templateId }, bOf());
  }

  const stateOfB = async () =>
    JSON.stringify(
      await ctxOf()
        .database.db.selectFrom('company_sms_settings')
        .selectAll()
        .where('company_id', '=', bOf().companyId)
        .execute(),
    );

  const probes: Record<string, () => unknown> = {
    '/api/v1/manage/company/sms/conf': () => ({ companyId: bOf().companyId }),
    '/api/v1/manage/company/sms/update': () => ({
      companyId: bOf().companyId,
      signName: 'Planted by A',
      templateId: 'SMS_PLANTED',
    }),
    '/api/v1/manage/platform/sms': () => ({ companyId: bOf().companyId }),
    '/api/v1/manage/platform/sms/update': () => ({
      companyId: bOf().companyId,
      provider: 'aliyun',
      accessKeyId: 'planted',
      accessKeySecret: 'planted',
      signName: 'Planted by A',
      templateId: 'SMS_PLANTED',
    }),
    '/api/v1/manage/platform/sms/test': () => ({ companyId: bOf().companyId, phone: '13800138000' }),
  };

  return { setUp, stateOfB, probes, secrets: () => [signName, templateId] };
}
