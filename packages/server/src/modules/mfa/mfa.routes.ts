import { safety as calls } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import type { MfaService } from './mfa.service.ts';
import type { SignatureFactors } from './signature-factors.service.ts';

export function mfaRoutes(bind: Bind, service: MfaService, signatures: SignatureFactors) {
  bind(calls.userMfaFactors, async ({ tenant, body }) => service.listForUser(tenant.companyId, body.userId));
  bind(calls.deleteUserMfaFactor, async ({ session, tenant, body, ip }) =>
    service.unbindForUser({ accountId: session.accountId, ip, role: tenant.role }, tenant.companyId, body),
  );
  bind(calls.bindUserSignatureFactor, async ({ session, tenant, body, ip }) =>
    signatures.bindForUser({ accountId: session.accountId, ip, role: tenant.role }, tenant.companyId, body),
  );
}
