import { ldapServer as calls } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import type { LdapConfigService } from './ldap-config.service.ts';

/** The console's LDAP calls (contract calls/ldap-server.ts). */
export function ldapConfigRoutes(bind: Bind, service: LdapConfigService) {
  bind(calls.ldapAppDetail, async ({ tenant, body }) => service.detail(tenant.companyId, body.appId));
  bind(calls.updateLdapApp, async (ctx) =>
    service.update({ accountId: ctx.session.accountId, ip: ctx.ip }, ctx.tenant.companyId, ctx.body),
  );
  bind(calls.rotateLdapSecret, async (ctx) =>
    service.rotateSecret(
      { accountId: ctx.session.accountId, ip: ctx.ip },
      ctx.tenant.companyId,
      ctx.body.appId,
    ),
  );
}
