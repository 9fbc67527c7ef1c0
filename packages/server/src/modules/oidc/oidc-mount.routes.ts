import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { createSecurityHeaders } from '../../http/security-headers.ts';
import { OIDC_MOUNT } from './provider-responses.ts';

/**
 * The provider's endpoints under /oidc: each request is handed to oidc-provider's own callback,
 * which reads the raw body itself (so this scope parses none).
 */
export async function oidcMountRoutes(
  app: FastifyInstance,
  deps: {
    publicUrl: string;
    securityHeaders: ReturnType<typeof createSecurityHeaders>;
    /** The current provider's callback (the provider is rebuilt when the signing keys change). */
    callback(request: IncomingMessage, response: ServerResponse): Promise<void>;
  },
) {
  const scheme = new URL(deps.publicUrl).protocol.slice(0, -1);
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      reply.hijack();
      // As Express does for mounted apps: the provider derives its mount path from originalUrl.
      const raw = request.raw as typeof request.raw & { originalUrl?: string };
      // The provider (Koa, with proxy on) reads the client's address and the scheme from these:
      // they are set to what this server decided, never passed on from the client.
      raw.headers['x-forwarded-for'] = request.ip;
      raw.headers['x-forwarded-proto'] = scheme;
      delete raw.headers['x-forwarded-host'];
      raw.originalUrl = raw.url;
      raw.url = raw.url?.slice(OIDC_MOUNT.length) || '/';
      deps.securityHeaders.applyToProvider(reply.raw);
      await deps.callback(request.raw, reply.raw);
    };
    scope.all(OIDC_MOUNT, handler);
    scope.all(`${OIDC_MOUNT}/*`, handler);
  });
}
