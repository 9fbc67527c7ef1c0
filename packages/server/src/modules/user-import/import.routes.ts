import { user as calls } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import { AppError } from '../../lib/errors.ts';
import type { UserImportService } from './import.service.ts';

export function userImportRoutes(bind: Bind, service: UserImportService) {
  bind(calls.createImportTask, async ({ session, tenant, file, ip }) => {
    if (!file) throw new AppError('upload.missing_file');
    return service.start({ accountId: session.accountId, ip }, tenant.companyId, file);
  });
  bind(calls.importTaskCall, async ({ tenant, body, lang }) =>
    service.task(tenant.companyId, body.taskId, lang),
  );
  bind(calls.importTemplate, async ({ body }) => service.template(body.language));
  bind(calls.exportUsers, async ({ tenant, body }) => {
    const { language, ...filter } = body;
    return service.exportUsers(tenant.companyId, filter, language);
  });
}
