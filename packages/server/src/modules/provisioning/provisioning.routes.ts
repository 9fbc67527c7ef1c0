import { appProvisioning as calls } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import type { ProvisioningService } from './provisioning.service.ts';
import type { ProvisioningTargets } from './provisioning-target.service.ts';

/** The console's provisioning calls (contract calls/app-provisioning.ts). */
export function provisioningRoutes(bind: Bind, targets: ProvisioningTargets, runs: ProvisioningService) {
  const actor = (ctx: { session: { accountId: string }; ip: string }) => ({
    accountId: ctx.session.accountId,
    ip: ctx.ip,
  });
  bind(calls.provisioningDetail, ({ tenant, lang, body }) => runs.detail(tenant.companyId, lang, body.appId));
  bind(calls.updateProvisioning, (ctx) => targets.update(actor(ctx), ctx.tenant.companyId, ctx.body));
  bind(calls.removeProvisioning, (ctx) => targets.remove(actor(ctx), ctx.tenant.companyId, ctx.body.appId));
  bind(calls.testProvisioning, ({ tenant, lang, body }) => targets.test(tenant.companyId, lang, body.appId));
  bind(calls.previewProvisioning, ({ tenant, body }) => runs.preview(tenant.companyId, body.appId));
  bind(calls.runProvisioning, (ctx) =>
    runs.runNow(actor(ctx), ctx.tenant.companyId, ctx.lang, ctx.body.appId),
  );
  bind(calls.listProvisioningRuns, ({ tenant, lang, body }) => runs.list(tenant.companyId, lang, body));
}
