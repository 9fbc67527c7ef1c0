import { safety as calls } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import type { SafetyService } from './safety.service.ts';

export function safetyRoutes(bind: Bind, service: SafetyService) {
  bind(calls.getGeneralSafety, async ({ tenant }) => service.general(tenant.companyId));
  bind(calls.updateGeneralSafety, async ({ session, tenant, body, ip }) =>
    service.updateGeneral({ accountId: session.accountId, ip, role: tenant.role }, tenant.companyId, body),
  );
  bind(calls.getMfaSafety, async ({ tenant }) => service.mfa(tenant.companyId));
  bind(calls.updateMfaSafety, async ({ session, tenant, body, ip }) =>
    service.updateMfa({ accountId: session.accountId, ip, role: tenant.role }, tenant.companyId, body),
  );
}
