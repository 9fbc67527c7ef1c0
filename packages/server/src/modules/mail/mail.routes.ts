import { user as calls } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import type { MailService } from './mail.service.ts';

export function mailRoutes(bind: Bind, service: MailService) {
  bind(calls.sendSignInLink, async ({ session, tenant, body, ip, lang }) =>
    service.sendSignInLink(
      { accountId: session.accountId, ip, role: tenant.role },
      tenant.companyId,
      body.userId,
      lang,
    ),
  );
  bind(calls.sendAccountEmail, async ({ session, tenant, body, ip, lang }) =>
    service.sendAccountEmail(
      { accountId: session.accountId, ip, role: tenant.role },
      tenant.companyId,
      body.userId,
      lang,
    ),
  );
}
