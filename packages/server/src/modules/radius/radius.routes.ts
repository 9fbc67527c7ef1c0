import { radius as calls, type MemberRole } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import type { RadiusService } from './radius.service.ts';

export function radiusRoutes(bind: Bind, service: RadiusService) {
  const actor = (ctx: { session: { accountId: string }; ip: string; tenant: { role: MemberRole } }) => ({
    accountId: ctx.session.accountId,
    ip: ctx.ip,
    role: ctx.tenant.role,
  });
  bind(calls.listRadiusClients, async ({ tenant }) => service.list(tenant.companyId));
  bind(calls.createRadiusClient, async (ctx) => service.create(actor(ctx), ctx.tenant.companyId, ctx.body));
  bind(calls.updateRadiusClient, async (ctx) => service.update(actor(ctx), ctx.tenant.companyId, ctx.body));
  bind(calls.resetRadiusSecret, async (ctx) =>
    service.resetSecret(actor(ctx), ctx.tenant.companyId, ctx.body.clientId),
  );
  bind(calls.deleteRadiusClient, async (ctx) =>
    service.remove(actor(ctx), ctx.tenant.companyId, ctx.body.clientId),
  );
}
