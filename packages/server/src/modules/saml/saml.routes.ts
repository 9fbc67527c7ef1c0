import { saml as calls } from '@tessera/contract';
import type { Bind, CallContext } from '../../http/bind.ts';
import type { SamlConfigService } from './saml-config.service.ts';

const actorOf = (ctx: Pick<CallContext<unknown>, 'session' | 'ip'>) => ({
  accountId: ctx.session.accountId,
  ip: ctx.ip,
});

/** The console's SAML calls (contract calls/saml.ts). */
export function samlRoutes(bind: Bind, service: SamlConfigService) {
  bind(calls.samlDetail, async ({ tenant, body }) => service.detail(tenant.companyId, body.appId));
  bind(calls.updateSaml, async (ctx) => service.update(actorOf(ctx), ctx.tenant.companyId, ctx.body));
  bind(calls.importSamlMetadata, async (ctx) =>
    service.importMetadata(actorOf(ctx), ctx.tenant.companyId, ctx.body),
  );
  bind(calls.samlIdpDetail, async ({ tenant }) => service.idp(tenant.companyId));
  bind(calls.prepareSamlKey, async (ctx) => service.prepareKey(actorOf(ctx), ctx.tenant.companyId));
  bind(calls.activateSamlKey, async (ctx) => service.activateKey(actorOf(ctx), ctx.tenant.companyId));
  bind(calls.discardSamlKey, async (ctx) => service.discardKey(actorOf(ctx), ctx.tenant.companyId));
}
