import { consoleRole as calls } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import type { ConsoleRoleService } from './console-role.service.ts';

export function consoleRoleRoutes(bind: Bind, service: ConsoleRoleService) {
  bind(calls.listConsoleRoles, async ({ tenant }) => service.list(tenant.companyId));
  bind(calls.createConsoleRole, async ({ session, tenant, body, ip }) =>
    service.create({ accountId: session.accountId, ip, role: tenant.role }, tenant.companyId, body),
  );
  bind(calls.updateConsoleRole, async ({ session, tenant, body, ip }) =>
    service.update({ accountId: session.accountId, ip, role: tenant.role }, tenant.companyId, body),
  );
  bind(calls.deleteConsoleRole, async ({ session, tenant, body, ip }) =>
    service.remove({ accountId: session.accountId, ip, role: tenant.role }, tenant.companyId, body.roleId),
  );
  bind(calls.assignConsoleRole, async ({ session, tenant, body, ip }) =>
    service.assign(
      { accountId: session.accountId, ip, role: tenant.role },
      tenant.companyId,
      body.userId,
      body.roleId,
    ),
  );
  bind(calls.myConsoleAccess, async ({ session, tenant }) =>
    service.myAccess(tenant.companyId, session.accountId, tenant.role, tenant.grants),
  );
}
