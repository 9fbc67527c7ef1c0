import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import { buildOpenApiDocument, type CallAtPath } from '@tessera/contract';
import { portalAssetsDir } from '@tessera/portal';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/database.ts';
import { findFile } from '../files/files.ts';
import { PORTAL_ASSETS_PATH } from '../oidc/provider.ts';

export const consoleDistDir = fileURLToPath(new URL('../../../../console/dist/', import.meta.url));
const require = createRequire(import.meta.url);

/**
 * Whether a path asked of a static folder names a plain file in it. The router has decoded it
 * already (`%2e%2e` is `..`, `%2f` is `/`, `%00` is NUL): every segment must be a plain name,
 * so no empty, `.` or `..` segment (`/console//.vite/…`), no hidden file (the build manifest in
 * `.vite` is for the size check, not for browsers), no backslash or control character. Anything
 * else is "not found" before the file server sees it (it would throw, and log, on a traversal).
 */
export const isPlainFilePath = (path: string) =>
  path
    .split('/')
    .slice(1)
    .every((segment) => /^[\w-][\w.@+~-]*$/.test(segment));

/** What the API reference needs of Swagger UI's files (not its demo page or its OAuth helper page). */
const swaggerFiles = new Set(['/swagger-ui-bundle.js', '/swagger-ui.css']);

/** Static front ends, uploaded files and the API document. */
export async function webRoutes(
  app: FastifyInstance,
  deps: {
    db: Db;
    calls: () => CallAtPath[];
    version: string;
    publicUrl: string;
    /** The console's build; tests give one of their own. */
    consoleDir?: string;
  },
) {
  const consoleDir = deps.consoleDir ?? consoleDistDir;
  await app.register(fastifyStatic, {
    root: portalAssetsDir,
    prefix: `${PORTAL_ASSETS_PATH}/`,
    decorateReply: false,
    allowedPath: isPlainFilePath,
  });

  const swaggerDir = dirname(require.resolve('swagger-ui-dist/package.json'));
  await app.register(fastifyStatic, {
    root: swaggerDir,
    prefix: '/api/docs/assets/',
    decorateReply: false,
    allowedPath: (path) => swaggerFiles.has(path),
  });

  app.get('/api/openapi.json', async () =>
    buildOpenApiDocument(deps.calls(), { version: deps.version, serverUrl: deps.publicUrl }),
  );
  app.get('/api/docs', async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tessera API</title>
<link rel="stylesheet" href="/api/docs/assets/swagger-ui.css"></head>
<body><div id="api"></div><script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/viewer.js"></script></body></html>`),
  );
  app.get('/api/docs/viewer.js', async (_request, reply) =>
    reply
      .type('text/javascript')
      // No validator badge: it is an image from validator.swagger.io, which the page's policy refuses.
      .send("window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#api', validatorUrl: null });"),
  );

  app.get<{ Params: { id: string } }>('/api/v1/files/:id', async (request, reply) => {
    const file = /^[0-9a-f-]{36}$/.test(request.params.id)
      ? await findFile(deps.db, request.params.id)
      : undefined;
    if (!file)
      return reply
        .status(404)
        .send({ code: 404, msg: 'Not found', data: { reason: 'request.route_not_found' } });
    return reply
      .headers({
        'content-type': file.content_type,
        'cache-control': 'public, max-age=300',
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
      })
      .send(Buffer.from(file.bytes));
  });

  // The console: one build, served under both prefixes; the prefix picks the variant.
  const indexFile = join(consoleDir, 'index.html');
  if (existsSync(consoleDir)) {
    await app.register(fastifyStatic, {
      root: consoleDir,
      prefix: '/console/',
      decorateReply: false,
      allowedPath: isPlainFilePath,
      immutable: true,
      maxAge: '365d',
    });
  }
  // Read once: the build does not change under a running server (a missing build is retried).
  let indexHtml: Buffer | undefined;
  const serveConsole = async (_request: unknown, reply: import('fastify').FastifyReply) => {
    if (!indexHtml && existsSync(indexFile)) indexHtml = await readFile(indexFile);
    if (!indexHtml) {
      return reply
        .status(503)
        .type('text/plain; charset=utf-8')
        .send('The console has not been built. Run "npm run build" (npm start does it for you).');
    }
    // The same page for everyone, revalidated so that a new build is picked up.
    return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(indexHtml);
  };
  for (const prefix of ['/dev', '/admin']) {
    app.get(prefix, async (_request, reply) => reply.redirect(`${prefix}/`));
    app.get(`${prefix}/`, serveConsole);
    app.get(`${prefix}/*`, serveConsole);
  }
  app.get('/', async (_request, reply) => reply.redirect('/dev/'));
}
