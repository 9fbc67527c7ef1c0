import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSealer } from '../../lib/crypto.ts';
import {
  browse,
  CookieJar,
  csrfOf,
  decodeEntities,
  postForm,
  request,
  signInToPortal,
} from '../../test/browser-flow.ts';
import {
  call,
  companyMember,
  grantLicense,
  ownerWithCompany,
  startTestApp,
  type TestContext,
  TINY_PNG,
  upload,
} from '../../test/harness.ts';
import { type LegacyFormApp, startLegacyFormApp } from '../../test/legacy-form-app.ts';
import { FORM_PASSWORD_PURPOSE } from './app.service.ts';

let ctx: TestContext;
let legacy: LegacyFormApp;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;

const LEGACY_USERS = { 'alice-legacy': 'Legacy-Pass-1 & <"q">', 'shared-bot': 'Shared-Pass-2' };

/** The form credentials stored for an app, of anyone. */
const storedCredentials = (appId: string) =>
  ctx.database.db.selectFrom('app_form_credentials').selectAll().where('app_id', '=', appId).execute();

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  await grantLicense(ctx, { app: 1000 });
  legacy = await startLegacyFormApp({ users: LEGACY_USERS, tenant: 'acme' });
  owner = await ownerWithCompany(ctx, 'apps-owner', 'Apps Co');
});
afterAll(async () => {
  await legacy?.close();
  await ctx?.close();
});

type Company = { token: string; companyId: string };

/** A management call of a company's administrator that must succeed. */
async function manage<T = Record<string, unknown>>(company: Company, path: string, body: unknown) {
  const answer = await call<T>(ctx, path, body, { token: company.token, companyId: company.companyId });
  if (answer.code !== 200) throw new Error(`${path}: ${answer.code} ${JSON.stringify(answer.data)}`);
  return answer.data;
}

async function formApp(
  company: Company,
  name: string,
  mode: 'user' | 'shared',
  options: { defaultAccess?: 'allow_all' | 'prohibit_all' } = {},
) {
  const created = await manage<{ app: { appId: string } }>(company, '/api/v1/manage/app/create', {
    name,
    protocol: 'form',
  });
  const appId = created.app.appId;
  await manage(company, '/api/v1/manage/app/form/update', {
    appId,
    loginUrl: legacy.loginUrl,
    usernameField: 'login_user',
    passwordField: 'login_pass',
    extraFields: [{ name: 'tenant', value: 'acme' }],
    credentialMode: mode,
    ...(mode === 'shared'
      ? { sharedUsername: 'shared-bot', sharedPassword: LEGACY_USERS['shared-bot'] }
      : {}),
  });
  if (options.defaultAccess)
    await manage(company, '/api/v1/manage/app/update', { appId, defaultAccess: options.defaultAccess });
  await manage(company, '/api/v1/manage/app/status', { appId, status: 'opened' });
  return appId;
}

async function oidcApp(
  company: Company,
  name: string,
  settings: {
    redirectUris: string[];
    initiateLoginUri?: string;
    homeUrl?: string;
    defaultAccess?: 'allow_all' | 'prohibit_all';
  },
  status: 'opened' | 'disabled' | 'to_be_configured' = 'opened',
) {
  const created = await manage<{ app: { appId: string } }>(company, '/api/v1/manage/app/create', { name });
  const appId = created.app.appId;
  await manage(company, '/api/v1/manage/app/update', { appId, ...settings });
  if (status !== 'to_be_configured') await manage(company, '/api/v1/manage/app/status', { appId, status });
  return appId;
}

/** The auto-submitting form of a launch page: where it posts and its fields, as a browser would send them. */
function autoPostForm(html: string) {
  const form = /<form method="post" action="([^"]*)"[^>]*data-auto-submit>([\s\S]*?)<\/form>/.exec(html);
  if (!form) throw new Error(`no auto-submit form in ${html.slice(0, 400)}`);
  const fields: [string, string][] = [];
  for (const input of (form[2] ?? '').matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
    fields.push([decodeEntities(input[1] ?? ''), decodeEntities(input[2] ?? '')]);
  return { action: decodeEntities(form[1] ?? ''), fields };
}

