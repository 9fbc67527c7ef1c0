import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { DatabaseHandle } from '../../db/database.ts';
import type { Bind } from '../../http/bind.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { Jobs } from '../jobs/jobs.ts';
import type { Metrics } from '../ops/metrics.ts';
import { purgeExpiredChallenges } from './radius.repo.ts';
import { radiusRoutes } from './radius.routes.ts';
import { createRadiusService } from './radius.service.ts';
import { createRadiusAuthenticator, type RadiusAuthenticatorDeps } from './radius-auth.ts';
import { createRadiusServer } from './radius-server.ts';

/** The RADIUS server of a running instance: its UDP port; reloading its clients and writing its counters now (they also happen by themselves). */
export interface RunningRadius {
  port: number;
  reload(): Promise<void>;
  flush(): Promise<void>;
}

/**
 * RADIUS: the console's client calls, the expired-challenge purge, and the UDP server of this
 * instance (when the configuration gives it a port). `start()` is called once the app is ready.
 */
export function createRadius(
  deps: Omit<RadiusAuthenticatorDeps, 'db'> & {
    database: DatabaseHandle;
    sealer: Sealer;
    jobs: Jobs;
    log: FastifyBaseLogger;
    metrics: Metrics;
    config: Config['radius'] | undefined;
    rejectDelayMs: number | undefined;
  },
) {
  const { database, sealer, config } = deps;
  const { db } = database;
  const server =
    config?.port == null
      ? undefined
      : createRadiusServer({
          database,
          sealer,
          log: deps.log,
          host: config.host,
          port: config.port,
          rejectDelayMs: deps.rejectDelayMs,
          metrics: deps.metrics,
          authenticator: createRadiusAuthenticator({ ...deps, db }),
        });
  let running: RunningRadius | null = null;
  deps.jobs.every('radius.purge', 600, async () => {
    await purgeExpiredChallenges(db);
  });
  return {
    /** The console's calls: the company's RADIUS settings and clients. */
    routes: (bind: Bind) =>
      radiusRoutes(
        bind,
        createRadiusService({
          db,
          sealer,
          port: () => running?.port ?? null,
          clientsChanged: async () => {
            await running?.reload();
          },
        }),
      ),
    async start(): Promise<RunningRadius | null> {
      if (!server || !config) return null;
      try {
        running = { port: await server.start(), reload: server.reload, flush: server.flush };
      } catch (error) {
        await server.close();
        throw new Error(
          `the RADIUS server cannot listen on udp ${config.host}:${config.port} (${(error as Error).message}); set TESSERA_RADIUS_PORT`,
        );
      }
      return running;
    },
    close: async () => server?.close(),
    /** The UDP port RADIUS listens on, or null when it is off. */
    port: () => running?.port ?? null,
  };
}
