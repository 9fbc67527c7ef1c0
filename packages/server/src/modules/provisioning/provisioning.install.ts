import type { Db } from '../../db/database.ts';
import type { Bind } from '../../http/bind.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { OutboundPolicy } from '../../lib/outbound-address.ts';
import type { Jobs } from '../jobs/jobs.ts';
import { provisioningRoutes } from './provisioning.routes.ts';
import { createProvisioningService } from './provisioning.service.ts';
import { createProvisioningTargets } from './provisioning-target.service.ts';

/**
 * Outbound provisioning by SCIM 2.0: the jobs that run it (registered when the services are
 * made) and the console's calls.
 */
export function createProvisioning(deps: {
  db: Db;
  sealer: Sealer;
  outbound: OutboundPolicy;
  jobs: Pick<Jobs, 'register' | 'enqueue' | 'every'>;
}) {
  const targets = createProvisioningTargets(deps);
  const service = createProvisioningService({ db: deps.db, targets, jobs: deps.jobs });
  return { targets, service, routes: (bind: Bind) => provisioningRoutes(bind, targets, service) };
}

export type Provisioning = ReturnType<typeof createProvisioning>;
