import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/database.ts';
import type { Bind } from '../../http/bind.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { caPublicRoutes, caRoutes } from './ca.routes.ts';
import { createCaService } from './ca.service.ts';
import { createCertificatesService } from './certificates.service.ts';

/** Certificate authorities: the console's calls and each CA's public CRL and certificate. */
export function installCa(
  app: FastifyInstance,
  bind: Bind,
  deps: { db: Db; sealer: Sealer; publicUrl: string },
) {
  const cas = createCaService(deps);
  caRoutes(bind, cas, createCertificatesService({ db: deps.db, cas, publicUrl: deps.publicUrl }));
  caPublicRoutes(app, cas);
}
