import { cas as calls } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import type { CasConfigService } from './cas-config.service.ts';

/** The console's CAS calls (contract calls/cas.ts). */
export function casRoutes(bind: Bind, service: CasConfigService) {
  bind(calls.casDetail, async ({ tenant, body }) => service.detail(tenant.companyId, body.appId));
  bind(calls.updateCas, async (ctx) =>
    service.update({ accountId: ctx.session.accountId, ip: ctx.ip }, ctx.tenant.companyId, ctx.body),
  );
}
