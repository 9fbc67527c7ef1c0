import { scimTokens as calls } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import type { ScimTokenService } from './scim-tokens.service.ts';

/** The console's SCIM token calls (company settings). */
export function scimTokenRoutes(bind: Bind, service: ScimTokenService) {
  bind(calls.scimTokens, async ({ tenant }) => service.overview(tenant.companyId));
  bind(calls.createScimToken, async ({ session, tenant, body, ip }) =>
    service.create({ accountId: session.accountId, ip }, tenant.companyId, body),
  );
  bind(calls.revokeScimToken, async ({ session, tenant, body, ip }) =>
    service.revoke({ accountId: session.accountId, ip }, tenant.companyId, body.tokenId),
  );
  bind(calls.updateScimSettings, async ({ session, tenant, body, ip }) =>
    service.setAllowPasswords({ accountId: session.accountId, ip }, tenant.companyId, body.allowPasswords),
  );
}
