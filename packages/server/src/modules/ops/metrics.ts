import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type Provider from 'oidc-provider';
import type { DatabaseHandle } from '../../db/database.ts';

/**
 * Prometheus metrics (prom-client), served at /metrics when TESSERA_METRICS_TOKEN is set:
 * requests by route and status, sign-ins by result, grants by type, RADIUS requests dropped that
 * no company's client explains, the job backlog and the database pool, with the process metrics
 * of Node. Without a token nothing is loaded or counted.
 *
 * Labels come from closed sets only (the route's pattern, never its URL; a result or grant type
 * the server names), so a client cannot grow the number of series.
 */

/** Why the RADIUS server dropped a request that it books on no client (see radius-server.ts). */
export type RadiusDropReason = 'unknown_client' | 'no_message_authenticator' | 'bad_message_authenticator';

export interface Metrics {
  /** Counts a password or passkey sign-in by its result ('success' or the failure cause). */
  signedIn<T extends { ok: boolean; cause?: string }>(result: T): T;
  /** Counts the token grants of a provider by grant type. */
  watchProvider(provider: Provider): void;
  /** Counts a RADIUS request dropped on the platform: no client's secret says whose it is. */
  radiusDropped(reason: RadiusDropReason): void;
  /** The text exposition; undefined when metrics are off. */
  render(): Promise<{ contentType: string; body: string } | undefined>;
}

const off: Metrics = {
  signedIn: (result) => result,
  watchProvider() {},
  radiusDropped() {},
  render: async () => undefined,
};

export async function createMetrics(options: {
  enabled: boolean;
  app: FastifyInstance;
  database: DatabaseHandle;
}): Promise<Metrics> {
  if (!options.enabled) return off;
  const { app, database } = options;
  const prom = await import('prom-client');
  const registry = new prom.Registry();
  prom.collectDefaultMetrics({ register: registry });

  const requests = new prom.Counter({
    name: 'tessera_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new prom.Histogram({
    name: 'tessera_http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by route pattern',
    labelNames: ['route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const signIns = new prom.Counter({
    name: 'tessera_sign_ins_total',
    help: 'Sign-ins by result: success, or the cause of the failure',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const grants = new prom.Counter({
    name: 'tessera_oidc_grants_total',
    help: 'Token endpoint grants by grant type and outcome',
    labelNames: ['grant_type', 'outcome'] as const,
    registers: [registry],
  });
  const radiusDrops = new prom.Counter({
    name: 'tessera_radius_dropped_total',
    help: 'RADIUS requests dropped that no client secret explains (counted on no company), by reason',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  new prom.Gauge({
    name: 'tessera_jobs_backlog',
    help: 'Background jobs queued and due, and running, by kind',
    labelNames: ['kind', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const { rows } = await sql<{ kind: string; state: string; n: number }>`
        select kind, case when status = 'running' then 'running' else 'due' end as state, count(*)::int as n
        from jobs
        where status = 'running' or (status = 'queued' and run_after <= now())
        group by 1, 2`.execute(database.db);
      for (const row of rows) this.set({ kind: row.kind, state: row.state }, Number(row.n));
    },
  });
  if (database.poolStats) {
    const stats = database.poolStats;
    new prom.Gauge({
      name: 'tessera_db_pool_connections',
      help: 'PostgreSQL pool connections by state (total, idle, and requests waiting for one)',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        const now = stats();
        this.set({ state: 'total' }, now.total);
        this.set({ state: 'idle' }, now.idle);
        this.set({ state: 'waiting' }, now.waiting);
      },
    });
  }

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    duration.observe({ route }, reply.elapsedTime / 1000);
  });

  const grantType = (ctx: { oidc?: { params?: { grant_type?: unknown } } }) => {
    const type = ctx.oidc?.params?.grant_type;
    return typeof type === 'string' && /^[\w:.-]{1,80}$/.test(type) ? type : 'other';
  };

  return {
    signedIn(result) {
      signIns.inc({ result: result.ok ? 'success' : (result.cause ?? 'failure') });
      return result;
    },
    watchProvider(provider) {
      provider.on('grant.success', (ctx) => grants.inc({ grant_type: grantType(ctx), outcome: 'success' }));
      provider.on('grant.error', (ctx) => grants.inc({ grant_type: grantType(ctx), outcome: 'error' }));
    },
    radiusDropped(reason) {
      radiusDrops.inc({ reason });
    },
    render: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  };
}
