import fastifyCompress from '@fastify/compress';
import fastifyCookie from '@fastify/cookie';
import fastifyMultipart from '@fastify/multipart';
import type { Language } from '@tessera/contract';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { AppError } from '../lib/errors.ts';
import { pickLanguage } from '../lib/i18n.ts';
import { installErrorHandling, sendError } from './envelope.ts';
import { requestLogSerializer } from './request-log.ts';
import { createSecurityHeaders } from './security-headers.ts';

declare module 'fastify' {
  interface FastifyRequest {
    lang: Language;
  }
}

/** Fastify's `trustProxy` for TESSERA_TRUSTED_PROXIES: a hop count, or addresses and ranges. */
const trustProxyOf = (trusted: Config['trustedProxies']) => {
  if (typeof trusted !== 'number') return trusted ?? false;
  return (_address: string, hop: number) => hop < trusted;
};

/**
 * The HTTP server before any route: logging, the client's address behind trusted proxies,
 * security headers, cookies, compression, the language of each request, and error answers.
 */
export async function createServer(options: {
  config: Pick<Config, 'publicUrl' | 'logLevel'> & Partial<Pick<Config, 'trustedProxies'>>;
  logStream?: { write(line: string): void };
}) {
  const { config } = options;
  const app = Fastify({
    logger: {
      level: config.logLevel,
      serializers: { req: requestLogSerializer },
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    bodyLimit: 1024 * 1024,
    // Only then are X-Forwarded-For/-Proto read: request.ip is the client's address everywhere
    // (budgets, logs, the provider below), and a client cannot name its own address.
    trustProxy: trustProxyOf(config.trustedProxies),
  });
  const securityHeaders = createSecurityHeaders({ publicUrl: config.publicUrl });
  securityHeaders.install(app);
  await app.register(fastifyCookie);
  // The console's scripts are the bulk of what a browser downloads; the OIDC routes answer raw and are not touched.
  await app.register(fastifyCompress, { threshold: 1024, encodings: ['br', 'gzip'] });
  app.decorateRequest('lang', 'en');
  app.addHook('onRequest', async (request, reply) => {
    const query = request.query as Record<string, unknown> | undefined;
    const chosen =
      typeof query?.lang === 'string' && ['en', 'zh'].includes(query.lang) ? query.lang : undefined;
    if (chosen && request.method === 'GET') {
      // A language picked on a sign-in page sticks, for the portal and the console alike.
      reply.setCookie('lang', chosen, { path: '/', maxAge: 365 * 86_400, sameSite: 'lax' });
      request.raw.headers.cookie = `${request.headers.cookie ? `${request.headers.cookie}; ` : ''}lang=${chosen}`;
    }
    request.lang = pickLanguage(chosen ?? request.cookies.lang, request.headers['accept-language']);
  });
  installErrorHandling(app);
  return { app, securityHeaders };
}

/** An unknown address: the API's error envelope under /api/, plain text elsewhere. */
export function sendNotFound(request: FastifyRequest, reply: FastifyReply) {
  if (request.url.startsWith('/api/'))
    return sendError(request, reply, new AppError('request.route_not_found'));
  return reply.status(404).type('text/plain; charset=utf-8').send('Not found');
}

/** The API takes JSON (and multipart for uploads) only; an empty JSON body is `{}`. */
export async function installApiBodies(app: FastifyInstance) {
  await app.register(fastifyMultipart, { limits: { fileSize: 1024 * 1024, files: 1, fields: 10 } });
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body);
    if (!text.trim()) return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new AppError('request.malformed_json'), undefined);
    }
  });
}
