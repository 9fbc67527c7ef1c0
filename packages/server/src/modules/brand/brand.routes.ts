import { brand as calls } from '@tessera/contract';
import type { FastifyInstance } from 'fastify';
import type { Bind } from '../../http/bind.ts';
import { AppError } from '../../lib/errors.ts';
import { BRAND_STYLESHEET_PATH, type BrandService } from './brand.service.ts';

export function brandRoutes(bind: Bind, service: BrandService) {
  bind(calls.getBrand, async ({ tenant }) => service.detail(tenant.companyId));
  bind(calls.previewBrand, async ({ tenant, body }) => service.preview(tenant.companyId, body));
  bind(calls.updateBrand, async ({ session, tenant, body, ip }) =>
    service.update({ accountId: session.accountId, ip }, tenant.companyId, body),
  );
  for (const [call, which] of [
    [calls.uploadBrandLogo, 'logo'],
    [calls.uploadBrandBackground, 'background'],
  ] as const) {
    bind(call, async ({ session, tenant, file, ip }) => {
      if (!file) throw new AppError('upload.missing_file');
      return service.uploadImage(
        { accountId: session.accountId, ip },
        tenant.companyId,
        which,
        file.bytes,
        call.upload?.types ?? [],
      );
    });
  }
}

/** The brand stylesheet of the sign-in pages: versioned by its last change, so it can be cached. */
export function brandStylesheetRoute(app: FastifyInstance, service: BrandService) {
  app.get<{ Params: { companyId: string; version: string } }>(
    `${BRAND_STYLESHEET_PATH}/:companyId/:version`,
    async (request, reply) => {
      const css = /^[0-9a-f-]{36}$/.test(request.params.companyId)
        ? await service.stylesheet(request.params.companyId)
        : null;
      if (css === null) return reply.status(404).type('text/plain; charset=utf-8').send('Not found');
      return reply
        .headers({
          'content-type': 'text/css; charset=utf-8',
          'cache-control': 'public, max-age=86400, immutable',
          'x-content-type-options': 'nosniff',
        })
        .send(css);
    },
  );
}
