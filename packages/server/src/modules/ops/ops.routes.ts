import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { migrations } from '../../db/migrations.ts';
import type { Metrics } from './metrics.ts';

/**
 * What an orchestrator and a monitoring system ask of each instance:
 * - `/healthz`: the process answers (liveness; never touches the database).
 * - `/readyz`: the database answers and every migration this build knows is applied
 *   (readiness: a load balancer sends traffic only then).
 * - `/metrics`: Prometheus text, for a bearer token (TESSERA_METRICS_TOKEN); 404 without one.
 */
export function opsRoutes(app: FastifyInstance, deps: { db: Db; metrics: Metrics; metricsToken?: string }) {
  const latest = Math.max(...migrations.map((migration) => migration.id));
  const expected = deps.metricsToken ? Buffer.from(`Bearer ${deps.metricsToken}`) : undefined;

  app.get('/healthz', async (_request, reply) =>
    reply.header('cache-control', 'no-store').send({ status: 'ok' }),
  );

  app.get('/readyz', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    try {
      const { rows } = await sql<{ id: number | null }>`select max(id) as id from schema_migrations`.execute(
        deps.db,
      );
      const applied = Number(rows[0]?.id ?? 0);
      if (applied < latest) {
        return reply.status(503).send({ status: 'migrating', migration: applied, expected: latest });
      }
      return reply.send({ status: 'ready', migration: applied });
    } catch (error) {
      request.log.warn({ err: error }, 'the readiness check could not reach the database');
      return reply.status(503).send({ status: 'database_unreachable' });
    }
  });

  app.get('/metrics', async (request, reply) => {
    const given = Buffer.from(request.headers.authorization ?? '');
    if (!expected) return reply.status(404).type('text/plain; charset=utf-8').send('Not found');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return reply
        .status(401)
        .header('www-authenticate', 'Bearer realm="metrics"')
        .type('text/plain; charset=utf-8')
        .send('A bearer token is required');
    }
    const rendered = await deps.metrics.render();
    if (!rendered) return reply.status(404).type('text/plain; charset=utf-8').send('Not found');
    return reply.header('cache-control', 'no-store').type(rendered.contentType).send(rendered.body);
  });
}
