import { company as calls } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import { AppError } from '../../lib/errors.ts';
import type { CompanyService } from './company.service.ts';

export function companyRoutes(bind: Bind, service: CompanyService) {
  bind(calls.myCompanies, async ({ session }) => service.listMine(session.accountId));
  bind(calls.createCompany, async ({ session, body, ip }) =>
    service.create(
      { accountId: session.accountId, isPlatformAdmin: session.isPlatformAdmin, ip },
      session.variant,
      body.name,
    ),
  );
  bind(calls.companyDetailCall, async ({ tenant }) => service.detail(tenant.companyId));
  bind(calls.updateCompany, async ({ session, tenant, body, ip }) =>
    service.update({ accountId: session.accountId, ip }, tenant.companyId, body),
  );
  bind(calls.resetCompanyKey, async ({ session, tenant, ip }) =>
    service.resetKey({ accountId: session.accountId, ip }, tenant.companyId),
  );
  bind(calls.updateCompanyIcon, async ({ session, tenant, file, ip }) => {
    if (!file) throw new AppError('upload.missing_file');
    return service.updateIcon(
      { accountId: session.accountId, ip },
      tenant.companyId,
      file.bytes,
      calls.iconTypes,
    );
  });
  bind(calls.companyMembers, async ({ tenant, body }) => service.members(tenant.companyId, body));
  bind(calls.createCompanyMember, async ({ session, tenant, body, ip, lang }) =>
    service.addMember({ accountId: session.accountId, ip, role: tenant.role }, tenant.companyId, body, lang),
  );
  bind(calls.setCompanyMemberRole, async ({ session, tenant, body, ip }) =>
    service.setMemberRole({ accountId: session.accountId, ip, role: tenant.role }, tenant.companyId, body),
  );
  bind(calls.deleteCompanyMember, async ({ session, tenant, body, ip }) =>
    service.removeMember(
      { accountId: session.accountId, ip, role: tenant.role },
      tenant.companyId,
      body.userId,
    ),
  );
}
