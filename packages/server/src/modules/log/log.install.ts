import type { Db } from '../../db/database.ts';
import type { Bind } from '../../http/bind.ts';
import { dashboardRoutes } from '../dashboard/dashboard.routes.ts';
import { createDashboardService } from '../dashboard/dashboard.service.ts';
import type { Jobs } from '../jobs/jobs.ts';
import { syslogRoutes } from '../syslog/syslog.routes.ts';
import { createSyslogService } from '../syslog/syslog.service.ts';
import { createSyslogDelivery, DELIVER_JOB, DISPATCH_JOB } from '../syslog/syslog-delivery.ts';
import { createSyslogAddressPolicy } from '../syslog/syslog-target.ts';
import { logRoutes } from './log.routes.ts';
import { createLogService } from './log.service.ts';
import { purgeExpiredLogs, raiseFailureAlerts } from './log-jobs.ts';

/**
 * What reads and forwards the sign-in and administration events: the log screen's calls, the
 * dashboard's, syslog settings, and their background jobs (delivery in order per company,
 * retention, failure-spike alerts).
 */
export function installLogs(
  bind: Bind,
  deps: { db: Db; jobs: Jobs; publicUrl: string; allowLocalTargets: boolean },
) {
  const { db, jobs } = deps;
  const addresses = createSyslogAddressPolicy(deps.allowLocalTargets);
  const delivery = createSyslogDelivery({ db, jobs, publicUrl: deps.publicUrl, addresses });
  jobs.register(
    DELIVER_JOB,
    { run: (job, context) => delivery.deliver((job.payload as { companyId: string }).companyId, context) },
    { dropWhenDone: true },
  );
  jobs.every(DISPATCH_JOB, 2, () => delivery.dispatch());
  jobs.every('log.purge', 3600, async (_job, context) => {
    await purgeExpiredLogs(db, context);
  });
  jobs.every('log.alerts', 60, async () => {
    await raiseFailureAlerts(db);
  });
  logRoutes(bind, createLogService({ db }));
  syslogRoutes(bind, createSyslogService({ db, addresses, deliverSoon: () => jobs.runSoon(DISPATCH_JOB) }));
  dashboardRoutes(bind, createDashboardService({ db }));
}
