import type { FastifyInstance } from 'fastify';
import { defaultExchangeConfig, type ExchangeConfig } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import type { Bind } from '../../http/bind.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { OutboundPolicy } from '../../lib/outbound-address.ts';
import type { Jobs } from '../jobs/jobs.ts';
import { agentRoutes } from './agent.routes.ts';
import { createAgentService } from './agent.service.ts';
import { scheduleRotation } from './device-rotation.ts';
import { createVerifiedPasswords } from './device-secrets.ts';
import { createDevicesService } from './devices.service.ts';
import { exchangeRoutes } from './exchange.routes.ts';
import { createExchangeSettingsService } from './exchange-settings.service.ts';
import { createOwnDevicesService } from './own-devices.service.ts';

/**
 * The Exchange agent: people's own devices (the user centre's section), the rotation of device
 * secrets, the agent's endpoints for phones, and the console's settings and devices.
 */
export function createExchange(deps: {
  db: Db;
  sealer: Sealer;
  jobs: Jobs;
  publicUrl: string;
  config: ExchangeConfig | undefined;
  /** Where the agent and the settings' tests may connect (TESSERA_OUTBOUND_ALLOWED_NETWORKS). */
  outbound: OutboundPolicy;
}) {
  const { db, sealer, publicUrl, outbound } = deps;
  const config = deps.config ?? defaultExchangeConfig;
  const ownDevices = createOwnDevicesService({ db, sealer, publicUrl });
  scheduleRotation(deps.jobs, db, sealer);
  return {
    ownDevices,
    /** ActiveSync and Autodiscover for phones, on this same port. */
    agentRoutes: (app: FastifyInstance) =>
      agentRoutes(app, {
        agent: createAgentService({
          db,
          sealer,
          // A phone's password is checked with argon2id once; then for 15 minutes, or until it changes, from memory.
          verified: createVerifiedPasswords({ ttlMs: 15 * 60_000, max: 10_000 }),
          maxHoldSeconds: config.maxHoldSeconds,
        }),
        guard: outbound,
        maxHoldSeconds: config.maxHoldSeconds,
        publicUrl,
      }),
    /** The console's calls: the company's Exchange settings and its devices. */
    routes: (bind: Bind) =>
      exchangeRoutes(
        bind,
        createExchangeSettingsService({ db, sealer, guard: outbound, publicUrl }),
        createDevicesService({ db, sealer }),
      ),
  };
}
