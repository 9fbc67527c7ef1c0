import { app as calls } from '@tessera/contract';
import type { Bind, CallContext } from '../../http/bind.ts';
import { AppError } from '../../lib/errors.ts';
import type { AppService } from './app.service.ts';

const actorOf = (ctx: Pick<CallContext<unknown>, 'session' | 'ip'>) => ({
  accountId: ctx.session.accountId,
  ip: ctx.ip,
});

export function appRoutes(bind: Bind, service: AppService) {
  bind(calls.listApps, async ({ tenant, body }) => service.list(tenant.companyId, body));
  bind(calls.createApp, async (ctx) => service.create(actorOf(ctx), ctx.tenant.companyId, ctx.body));
  bind(calls.appDetailCall, async ({ tenant, body }) => service.detail(tenant.companyId, body.appId));
  bind(calls.updateApp, async (ctx) => service.update(actorOf(ctx), ctx.tenant.companyId, ctx.body));
  bind(calls.setAppStatus, async (ctx) => service.setStatus(actorOf(ctx), ctx.tenant.companyId, ctx.body));
  bind(calls.deleteApp, async (ctx) => service.remove(actorOf(ctx), ctx.tenant.companyId, ctx.body.appId));
  bind(calls.resetAppSecret, async (ctx) =>
    service.resetSecret(actorOf(ctx), ctx.tenant.companyId, ctx.body.appId),
  );
  bind(calls.uploadAppLogo, async (ctx) => {
    if (!ctx.file) throw new AppError('upload.missing_file');
    return service.uploadLogo(
      actorOf(ctx),
      ctx.tenant.companyId,
      ctx.body.appId,
      ctx.file.bytes,
      calls.uploadAppLogo.upload?.types ?? [],
    );
  });
  bind(calls.listAppAssignments, async ({ tenant, body }) => service.assignments(tenant.companyId, body));
  bind(calls.addAppAssignments, async (ctx) => service.assign(actorOf(ctx), ctx.tenant.companyId, ctx.body));
  bind(calls.removeAppAssignments, async (ctx) =>
    service.unassign(actorOf(ctx), ctx.tenant.companyId, ctx.body),
  );
  bind(calls.listAppGroupAssignments, async ({ tenant, body }) =>
    service.groupAssignments(tenant.companyId, body),
  );
  bind(calls.addAppGroupAssignments, async (ctx) =>
    service.assignGroups(actorOf(ctx), ctx.tenant.companyId, ctx.body),
  );
  bind(calls.removeAppGroupAssignments, async (ctx) =>
    service.unassignGroups(actorOf(ctx), ctx.tenant.companyId, ctx.body),
  );
  bind(calls.listApiAccounts, async ({ tenant, body }) => service.apiAccounts(tenant.companyId, body.appId));
  bind(calls.createApiAccount, async (ctx) =>
    service.createApiAccount(actorOf(ctx), ctx.tenant.companyId, ctx.body),
  );
  bind(calls.updateApiAccount, async (ctx) =>
    service.updateApiAccount(actorOf(ctx), ctx.tenant.companyId, ctx.body),
  );
  bind(calls.resetApiAccountSecret, async (ctx) =>
    service.resetApiAccountSecret(actorOf(ctx), ctx.tenant.companyId, ctx.body),
  );
  bind(calls.deleteApiAccount, async (ctx) =>
    service.deleteApiAccount(actorOf(ctx), ctx.tenant.companyId, ctx.body),
  );
  bind(calls.appFormConfig, async ({ tenant, body }) => service.formConfig(tenant.companyId, body.appId));
  bind(calls.updateAppFormConfig, async (ctx) =>
    service.updateFormConfig(actorOf(ctx), ctx.tenant.companyId, ctx.body),
  );
}
