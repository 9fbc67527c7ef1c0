import { user as calls, photoTypes } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import { AppError } from '../../lib/errors.ts';
import type { UserService } from './user.service.ts';

export function userRoutes(bind: Bind, service: UserService) {
  bind(calls.listUsers, async ({ tenant, body }) => service.list(tenant.companyId, body));
  bind(calls.createUser, async ({ session, tenant, body, ip, lang }) =>
    service.create({ accountId: session.accountId, ip, role: tenant.role }, tenant.companyId, lang, body),
  );
  bind(calls.passwordRulesCall, async ({ tenant }) => service.passwordRules(tenant.companyId));
  bind(calls.createDevUser, async ({ session, body, ip, lang }) =>
    service.createDevUser(
      {
        accountId: session.accountId,
        ip,
        isPlatformAdmin: session.isPlatformAdmin && session.variant === 'admin',
      },
      lang,
      body,
    ),
  );
  bind(calls.updateUser, async ({ session, tenant, body, ip, lang }) =>
    service.update({ accountId: session.accountId, ip, role: tenant.role }, tenant.companyId, lang, body),
  );
  bind(calls.deleteUser, async ({ session, tenant, body, ip }) =>
    service.remove({ accountId: session.accountId, ip, role: tenant.role }, tenant.companyId, body.userId),
  );
  bind(calls.userDetail, async ({ tenant, body }) => service.detail(tenant.companyId, body.userId));
  bind(calls.setUserStatus, async ({ session, tenant, body, ip }) =>
    service.setStatus(
      { accountId: session.accountId, ip, role: tenant.role },
      tenant.companyId,
      body.userId,
      body.status,
    ),
  );
  bind(calls.resetUserPassword, async ({ session, tenant, body, ip, lang }) =>
    service.resetPassword(
      { accountId: session.accountId, ip, role: tenant.role },
      tenant.companyId,
      lang,
      body,
    ),
  );
  bind(calls.uploadUserPhoto, async ({ session, tenant, body, file, ip }) => {
    if (!file) throw new AppError('upload.missing_file');
    return service.uploadPhoto(
      { accountId: session.accountId, ip, role: tenant.role },
      tenant.companyId,
      body.userId,
      file.bytes,
      photoTypes,
    );
  });
  bind(calls.userLog, async ({ tenant, body, lang }) => service.log(tenant.companyId, lang, body));
  bind(calls.selfDetails, async ({ session }) => service.selfDetails(session.accountId));
}
