import { department as calls } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import type { DepartmentService } from './department.service.ts';

export function departmentRoutes(bind: Bind, service: DepartmentService) {
  bind(calls.departmentTree, async ({ tenant }) => service.tree(tenant.companyId));
  bind(calls.createDepartment, async ({ session, tenant, body, ip }) =>
    service.create({ accountId: session.accountId, ip }, tenant.companyId, body),
  );
  bind(calls.updateDepartment, async ({ session, tenant, body, ip }) =>
    service.update({ accountId: session.accountId, ip }, tenant.companyId, body),
  );
  bind(calls.moveDepartment, async ({ session, tenant, body, ip }) =>
    service.move({ accountId: session.accountId, ip }, tenant.companyId, body),
  );
  bind(calls.deleteDepartment, async ({ session, tenant, body, ip }) =>
    service.remove({ accountId: session.accountId, ip }, tenant.companyId, body.departmentId),
  );
  bind(calls.addDepartmentMembers, async ({ session, tenant, body, ip }) =>
    service.addMembers({ accountId: session.accountId, ip, role: tenant.role }, tenant.companyId, body),
  );
  bind(calls.removeDepartmentMembers, async ({ session, tenant, body, ip }) =>
    service.removeMembers({ accountId: session.accountId, ip, role: tenant.role }, tenant.companyId, body),
  );
}
