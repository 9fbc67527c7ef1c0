import { syslog as calls } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import type { SyslogService } from './syslog.service.ts';

export function syslogRoutes(bind: Bind, service: SyslogService) {
  bind(calls.syslogConf, async ({ tenant }) => service.conf(tenant.companyId));
  bind(calls.updateSyslog, async ({ session, tenant, body, ip }) =>
    service.update({ accountId: session.accountId, ip }, tenant.companyId, body),
  );
  bind(calls.syslogStatus, async ({ tenant }) => service.status(tenant.companyId));
}
