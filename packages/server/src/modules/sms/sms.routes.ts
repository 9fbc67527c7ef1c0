import { sms as calls } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import type { SmsService } from './sms.service.ts';

export function smsRoutes(bind: Bind, service: SmsService) {
  const actor = (session: { accountId: string; isPlatformAdmin: boolean }, ip: string) => ({
    accountId: session.accountId,
    isPlatformAdmin: session.isPlatformAdmin,
    ip,
  });
  bind(calls.platformSms, async ({ session, ip }) => service.platformSettings(actor(session, ip)));
  bind(calls.updatePlatformSms, async ({ session, body, ip }) =>
    service.updatePlatformSettings(actor(session, ip), body),
  );
  bind(calls.testPlatformSms, async ({ session, body, ip }) =>
    service.sendTest(actor(session, ip), body.phone),
  );
  bind(calls.companySms, async ({ tenant }) => service.companySettings(tenant.companyId));
  bind(calls.updateCompanySms, async ({ session, tenant, body, ip }) =>
    service.updateCompanySettings({ accountId: session.accountId, ip }, tenant.companyId, body),
  );
}
