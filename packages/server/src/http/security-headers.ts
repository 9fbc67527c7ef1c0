import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

/**
 * The security headers of every answer, chosen by the kind of answer, in one place. Routes say
 * nothing about them, except the few answers that need their own policy (an uploaded file, the
 * page that posts an app's login form): a `content-security-policy` or `cache-control` a route
 * sets itself is kept.
 */

const policy = (...directives: string[]) => directives.join('; ');

/**
 * Server-rendered pages: the portal, the sign-in pages and the provider's own pages (logout,
 * error, signed out). Script and style files from the portal's assets only, nothing inline.
 * No `form-action`: a sign-in form's answer redirects on to the application, and browsers check
 * `form-action` along the redirects. The provider adds the hash of the one inline script it
 * writes (the `form_post` response mode) to `script-src` itself.
 */
export const pageCsp = (formAction?: string) =>
  policy(
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    ...(formAction ? [`form-action ${formAction}`] : []),
    "base-uri 'none'",
    "frame-ancestors 'none'",
  );

/**
 * The console (React and antd). Its token is in localStorage (spec §3), so script is the whole
 * game: the build's own files only, no inline script, no eval. Styles allow 'unsafe-inline':
 * antd's CSS-in-JS writes <style> elements at run time and antd, rc-* components and ECharts set
 * style attributes; a nonce would reach only the <style> elements created under antd's
 * ConfigProvider (not the attributes, not static `message` calls) and would make the page a
 * template per answer. Inline style cannot run script, and with `connect-src 'self'`, no
 * `form-action` elsewhere and `img-src` without remote hosts it has nowhere to send what it sees.
 */
const CONSOLE_CSP = policy(
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
);

/**
 * The API reference (Swagger UI): its bundle and our start script are files; it styles with
 * style attributes and inline SVG data: images (the same reasoning as the console's styles).
 */
const DOCS_CSP = policy(
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
);

/** Anything that is not a page (JSON, scripts, images): nothing runs in it, even when opened directly. */
const NOTHING_CSP = policy("default-src 'none'", "frame-ancestors 'none'");

const HSTS = 'max-age=31536000; includeSubDomains';

/** The console is served under /dev/ and /admin/ (spec §2). */
const isConsolePath = (path: string) => /^\/(dev|admin)(\/|$)/.test(path);
const isDocsPath = (path: string) => path === '/api/docs' || path.startsWith('/api/docs/');

export function createSecurityHeaders(options: { publicUrl: string }) {
  const always: Record<string, string> = {
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    // Console and portal addresses carry `code` and `state` after a sign-in: never to another site.
    'referrer-policy': 'no-referrer',
    // Only over https; a browser ignores it on http, and it would pin a development host name.
    ...(options.publicUrl.startsWith('https://') ? { 'strict-transport-security': HSTS } : {}),
  };

  return {
    /** Adds the headers to every answer Fastify sends (registered before any route). */
    install(app: FastifyInstance) {
      app.addHook('onSend', async (request, reply, payload) => {
        reply.headers(always);
        const path = request.url.split('?', 1)[0] ?? '';
        const type = String(reply.getHeader('content-type') ?? '');
        const html = type.startsWith('text/html');
        const consolePage = html && isConsolePath(path);
        if (!reply.hasHeader('content-security-policy')) {
          const csp = !html
            ? NOTHING_CSP
            : consolePage
              ? CONSOLE_CSP
              : isDocsPath(path)
                ? DOCS_CSP
                : pageCsp();
          reply.header('content-security-policy', csp);
        }
        // API answers are all private (tokens, secrets shown once, people); pages may hold a form's
        // secrets or a one-time link. The console's page itself is the same for everyone.
        const privateAnswer = path.startsWith('/api/v1/') || (html && !consolePage);
        if (privateAnswer && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
        return payload;
      });
    },
    /**
     * The provider answers outside Fastify (a Koa callback on the raw response): its headers are
     * set before it writes. It keeps them (Koa only adds), sets `no-store` itself on its
     * protocol answers, and adds its inline script's hash to this `script-src`.
     */
    applyToProvider(response: ServerResponse) {
      for (const [name, value] of Object.entries(always)) response.setHeader(name, value);
      response.setHeader('content-security-policy', pageCsp());
    },
  };
}
