import { createRequire } from 'node:module';
import fastifyCompress from '@fastify/compress';
import fastifyCookie from '@fastify/cookie';
import fastifyMultipart from '@fastify/multipart';
import type { Language } from '@tessera/contract';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
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
 * Fastify loads its JSON-schema compilers (Ajv for validation, fast-json-stringify for answers,
 * over 100 files) when it is created. Tessera's routes have no JSON schemas (requests are checked
 * against the contract's zod schemas), so they are loaded only if a schema ever needs compiling:
 * about 40-100 ms less CPU at every start. (A custom validator compiler makes Fastify pass
 * header schemas as written instead of lower-casing their keys; there are none.)
 */
const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
type CompilersFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;
type ValidatorFactory = NonNullable<CompilersFactory['buildValidator']>;
type SerializerFactory = NonNullable<CompilersFactory['buildSerializer']>;
/** A factory that loads the real one (a function too) when it is first called. */
const onFirstUse = <F>(load: () => F): F => {
  let factory: F | undefined;
  return ((...args: unknown[]) => {
    factory ??= load();
    return (factory as (...given: unknown[]) => unknown)(...args);
  }) as F;
};
const schemaCompilersOnFirstUse: CompilersFactory = {
  buildValidator: onFirstUse(() => (fromFastify('@fastify/ajv-compiler') as () => ValidatorFactory)()),
  buildSerializer: onFirstUse(() =>
    (fromFastify('@fastify/fast-json-stringify-compiler') as () => SerializerFactory)(),
  ),
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
    schemaController: { compilersFactory: schemaCompilersOnFirstUse },
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
