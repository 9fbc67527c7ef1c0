import { ca as calls } from '@tessera/contract';
import type { FastifyInstance } from 'fastify';
import type { Bind } from '../../http/bind.ts';
import type { CaService } from './ca.service.ts';
import type { CertificatesService } from './certificates.service.ts';

/** What the routes call of the CA services (all async: they may load on first use, ca.install.ts). */
export type CaCalls = Pick<
  CaService,
  'list' | 'create' | 'importCa' | 'detail' | 'remove' | 'currentCrl' | 'certificateDer'
>;
export type CertificateCalls = Pick<CertificatesService, 'list' | 'issue' | 'detail' | 'revoke'>;

export function caRoutes(bind: Bind, cas: CaCalls, certificates: CertificateCalls) {
  const actor = (ctx: {
    session: { accountId: string };
    ip: string;
    tenant: { role: import('@tessera/contract').MemberRole };
  }) => ({
    accountId: ctx.session.accountId,
    ip: ctx.ip,
    role: ctx.tenant.role,
  });
  bind(calls.listCas, async ({ tenant }) => cas.list(tenant.companyId));
  bind(calls.createCa, async (ctx) => cas.create(actor(ctx), ctx.tenant.companyId, ctx.body));
  bind(calls.importCa, async (ctx) => cas.importCa(actor(ctx), ctx.tenant.companyId, ctx.body, ctx.file));
  bind(calls.caDetail, async ({ tenant, body }) => cas.detail(tenant.companyId, body.caId));
  bind(calls.deleteCa, async (ctx) => cas.remove(actor(ctx), ctx.tenant.companyId, ctx.body.caId));
  bind(calls.listCertificates, async ({ tenant, body }) => certificates.list(tenant.companyId, body));
  bind(calls.issueCertificate, async (ctx) => certificates.issue(actor(ctx), ctx.tenant.companyId, ctx.body));
  bind(calls.certificateDetail, async ({ tenant, body }) =>
    certificates.detail(tenant.companyId, body.certificateId),
  );
  bind(calls.revokeCertificate, async (ctx) =>
    certificates.revoke(actor(ctx), ctx.tenant.companyId, ctx.body),
  );
}

/**
 * The public addresses of each CA (RFC 5280 §4.2.1.13 and §4.2.2.1, named in the certificates it
 * issues): `/pki/<caId>.crl`, its CRL (DER), and `/pki/<caId>.crt`, its certificate (DER).
 */
export function caPublicRoutes(app: FastifyInstance, cas: CaCalls) {
  app.get<{ Params: { file: string } }>('/pki/:file', async (request, reply) => {
    const match = /^([0-9a-f-]{36})\.(crl|crt)$/.exec(request.params.file);
    const bytes = match?.[1]
      ? match[2] === 'crl'
        ? await cas.currentCrl(match[1])
        : await cas.certificateDer(match[1])
      : undefined;
    if (!bytes) return reply.status(404).type('text/plain; charset=utf-8').send('Not found');
    return reply
      .type(match?.[2] === 'crl' ? 'application/pkix-crl' : 'application/pkix-cert')
      .header('cache-control', match?.[2] === 'crl' ? 'public, max-age=60' : 'public, max-age=3600')
      .send(bytes);
  });
}
