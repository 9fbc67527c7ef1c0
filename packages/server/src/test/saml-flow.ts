import { expect } from 'vitest';
import { absolute, type CookieJar, csrfOf, decodeEntities, request } from './browser-flow.ts';
import { call, type TestContext } from './harness.ts';
import type { TestServiceProvider } from './saml-sp.ts';

/** Helpers of the SAML tests: a browser going between Tessera and a test service provider. */

/** The auto-posted form of a page (a SAML message, a form-fill sign-in): its action and fields. */
export function autoPostForm(html: string) {
  const form = /<form method="post" action="([^"]*)"[^>]*data-auto-submit>([\s\S]*?)<\/form>/.exec(html);
  if (!form) throw new Error(`no auto-submit form in ${html.slice(0, 600)}`);
  const fields: Record<string, string> = {};
  for (const input of (form[2] ?? '').matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
    fields[decodeEntities(input[1] ?? '')] = decodeEntities(input[2] ?? '');
  return { action: decodeEntities(form[1] ?? ''), fields };
}

/** Posts a form like a browser would (urlencoded). */
export const post = (jar: CookieJar, url: string, fields: Record<string, string>) =>
  request(jar, url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

/** Follows redirects (and auto-posted forms, when `posts` allows) until a page that is neither. */
export async function travel(jar: CookieJar, first: Response, from: string, posts = 0) {
  let response = first;
  let url = from;
  let posted = 0;
  for (let hop = 0; hop < 20; hop++) {
    if (response.status >= 300 && response.status < 400) {
      url = absolute(url, response.headers.get('location'));
      response = await request(jar, url);
      continue;
    }
    const html = await response.text();
    if (posted < posts && html.includes('data-auto-submit')) {
      const form = autoPostForm(html);
      url = form.action;
      response = await post(jar, url, form.fields);
      posted++;
      continue;
    }
    return { url, status: response.status, html };
  }
  throw new Error('too many hops');
}

/** The sign-in page's form submitted with a password; answers where that leads. */
export async function signInOnPage(
  jar: CookieJar,
  pageUrl: string,
  html: string,
  username: string,
  password: string,
) {
  const action = /<form method="post" action="([^"]*\/login)"/.exec(html)?.[1];
  if (!action) throw new Error(`no sign-in form at ${pageUrl}: ${html.slice(0, 400)}`);
  const response = await post(jar, absolute(pageUrl, action), {
    csrf: csrfOf(html),
    identifier: username,
    password,
  });
  expect(response.status).toBe(303);
  return travel(jar, response, absolute(pageUrl, action), 1);
}

/** The SP's answer at its ACS (JSON from the test SP). */
export const spAnswer = (html: string) =>
  JSON.parse(html) as { profile?: Record<string, unknown>; error?: string };

type Company = { token: string; companyId: string };

export async function manage<T = Record<string, unknown>>(
  ctx: TestContext,
  company: Company,
  path: string,
  body: unknown,
) {
  const answer = await call<T>(ctx, path, body, { token: company.token, companyId: company.companyId });
  if (answer.code !== 200) throw new Error(`${path}: ${answer.code} ${JSON.stringify(answer.data)}`);
  return answer.data;
}

/** A SAML app of the company for this service provider, from its metadata URL, opened; the SP trusts the company's IdP. */
export async function samlAppFor(
  ctx: TestContext,
  company: Company,
  sp: TestServiceProvider,
  name: string,
  settings: Record<string, unknown> = {},
) {
  const created = await manage<{ app: { appId: string } }>(ctx, company, '/api/v1/manage/app/create', {
    name,
    protocol: 'saml',
  });
  const appId = created.app.appId;
  await manage(ctx, company, '/api/v1/manage/app/saml/metadata/import', { appId, url: sp.metadataUrl });
  if (Object.keys(settings).length)
    await manage(ctx, company, '/api/v1/manage/app/saml/update', { appId, ...settings });
  await manage(ctx, company, '/api/v1/manage/app/status', { appId, status: 'opened' });
  const idp = await manage<{
    entityId: string;
    ssoUrl: string;
    sloUrl: string;
    certificates: { pem: string }[];
  }>(ctx, company, '/api/v1/manage/app/saml/idp', {});
  sp.useIdp({
    ...idp,
    certificates: idp.certificates.map((c) => c.pem.replace(/-----[A-Z ]+-----|\s+/g, '')),
  });
  return { appId, idp };
}
