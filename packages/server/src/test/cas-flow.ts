import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { absolute, CookieJar, request } from './browser-flow.ts';
import type { TestContext } from './harness.ts';
import { manage, signInOnPage } from './saml-flow.ts';

/** Helpers of the CAS tests: a CAS service on 127.0.0.1 and a browser going through /login. */

/**
 * A CAS service on 127.0.0.1: answers 200 at every path, and records the single-logout requests
 * posted to it and the proxy-granting tickets given to its callback (`/pgt`; `/pgt-broken` answers 500).
 */
export async function startCasService() {
  const logouts: { path: string; body: string }[] = [];
  const pgts: { pgtId: string; pgtIou: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (req.method === 'POST')
        logouts.push({ path: url.pathname, body: new URLSearchParams(body).get('logoutRequest') ?? '' });
      if (url.pathname.includes('/pgt') && url.searchParams.get('pgtId'))
        pgts.push({
          pgtId: url.searchParams.get('pgtId') ?? '',
          pgtIou: url.searchParams.get('pgtIou') ?? '',
        });
      res
        .writeHead(url.pathname.endsWith('/pgt-broken') ? 500 : 200, { 'content-type': 'text/plain' })
        .end('service');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    logouts,
    pgts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Company = { token: string; companyId: string };

/** A CAS app of the company with these settings, opened. */
export async function casAppFor(
  ctx: TestContext,
  company: Company,
  name: string,
  settings: Record<string, unknown>,
) {
  const created = await manage<{ app: { appId: string; clientId: string } }>(
    ctx,
    company,
    '/api/v1/manage/app/create',
    {
      name,
      protocol: 'cas',
    },
  );
  const appId = created.app.appId;
  const cas = await manage<{ serverUrl: string }>(ctx, company, '/api/v1/manage/app/cas/update', {
    appId,
    ...settings,
  });
  await manage(ctx, company, '/api/v1/manage/app/status', { appId, status: 'opened' });
  return { appId, clientId: created.app.clientId, serverUrl: cas.serverUrl };
}

/**
 * Opens a URL and follows redirects (signing in on the sign-in page when it shows) until the
 * browser leaves Tessera; answers where it landed (the service with its ticket) or the page it stopped at.
 */
export async function browseCas(
  ctx: TestContext,
  jar: CookieJar,
  url: string,
  person?: { username: string; password: string },
): Promise<{ url: string; status: number; html: string }> {
  let current = url;
  let response = await request(jar, current);
  for (let hop = 0; hop < 20; hop++) {
    if (response.status >= 300 && response.status < 400) {
      current = absolute(current, response.headers.get('location'));
      if (!current.startsWith(ctx.baseUrl)) return { url: current, status: response.status, html: '' };
      response = await request(jar, current);
      continue;
    }
    const html = await response.text();
    if (person && current.includes('/interaction/') && html.includes('name="password"')) {
      const done = await signInOnPage(jar, current, html, person.username, person.password);
      return done;
    }
    return { url: current, status: response.status, html };
  }
  throw new Error('too many hops');
}

export const ticketOf = (url: string) => new URL(url).searchParams.get('ticket') ?? '';

export { CookieJar };
