import { expect } from 'vitest';
import { absolute, CookieJar, csrfOf, request } from './browser-flow.ts';
import {
  call,
  companyMember,
  grantLicense,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from './harness.ts';
import { CALLBACK, type Landing, openedApp } from './oidc-flow.ts';
import { autoPostForm, manage } from './saml-flow.ts';

/**
 * Two Tessera servers for the SAML identity source tests (issue 33): the upstream, a Tessera
 * acting as the company's SAML identity provider, and the downstream, whose SAML source trusts
 * it. A browser keeps one cookie jar per origin, as a browser keeps cookies per site: both
 * servers set cookies of the same names.
 */

/** The servers listen on 127.0.0.1; `localhost` may resolve to ::1 first, where nothing listens. */
const viaLoopback = (url: string) => url.replace('//localhost:', '//127.0.0.1:');

export class TwoSiteBrowser {
  readonly jars = new Map<string, CookieJar>();
  jar(url: string) {
    const origin = new URL(url).origin;
    const jar = this.jars.get(origin) ?? new CookieJar();
    this.jars.set(origin, jar);
    return jar;
  }
  fetch(url: string, init?: RequestInit) {
    return request(this.jar(url), url, init);
  }
  /** Follows redirects and auto-posted forms (SAML messages) until a page, or the application's callback. */
  async go(
    url: string,
    init?: RequestInit,
    stopAt = CALLBACK,
    /** Stop before posting a form to this address (a SAML response to take apart): answered as `form`. */
    stopBeforePost?: string,
  ): Promise<Landing & { trail: string[]; form?: { action: string; fields: Record<string, string> } }> {
    const trail = [url];
    let current = url;
    let response = await this.fetch(url, init);
    for (let hop = 0; hop < 20; hop++) {
      if (response.status >= 300 && response.status < 400) {
        current = absolute(current, response.headers.get('location'));
        trail.push(current);
        if (current.startsWith(stopAt)) return { callback: new URL(current), trail };
        response = await this.fetch(current);
        continue;
      }
      const html = await response.text();
      if (!html.includes('data-auto-submit'))
        return { page: { url: current, status: response.status, html }, trail };
      const form = autoPostForm(html);
      if (stopBeforePost && absolute(current, form.action).startsWith(stopBeforePost)) return { form, trail };
      current = absolute(current, form.action);
      trail.push(current);
      response = await this.fetch(current, postForm(form.fields));
    }
    throw new Error(`too many hops from ${url}`);
  }
}

export const postForm = (fields: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

/** Where the sign-in page's button for the source posts (with the page's CSRF token). */
export const samlButton = (page: { url: string; html: string }, sourceId: string) => ({
  url: `${page.url.split('?')[0]}/upstream/${sourceId}`,
  init: postForm({ csrf: csrfOf(page.html) }),
});

export interface TwoTesseras {
  upstream: TestContext;
  downstream: TestContext;
  upOwner: { token: string; companyId: string };
  downOwner: { token: string; companyId: string };
  /** A person of the upstream's company. */
  alice: { id: string; username: string; password: string };
  /** The downstream's application people sign in to (OpenID Connect). */
  app: Awaited<ReturnType<typeof openedApp>>;
  sourceId: string;
  /** The upstream's SAML application for the downstream. */
  samlAppId: string;
  close(): Promise<void>;
}

/**
 * The upstream with a person and a SAML application made from the downstream source's SP
 * metadata URL; the downstream with an application and a SAML source made from the upstream's
 * metadata URL (fetched through the outbound-address rule).
 */
export async function startTwoTesseras(
  source: Record<string, unknown> = {},
  /** The downstream's server log (why a response was refused). */
  downstreamLog?: { write(line: string): void },
): Promise<TwoTesseras> {
  const upstream = await startTestApp({ listen: true });
  const downstream = await startTestApp({ listen: true, log: downstreamLog });
  await grantLicense(upstream, { app: 10 });
  await grantLicense(downstream, { app: 10 });
  const upOwner = await ownerWithCompany(upstream, 'up-owner', 'Upstream Co');
  const downOwner = await ownerWithCompany(downstream, 'down-owner', 'Downstream Co');
  const alice = await companyMember(upstream, upOwner, 'alice');
  await upstream.database.db
    .updateTable('accounts')
    .set({ email: 'alice@upstream.example', display_name: 'Alice Upstream' })
    .where('id', '=', alice.id)
    .execute();

  const idp = await manage<{ metadataUrl: string }>(upstream, upOwner, '/api/v1/manage/app/saml/idp', {});
  const read = await manage<Record<string, unknown>>(
    downstream,
    downOwner,
    '/api/v1/manage/identity-source/saml/metadata/read',
    { url: viaLoopback(idp.metadataUrl) },
  );
  const created = await call<{ sourceId: string; serviceProvider: { metadataUrl: string } }>(
    downstream,
    '/api/v1/manage/identity-source/create',
    {
      type: 'saml',
      name: 'Upstream SSO',
      metadataUrl: idp.metadataUrl,
      ...read,
      nameIdFormat: 'unspecified',
      emailAttribute: 'email',
      nameAttribute: 'displayName',
      firstScan: 'create',
      ...source,
    },
    downOwner,
  );
  expect(created.code, created.msg).toBe(200);
  const sourceId = created.data.sourceId;

  const samlApp = await manage<{ app: { appId: string } }>(upstream, upOwner, '/api/v1/manage/app/create', {
    name: 'Downstream Tessera',
    protocol: 'saml',
  });
  const samlAppId = samlApp.app.appId;
  await manage(upstream, upOwner, '/api/v1/manage/app/saml/metadata/import', {
    appId: samlAppId,
    url: viaLoopback(created.data.serviceProvider.metadataUrl),
  });
  await manage(upstream, upOwner, '/api/v1/manage/app/saml/update', {
    appId: samlAppId,
    nameIdFormat: 'unspecified',
    attributes: [
      { name: 'email', source: 'email' },
      { name: 'displayName', source: 'name' },
    ],
  });
  await manage(upstream, upOwner, '/api/v1/manage/app/status', { appId: samlAppId, status: 'opened' });
  const app = await openedApp(downstream, downOwner);
  return {
    upstream,
    downstream,
    upOwner,
    downOwner,
    alice,
    app,
    sourceId,
    samlAppId,
    async close() {
      await downstream.close();
      await upstream.close();
    },
  };
}

/** Changes the downstream source's settings through the console's update call. */
export async function changeSource(
  two: TwoTesseras,
  change: (settings: Record<string, unknown> & { signingCertificates: string[] }) => Record<string, unknown>,
) {
  const detail = await call<{ settings: Record<string, unknown> & { signingCertificates: string[] } }>(
    two.downstream,
    '/api/v1/manage/identity-source/detail',
    { sourceId: two.sourceId },
    two.downOwner,
  );
  const updated = await call(
    two.downstream,
    '/api/v1/manage/identity-source/update',
    { ...detail.data.settings, ...change(detail.data.settings), type: 'saml', sourceId: two.sourceId },
    two.downOwner,
  );
  expect(updated.code, updated.msg).toBe(200);
}

/** Signs in at the upstream's page with a password and follows back to the downstream. */
export function signInUpstream(
  browser: TwoSiteBrowser,
  page: { url: string; html: string },
  user: { username: string; password: string },
) {
  return browser.go(
    `${page.url.split('?')[0]}/login`,
    postForm({ csrf: csrfOf(page.html), identifier: user.username, password: user.password }),
  );
}
