import { permission as calls, decision } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import type { AuthorizationService } from './authorization.service.ts';
import type { DecisionService } from './decision.service.ts';
import type { ResourceService } from './resource.service.ts';
import type { RoleService } from './role.service.ts';

export function permissionRoutes(
  bind: Bind,
  services: {
    resources: ResourceService;
    roles: RoleService;
    authorizations: AuthorizationService;
    decisions: DecisionService;
  },
) {
  const { resources, roles, authorizations, decisions } = services;
  const actor = (ctx: { session: { accountId: string }; ip: string }) => ({
    accountId: ctx.session.accountId,
    ip: ctx.ip,
  });

  bind(calls.listResources, async ({ tenant, body }) => resources.list(tenant.companyId, body));
  bind(calls.createResource, async (ctx) => resources.create(actor(ctx), ctx.tenant.companyId, ctx.body));
  bind(calls.updateResource, async (ctx) => resources.update(actor(ctx), ctx.tenant.companyId, ctx.body));
  bind(calls.deleteResource, async (ctx) =>
    resources.remove(actor(ctx), ctx.tenant.companyId, ctx.body.resourceId),
  );

  bind(calls.listRoles, async ({ tenant, body }) => roles.list(tenant.companyId, body));
  bind(calls.roleDetail, async ({ tenant, body }) => roles.detail(tenant.companyId, body.roleId));
  bind(calls.createRole, async (ctx) => roles.create(actor(ctx), ctx.tenant.companyId, ctx.body));
  bind(calls.updateRole, async (ctx) => roles.update(actor(ctx), ctx.tenant.companyId, ctx.body));
  bind(calls.deleteRole, async (ctx) => roles.remove(actor(ctx), ctx.tenant.companyId, ctx.body.roleId));
  bind(calls.listRoleMembers, async ({ tenant, body }) => roles.members(tenant.companyId, body));
  bind(calls.addRoleMembers, async (ctx) => roles.addMembers(actor(ctx), ctx.tenant.companyId, ctx.body));
  bind(calls.removeRoleMembers, async (ctx) =>
    roles.removeMembers(actor(ctx), ctx.tenant.companyId, ctx.body),
  );
  bind(calls.previewRoleMembers, async ({ tenant, body }) =>
    authorizations.previewMembers(tenant.companyId, body),
  );

  bind(calls.listAuthorizations, async ({ tenant, body }) => authorizations.list(tenant.companyId, body));
  bind(calls.createAuthorization, async (ctx) =>
    authorizations.create(actor(ctx), ctx.tenant.companyId, ctx.body),
  );
  bind(calls.updateAuthorization, async (ctx) =>
    authorizations.update(actor(ctx), ctx.tenant.companyId, ctx.body.authorizationId, ctx.body.authorization),
  );
  bind(calls.deleteAuthorization, async (ctx) =>
    authorizations.remove(actor(ctx), ctx.tenant.companyId, ctx.body.authorizationId),
  );
  bind(calls.previewAuthorization, async ({ tenant, body }) =>
    authorizations.preview(tenant.companyId, body.authorizationId, body.authorization),
  );
  bind(calls.checkAccess, async ({ tenant, body }) => authorizations.check(tenant.companyId, body));

  bind(decision.decideOne, async ({ app, body }) => decisions.check(app, body));
  bind(decision.decideMany, async ({ app, body }) => decisions.checkMany(app, body.checks));
  bind(decision.permittedActions, async ({ app, body }) => decisions.list(app, body.userId, body.ip));
}
