import { safety as calls } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import type { MfaService } from './mfa.service.ts';

export function mfaRoutes(bind: Bind, service: MfaService) {
  bind(calls.userMfaFactors, async ({ tenant, body }) => service.listForUser(tenant.companyId, body.userId));
  bind(calls.deleteUserMfaFactor, async ({ session, tenant, body, ip }) =>
    service.unbindForUser({ accountId: session.accountId, ip, role: tenant.role }, tenant.companyId, body),
  );
}
