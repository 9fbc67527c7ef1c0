import { expect } from 'vitest';
import { absolute, csrfOf, formSubmission } from './browser-flow.ts';
import { call } from './harness.ts';
import { authorization, CALLBACK, type Landing, openedApp } from './oidc-flow.ts';
import { autoPostForm, manage } from './saml-flow.ts';
import { TwoSiteBrowser as OneJarPerSite } from './two-site-browser.ts';
import { startUpstreamAndDownstream, type UpstreamAndDownstream } from './two-tesseras.ts';

/**
 * Two Tessera servers for the SAML identity source tests (issue 33): the upstream, a Tessera
 * acting as the company's SAML identity provider, and the downstream, whose SAML source trusts
 * it, and a browser (two-site-browser.ts) that also posts the SAML messages' self-posting forms.
 */

/** The servers listen on 127.0.0.1; `localhost` may resolve to ::1 first, where nothing listens. */
const viaLoopback = (url: string) => url.replace('//localhost:', '//127.0.0.1:');

export class TwoSiteBrowser extends OneJarPerSite {
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
      response = await this.fetch(current, formSubmission(form.fields));
    }
    throw new Error(`too many hops from ${url}`);
  }
}

/** Where the sign-in page's button for the source posts (with the page's CSRF token). */
export const samlButton = (page: { url: string; html: string }, sourceId: string) => ({
  url: `${page.url.split('?')[0]}/upstream/${sourceId}`,
  init: formSubmission({ csrf: csrfOf(page.html) }),
});

/**
 * Opens the downstream application's sign-in page in `browser` (an authorization with `params`),
 * presses the source's button and follows, stopping before a post to `stopBeforePost` if given.
 */
export async function pressSamlButton(
  two: TwoTesseras,
  browser: TwoSiteBrowser,
  params: Record<string, string> = {},
  stopBeforePost?: string,
) {
  const auth = authorization(two.downstream.baseUrl, two.app.clientId, params);
  const first = await browser.go(auth.url);
  expect(first.page?.url).toContain(`${two.downstream.baseUrl}/interaction/`);
  const button = samlButton(first.page!, two.sourceId);
  return { auth, landing: await browser.go(button.url, button.init, undefined, stopBeforePost) };
}

export interface TwoTesseras extends UpstreamAndDownstream {
  /** The downstream's application people sign in to (OpenID Connect). */
  app: Awaited<ReturnType<typeof openedApp>>;
  sourceId: string;
  /** The upstream's SAML application for the downstream. */
  samlAppId: string;
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
  const two = await startUpstreamAndDownstream({
    emailDomain: 'upstream.example',
    downstream: { log: downstreamLog },
  });
  const { upstream, downstream, upOwner, downOwner } = two;

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
    ...two,
    app,
    sourceId,
    samlAppId,
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
    formSubmission({ csrf: csrfOf(page.html), identifier: user.username, password: user.password }),
  );
}