/** The launch form of one app on the "my apps" page. */
const launchFormOf = (html: string, appId: string) =>
  new RegExp(`<form method="post" action="/portal/apps/${appId}/launch">`).test(html);

/** Ids of the apps the "my apps" page lists. */
const listedApps = (html: string) => [...html.matchAll(/data-app-id="([^"]+)"/g)].map((m) => m[1]);

/** Posts a launch page's form to the legacy app like a browser and follows to the page it lands on. */
async function submitToLegacy(html: string) {
  const { action, fields } = autoPostForm(html);
  const jar = new CookieJar();
  return browse(jar, action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

describe('my apps: form-fill single sign-on', () => {
  it('stores the user’s credentials sealed, launches the app and signs in to it', async () => {
    const appId = await formApp(owner, 'Legacy Wiki', 'user');
    const alice = await companyMember(ctx, owner, 'alice');
    const { jar, page } = await signInToPortal(ctx.baseUrl, alice.username, alice.password);
    // The user centre links to "my apps".
    expect(page.html).toContain('href="/portal/apps"');

    const myApps = await browse(jar, `${ctx.baseUrl}/portal/apps`);
    expect(myApps.response.status).toBe(200);
    expect(myApps.html).toContain('Legacy Wiki');
    expect(launchFormOf(myApps.html, appId)).toBe(true);
    const csrf = csrfOf(myApps.html);

    // A forged launch is refused.
    const forged = await postForm(jar, `${ctx.baseUrl}/portal/apps/${appId}/launch`, { csrf: 'forged' });
    expect(forged.response.status).toBe(403);

    // No credentials yet: the launch sends the person to save them first.
    const first = await postForm(jar, `${ctx.baseUrl}/portal/apps/${appId}/launch`, { csrf });
    expect(first.url).toBe(`${ctx.baseUrl}/portal/apps/${appId}/credentials?next=open`);
    expect(first.html).toContain('name="username"');

    // Missing password: the form answers with the field's message, nothing stored.
    const missing = await postForm(jar, `${ctx.baseUrl}/portal/apps/${appId}/credentials`, {
      csrf,
      username: 'alice-legacy',
      password: '',
    });
    expect(missing.response.status).toBe(400);
    expect(missing.html).toContain('Please enter your password');
    expect(await storedCredentials(appId)).toHaveLength(0);

    // Save and open: the answer is the page that posts the app's login form.
    const password = LEGACY_USERS['alice-legacy'];
    const launched = await postForm(jar, `${ctx.baseUrl}/portal/apps/${appId}/credentials`, {
      csrf,
      username: 'alice-legacy',
      password,
      next: 'open',
    });
    expect(launched.response.status).toBe(200);
    expect(launched.response.headers.get('cache-control')).toBe('no-store');
    expect(launched.response.headers.get('referrer-policy')).toBe('no-referrer');
    const csp = launched.response.headers.get('content-security-policy') ?? '';
    // No form-action: the browser would check it along the login's redirects to the app's other hosts.
    expect(csp).not.toContain('form-action');
    expect(launched.html).toContain(`action="${legacy.url}/login"`);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    // No inline script: the form is submitted by the portal's script file, or by its visible button.
    expect(launched.html).toContain('<script src="/portal/form-launch.js" defer></script>');
    expect(launched.html).not.toMatch(/<script>|<script(?![^>]*\bsrc=)[^>]*>/);
    expect(launched.html).toMatch(/<button type="submit" class="primary">Continue<\/button>/);
    const form = autoPostForm(launched.html);
    expect(form.action).toBe(legacy.loginUrl);
    expect(form.fields).toEqual([
      ['login_user', 'alice-legacy'],
      ['login_pass', password],
      ['tenant', 'acme'],
    ]);

    // The form-fill sign-in is in the company's sign-in log.
    const logged = await ctx.database.db
      .selectFrom('login_events as e')
      .innerJoin('apps as p', 'p.client_id', 'e.client_id')
      .select(['e.result', 'e.identifier'])
      .where('p.id', '=', appId)
      .execute();
    expect(logged).toEqual([{ result: 'success', identifier: 'alice' }]);

    // Posting it signs in to the legacy app.
    const before = legacy.posts.length;
    const landed = await submitToLegacy(launched.html);
    expect(landed.response.status).toBe(200);
    expect(landed.url).toBe(`${legacy.url}/home`);
    expect(landed.html).toContain('Welcome alice-legacy');
    expect(legacy.posts.slice(before)).toEqual([
      { login_user: 'alice-legacy', login_pass: password, tenant: 'acme' },
    ]);

    // The password is sealed at rest, never in clear text, and the audit event does not hold it.
    const row = await ctx.database.db
      .selectFrom('app_form_credentials')
      .selectAll()
      .where('app_id', '=', appId)
      .where('account_id', '=', alice.id)
      .executeTakeFirstOrThrow();
    expect(row.username).toBe('alice-legacy');
    expect(row.password_sealed).not.toContain(password);
    expect(row.password_sealed).not.toContain(Buffer.from(password).toString('base64'));
    expect(createSealer(ctx.masterKey).open(row.password_sealed, FORM_PASSWORD_PURPOSE)).toBe(password);
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .selectAll()
      .where('target_id', '=', appId)
      .where('action', '=', 'app.form.credential.save')
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]?.actor_account_id).toBe(alice.id);
    expect(JSON.stringify(audit)).not.toContain('Legacy-Pass-1');

    // The credentials page shows the user name, never the password.
    const details = await browse(jar, `${ctx.baseUrl}/portal/apps/${appId}/credentials`);
    expect(details.html).toContain('value="alice-legacy"');
    expect(details.html).toContain('A password is saved');
    expect(details.html).not.toContain('Legacy-Pass-1');

    // From now on the launch from "my apps" posts the form at once.
    const again = await postForm(jar, `${ctx.baseUrl}/portal/apps/${appId}/launch`, { csrf });
    expect(autoPostForm(again.html).fields).toContainEqual(['login_pass', password]);
    // A GET of the launch address shows nothing secret: a button that posts the launch.
    const viaLink = await browse(jar, `${ctx.baseUrl}/portal/apps/${appId}/launch`);
    expect(viaLink.response.status).toBe(200);
    expect(viaLink.html).not.toContain('Legacy-Pass-1');
    expect(viaLink.html).not.toContain('alice-legacy');
    expect(viaLink.html).toContain(`action="/portal/apps/${appId}/launch"`);

    // Changing only the user name keeps the stored password.
    await postForm(jar, `${ctx.baseUrl}/portal/apps/${appId}/credentials`, {
      csrf,
      username: 'alice-renamed',
      password: '',
    });
    const renamed = await postForm(jar, `${ctx.baseUrl}/portal/apps/${appId}/launch`, { csrf });
    expect(autoPostForm(renamed.html).fields.slice(0, 2)).toEqual([
      ['login_user', 'alice-renamed'],
      ['login_pass', password],
    ]);
    // A wrong user name is refused by the legacy app itself.
    expect((await submitToLegacy(renamed.html)).html).toContain('Wrong user name or password');

    // Removing the saved details.
    const removed = await postForm(jar, `${ctx.baseUrl}/portal/apps/${appId}/credentials/delete`, { csrf });
    expect(removed.url).toBe(`${ctx.baseUrl}/portal/apps?notice=removed`);
    expect(removed.html).toContain('Your sign-in details have been removed.');
    expect(await storedCredentials(appId)).toHaveLength(0);
  });

  it('serves the launch script from the portal assets', async () => {
    const script = await fetch(`${ctx.baseUrl}/portal/form-launch.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect(await script.text()).toContain('HTMLFormElement.prototype.submit.call(form)');
  });

  it('signs in with the shared account in shared mode', async () => {
    const appId = await formApp(owner, 'Shared Console', 'shared');
    const dora = await companyMember(ctx, owner, 'dora');
    const { jar } = await signInToPortal(ctx.baseUrl, dora.username, dora.password);
    const myApps = await browse(jar, `${ctx.baseUrl}/portal/apps`);
    expect(launchFormOf(myApps.html, appId)).toBe(true);
    // Nothing to save in shared mode.
    expect(myApps.html).not.toContain(`/portal/apps/${appId}/credentials`);
    const details = await browse(jar, `${ctx.baseUrl}/portal/apps/${appId}/credentials`);
    expect(details.html).toContain('account your administrator set up');
    expect(details.html).not.toContain('name="password"');

    const launched = await postForm(jar, `${ctx.baseUrl}/portal/apps/${appId}/launch`, {
      csrf: csrfOf(myApps.html),
    });
    expect(autoPostForm(launched.html).fields).toEqual([
      ['login_user', 'shared-bot'],
      ['login_pass', LEGACY_USERS['shared-bot']],
      ['tenant', 'acme'],
    ]);
    expect((await submitToLegacy(launched.html)).html).toContain('Welcome shared-bot');
  });

  it('refuses a person without access with a clear page and no credentials in it', async () => {
    const appId = await formApp(owner, 'Restricted Ledger', 'shared', { defaultAccess: 'prohibit_all' });
    const erin = await companyMember(ctx, owner, 'erin');
    const { jar } = await signInToPortal(ctx.baseUrl, erin.username, erin.password);
    const myApps = await browse(jar, `${ctx.baseUrl}/portal/apps`);
    expect(myApps.html).not.toContain('Restricted Ledger');
    const csrf = csrfOf(myApps.html);

    const refused = await postForm(jar, `${ctx.baseUrl}/portal/apps/${appId}/launch`, { csrf });
    expect(refused.response.status).toBe(403);
    // The refusal is in the company's sign-in log with its cause.
    const refusals = await ctx.database.db
      .selectFrom('login_events as e')
      .innerJoin('apps as p', 'p.client_id', 'e.client_id')
      .select(['e.result', 'e.failure_cause', 'e.company_id'])
      .where('p.id', '=', appId)
      .where('e.account_id', '=', erin.id)
      .execute();
    expect(refusals).toEqual([
      { result: 'failure', failure_cause: 'app_not_assigned', company_id: owner.companyId },
    ]);
    expect(refused.html).toContain('No access');
    expect(refused.html).toContain('You have not been given access to this application');
    expect(refused.html).not.toContain('shared-bot');
    expect(refused.html).not.toContain(LEGACY_USERS['shared-bot']);
    expect(refused.html).not.toContain('data-auto-submit');
    expect((await browse(jar, `${ctx.baseUrl}/portal/apps/${appId}/launch`)).response.status).toBe(403);
    expect((await browse(jar, `${ctx.baseUrl}/portal/apps/${appId}/credentials`)).response.status).toBe(403);

    // Assigned: the same launch works; the assignment expired: refused again, with its cause.
    await manage(owner, '/api/v1/manage/app/assignment/add', { appId, userIds: [erin.id] });
    const allowed = await postForm(jar, `${ctx.baseUrl}/portal/apps/${appId}/launch`, { csrf });
    expect(autoPostForm(allowed.html).fields[0]).toEqual(['login_user', 'shared-bot']);
    await ctx.database.db
      .updateTable('app_assignments')
      .set({ expires_at: new Date(Date.now() - 60_000) })
      .where('app_id', '=', appId)
      .execute();
    const expired = await postForm(jar, `${ctx.baseUrl}/portal/apps/${appId}/launch`, { csrf });
    expect(expired.response.status).toBe(403);
    expect(expired.html).toContain('Your access to this application has expired');
    expect(expired.html).not.toContain(LEGACY_USERS['shared-bot']);

    // Disabled: refused.
    await ctx.database.db
      .updateTable('app_assignments')
      .set({ expires_at: null })
      .where('app_id', '=', appId)
      .execute();
    await manage(owner, '/api/v1/manage/app/status', { appId, status: 'disabled' });
    const disabled = await postForm(jar, `${ctx.baseUrl}/portal/apps/${appId}/launch`, { csrf });
    expect(disabled.response.status).toBe(403);
    expect(disabled.html).toContain('has been disabled');
  });

  it('does not find another company’s app', async () => {
    const other = await ownerWithCompany(ctx, 'other-owner', 'Other Co');
    const theirs = await formApp(other, 'Their Payroll', 'shared');
    const frank = await companyMember(ctx, owner, 'frank');
    const { jar } = await signInToPortal(ctx.baseUrl, frank.username, frank.password);
    const myApps = await browse(jar, `${ctx.baseUrl}/portal/apps`);
    expect(myApps.html).not.toContain('Their Payroll');
    const csrf = csrfOf(myApps.html);
    for (const path of [`/portal/apps/${theirs}/launch`, `/portal/apps/${theirs}/credentials`]) {
      const page = await browse(jar, `${ctx.baseUrl}${path}`);
      expect(page.response.status).toBe(404);
      expect(page.html).toContain('does not exist or is not available to you');
    }
    const posted = await postForm(jar, `${ctx.baseUrl}/portal/apps/${theirs}/launch`, { csrf });
    expect(posted.response.status).toBe(404);
    expect(posted.html).not.toContain(LEGACY_USERS['shared-bot']);
    const saved = await postForm(jar, `${ctx.baseUrl}/portal/apps/${theirs}/credentials`, {
      csrf,
      username: 'x',
      password: 'y',
    });
    expect(saved.response.status).toBe(404);
    expect(await storedCredentials(theirs)).toHaveLength(0);
    expect((await browse(jar, `${ctx.baseUrl}/portal/apps/no-such-app/launch`)).response.status).toBe(404);
  });

  it('sends a visitor who is not signed in to sign in first', async () => {
    const jar = new CookieJar();
    const first = await request(jar, `${ctx.baseUrl}/portal/apps`);
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toContain('/oidc/auth');
  });
});

describe('my apps: the list and OIDC launches', () => {
  it('lists exactly the apps the person may open', async () => {
    const company = await ownerWithCompany(ctx, 'list-owner', 'List Co');
    const carol = await companyMember(ctx, company, 'carol');
    const callback = { redirectUris: ['https://rp.example.com/callback'] };
    const open = await oidcApp(company, 'Open to all', callback);
    const assigned = await oidcApp(company, 'Assigned', { ...callback, defaultAccess: 'prohibit_all' });
    const notAssigned = await oidcApp(company, 'Not assigned', {
      ...callback,
      defaultAccess: 'prohibit_all',
    });
    const expired = await oidcApp(company, 'Expired', { ...callback, defaultAccess: 'prohibit_all' });
    const disabled = await oidcApp(company, 'Disabled', callback, 'disabled');
    const unconfigured = await oidcApp(company, 'Unconfigured', callback, 'to_be_configured');
    const later = Math.floor(Date.now() / 1000) + 3600;
    await manage(company, '/api/v1/manage/app/assignment/add', {
      appId: assigned,
      userIds: [carol.id],
      expiresAt: later,
    });
    await manage(company, '/api/v1/manage/app/assignment/add', { appId: expired, userIds: [carol.id] });
    await manage(company, '/api/v1/manage/app/assignment/add', { appId: disabled, userIds: [carol.id] });
    await ctx.database.db
      .updateTable('app_assignments')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('app_id', '=', expired)
      .execute();

    const logo = await upload(
      ctx,
      '/api/v1/manage/app/logo',
      { bytes: TINY_PNG, filename: 'logo.png', type: 'image/png' },
      { token: company.token, companyId: company.companyId, fields: { appId: open } },
    );
    expect(logo.code).toBe(200);

    const { jar } = await signInToPortal(ctx.baseUrl, carol.username, carol.password);
    const page = await browse(jar, `${ctx.baseUrl}/portal/apps`);
    expect(page.response.status).toBe(200);
    // Each app with its logo (the file address the console shows too), or its first letter.
    expect(page.html).toContain(
      `<img class="app-logo" src="${(logo.data as { logo: string }).logo}" alt="">`,
    );
    expect(page.html).toContain('<span class="app-logo" aria-hidden="true">A</span>');
    expect(new Set(listedApps(page.html))).toEqual(new Set([open, assigned]));
    expect(page.html).toContain('aria-current="page">My apps');
    // OIDC apps launch by link.
    expect(page.html).toContain(`href="/portal/apps/${open}/launch"`);
    for (const id of [notAssigned, expired, disabled, unconfigured])
      expect((await browse(jar, `${ctx.baseUrl}/portal/apps/${id}/launch`)).response.status).toBe(403);

    // A disabled user record in the company sees none of its apps.
    await ctx.database.db
      .updateTable('company_members')
      .set({ status: 'disabled' })
      .where('account_id', '=', carol.id)
      .where('company_id', '=', company.companyId)
      .execute();
    expect(listedApps((await browse(jar, `${ctx.baseUrl}/portal/apps`)).html)).toEqual([]);
    expect((await browse(jar, `${ctx.baseUrl}/portal/apps/${open}/launch`)).response.status).toBe(403);

    // In Chinese.
    await ctx.database.db
      .updateTable('company_members')
      .set({ status: 'enabled' })
      .where('account_id', '=', carol.id)
      .execute();
    const zh = await browse(jar, `${ctx.baseUrl}/portal/apps?lang=zh`);
    expect(zh.html).toContain('我的应用');
    expect(zh.html).toContain('打开');
  });

  it('launches an OIDC app by third-party initiated login, else at its home page or callback origin', async () => {
    const company = await ownerWithCompany(ctx, 'oidc-owner', 'OIDC Co');
    const gina = await companyMember(ctx, company, 'gina');
    const initiated = await oidcApp(company, 'Initiated', {
      redirectUris: ['https://rp.example.com/callback'],
      initiateLoginUri: 'https://rp.example.com/login/start?from=portal',
      homeUrl: 'https://rp.example.com/home',
    });
    const homeOnly = await oidcApp(company, 'Home only', {
      redirectUris: ['https://home.example.com/callback'],
      homeUrl: 'https://home.example.com/dashboard',
    });
    const callbackOnly = await oidcApp(company, 'Callback only', {
      redirectUris: ['https://cb.example.com:8443/auth/callback'],
    });
    const { jar } = await signInToPortal(ctx.baseUrl, gina.username, gina.password);

    const first = await request(jar, `${ctx.baseUrl}/portal/apps/${initiated}/launch`);
    expect(first.status).toBe(302);
    const location = new URL(first.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe('https://rp.example.com/login/start');
    expect(location.searchParams.get('from')).toBe('portal');
    expect(location.searchParams.get('iss')).toBe(`${ctx.baseUrl}/oidc`);
    expect(location.searchParams.get('target_link_uri')).toBe('https://rp.example.com/home');

    const home = await request(jar, `${ctx.baseUrl}/portal/apps/${homeOnly}/launch`);
    expect(home.headers.get('location')).toBe('https://home.example.com/dashboard');
    const origin = await request(jar, `${ctx.baseUrl}/portal/apps/${callbackOnly}/launch`);
    expect(origin.headers.get('location')).toBe('https://cb.example.com:8443/');

    // The POST launch (with the CSRF token) redirects the same way; the page has a form (and
    // its token) once a form-fill app is listed.
    await formApp(company, 'Form beside', 'shared');
    const myApps = await browse(jar, `${ctx.baseUrl}/portal/apps`);
    const posted = await request(jar, `${ctx.baseUrl}/portal/apps/${initiated}/launch`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: csrfOf(myApps.html) }).toString(),
    });
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toBe(location.toString());
  });
});
