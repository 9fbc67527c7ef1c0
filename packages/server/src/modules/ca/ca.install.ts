import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/database.ts';
import type { Bind } from '../../http/bind.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { onFirstUse } from '../../lib/on-first-use.ts';
import { type CaCalls, type CertificateCalls, caPublicRoutes, caRoutes } from './ca.routes.ts';

/**
 * Certificate authorities: the console's calls and each CA's public CRL and certificate. The
 * services, and the ASN.1 and SM2 libraries under them, load at their first use.
 */
export function installCa(
  app: FastifyInstance,
  bind: Bind,
  deps: { db: Db; sealer: Sealer; publicUrl: string },
) {
  const services = onFirstUse(async () => {
    const [{ createCaService }, { createCertificatesService }] = await Promise.all([
      import('./ca.service.ts'),
      import('./certificates.service.ts'),
    ]);
    const cas = createCaService(deps);
    const certificates = createCertificatesService({ db: deps.db, cas, publicUrl: deps.publicUrl });
    return { cas: async () => cas, certificates: async () => certificates };
  });
  const cas = onFirstUse<CaCalls>(() => services.cas());
  const certificates = onFirstUse<CertificateCalls>(() => services.certificates());
  caRoutes(bind, cas, certificates);
  caPublicRoutes(app, cas);
}
