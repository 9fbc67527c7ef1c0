import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInForCode, signInToPortal } from '../../test/browser-flow.ts';
import {
  call,
  companyMember,
  createAccount,
  grantLicense,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import {
  alsoMemberOf,
  authorization,
  CookieJar,
  go,
  openedApp,
  redeem,
  signInFresh,
  signInOnPage,
  submit,
  type TestApp,
} from '../../test/oidc-flow.ts';
import { radtest, skipWithoutRadclient } from '../../test/radclient.ts';

/**
 * Issue 35, item 17: a known set of sign-ins over the real flows (the consoles' OIDC sign-in,
 * the user centre, a catalogue app and a self-built one, a RADIUS accept, a wrong password), and the users list,
 * the sign-in log, every dashboard panel and the user centre tell the same story: one event per
 * sign-in, each in the log of the company it counts for, each app in the panels.
 */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let grafana: TestApp;
let wiki: TestApp;
let ann: { id: string; username: string; password: string };
let bob: { id: string; username: string; password: string };
let root: { id: string; username: string; password: string };
let radiusAccepts = 0;
const as = () => ({ token: owner.token, companyId: owner.companyId });

type LogRow = {
  id: string;
  userId: string | null;
  result: string;
  clientId: string | null;
  cause: string | null;
};

beforeAll(async () => {
  ctx = await startTestApp({ listen: true, radius: true });
  await grantLicense(ctx, { app: 50 });
  owner = await ownerWithCompany(ctx, 'figowner', 'Figures Ltd');
  grafana = await openedApp(
    ctx,
    owner,
    { tokenAuthMethod: 'client_secret_basic', askConsent: true },
    { name: 'Grafana', type: 'third_party', template: 'grafana', baseUrl: 'https://grafana.example.com' },
  );
  wiki = await openedApp(ctx, owner, { tokenAuthMethod: 'client_secret_basic' }, { name: 'Wiki' });
  ann = await companyMember(ctx, owner, 'ann');
  bob = await companyMember(ctx, owner, 'bob');
  root = await createAccount(ctx, { username: 'root', platformAdmin: true });
  await alsoMemberOf(ctx, owner.companyId, root.id);
  for (const app of [grafana, wiki])
    expect(
      (
        await call(
          ctx,
          '/api/v1/manage/app/assignment/add',
          { appId: app.appId, userIds: [ann.id, bob.id] },
          as(),
        )
      ).code,
    ).toBe(200);

  // The known set: the platform administrator (no home company) signs in to the platform
  // console; Ann signs in to the user centre and, with that session, to Grafana (which asks her
  // consent); to the wiki at its sign-in page and again with that session; one wrong password.
  await signInForCode({
    baseUrl: ctx.baseUrl,
    clientId: 'tessera-console-admin',
    redirectUri: `${ctx.baseUrl}/admin/`,
    identifier: root.username,
    password: root.password,
  });
  await signInForCode({
    baseUrl: ctx.baseUrl,
    clientId: 'tessera-console-dev',
    redirectUri: `${ctx.baseUrl}/dev/`,
    identifier: ann.username,
    password: ann.password,
  });
  const centre = await signInToPortal(ctx.baseUrl, ann.username, ann.password);
  const toGrafana = authorization(ctx.baseUrl, grafana.clientId);
  const consent = await go(centre.jar, toGrafana.url);
  expect(consent.page?.html).toContain('Grafana asks to use your Tessera account ann');
  await redeem(
    ctx.baseUrl,
    grafana,
    toGrafana,
    await submit(centre.jar, consent.page!, /\/consent$/, { decision: 'allow' }),
  );
  const toWiki = await signInFresh(ctx.baseUrl, wiki.clientId, ann);
  await redeem(ctx.baseUrl, wiki, toWiki.auth, toWiki.landing);
  const again = authorization(ctx.baseUrl, wiki.clientId);
  await redeem(ctx.baseUrl, wiki, again, await go(toWiki.jar, again.url));
  // Bob signs in to Grafana at its sign-in page, then consents, in one authorization.
  const bobs = await signInFresh(ctx.baseUrl, grafana.clientId, bob);
  const allowed = await submit(bobs.jar, bobs.landing.page!, /\/consent$/, { decision: 'allow' });
  await redeem(ctx.baseUrl, grafana, bobs.auth, allowed);
  if (!skipWithoutRadclient) {
    // A RADIUS client of the company accepts her password (radtest, as an administrator would try it).
    const vpn = await call<{ secret: string }>(
      ctx,
      '/api/v1/manage/radius/client/create',
      { name: 'VPN', source: '127.0.0.1' },
      as(),
    );
    expect(vpn.code, vpn.msg).toBe(200);
    const port = ctx.tessera.radius?.port as number;
    expect(await radtest(port, vpn.data.secret, ann.username, ann.password)).toMatch(
      /Received Access-Accept/,
    );
    radiusAccepts = 1;
  }
  const jar = new CookieJar();
  const wrong = await go(jar, authorization(ctx.baseUrl, grafana.clientId).url);
  await signInOnPage(jar, wrong.page!, { username: ann.username, password: 'Not-Her-Password-1' });
});
afterAll(() => ctx.close());

async function signInLog(): Promise<LogRow[]> {
  const log = await call<{ list: LogRow[] }>(
    ctx,
    '/api/v1/manage/log/sign-in/list',
    { range: 'month', page: 1, pageSize: 100, order: 'desc' },
    as(),
  );
  expect(log.code, log.msg).toBe(200);
  return log.data.list;
}

describe('the figures of a known set of sign-ins (issue 35)', () => {
  it('logs one event per sign-in, in the company it counts for', async () => {
    const rows = await signInLog();
    const successes = (userId: string, clientId?: string) =>
      rows.filter(
        (r) => r.result === 'success' && r.userId === userId && (!clientId || r.clientId === clientId),
      );
    // The platform console is no company's: not in the log, and not counted below.
    expect.soft(successes(root.id)).toHaveLength(0);
    expect.soft(successes(ann.id, 'tessera-portal')).toHaveLength(1);
    expect.soft(successes(ann.id, grafana.clientId)).toHaveLength(1);
    expect.soft(successes(ann.id, wiki.clientId)).toHaveLength(2);
    expect.soft(successes(ann.id, 'tessera-console-dev')).toHaveLength(1);
    expect.soft(successes(ann.id)).toHaveLength(5 + radiusAccepts);
    expect.soft(successes(bob.id, grafana.clientId)).toHaveLength(1);
    expect.soft(successes(bob.id)).toHaveLength(1);
    expect.soft(rows.filter((r) => r.result === 'failure' && r.userId === ann.id)).toHaveLength(1);

    const users = await call<{ list: { userId: string; loginCount: number }[] }>(
      ctx,
      '/api/v1/manage/user/list',
      { page: 1, pageSize: 50 },
      as(),
    );
    for (const person of [ann, bob, root])
      expect
        .soft(users.data.list.find((u) => u.userId === person.id)?.loginCount, person.username)
        .toBe(successes(person.id).length);
  });

  it('shows the same sign-ins on every dashboard panel', async () => {
    const rows = await signInLog();
    const success = rows.filter((r) => r.result === 'success');
    const trend = await call<{ days: { success: number; failure: number }[] }>(
      ctx,
      '/api/v1/manage/index/user-login-trend',
      {},
      as(),
    );
    expect(trend.data.days.reduce((n, d) => n + d.success, 0)).toBe(success.length);
    expect(trend.data.days.reduce((n, d) => n + d.failure, 0)).toBe(rows.length - success.length);

    const perApp = (clientId: string) => success.filter((r) => r.clientId === clientId).length;
    const top = await call<{ top: { appId: string; count: number }[] }>(
      ctx,
      '/api/v1/manage/index/app-login-count',
      {},
      as(),
    );
    expect(top.data.top).toEqual(
      expect.arrayContaining([
        { appId: wiki.appId, name: 'Wiki', count: perApp(wiki.clientId) },
        { appId: grafana.appId, name: 'Grafana', count: perApp(grafana.clientId) },
      ]),
    );
    const ratio = await call<{ list: { appId: string; count: number }[] }>(
      ctx,
      '/api/v1/manage/index/app-login-count-ratio',
      {},
      as(),
    );
    expect(ratio.data.list.map((a) => [a.appId, a.count])).toEqual(
      expect.arrayContaining([
        [wiki.appId, perApp(wiki.clientId)],
        [grafana.appId, perApp(grafana.clientId)],
      ]),
    );

    const fails = await call<{ days: { total: number }[] }>(ctx, '/api/v1/manage/index/fail-trend', {}, as());
    expect(fails.data.days.reduce((n, d) => n + d.total, 0)).toBe(rows.length - success.length);

    const recent = await call<{ list: { id: string }[] }>(
      ctx,
      '/api/v1/manage/index/new-login-list',
      { limit: 50 },
      as(),
    );
    expect(recent.data.list.map((r) => r.id)).toEqual(success.map((r) => r.id));
    const recentFails = await call<{ list: { id: string }[] }>(
      ctx,
      '/api/v1/manage/index/new-fail-list',
      { limit: 50 },
      as(),
    );
    expect(recentFails.data.list.map((r) => r.id)).toEqual(
      rows.filter((r) => r.result === 'failure').map((r) => r.id),
    );
    const overview = await call<{ activeLast7Days: number }>(
      ctx,
      '/api/v1/manage/index/user-data-overview',
      {},
      as(),
    );
    expect(overview.data.activeLast7Days).toBe(new Set(success.map((r) => r.userId)).size);
  });

  it("shows the person's own sign-ins in the user centre, each once", async () => {
    const rows = (await signInLog()).filter((r) => r.userId === ann.id);
    const { page } = await signInToPortal(ctx.baseUrl, ann.username, ann.password);
    const listed = page.html.match(/<span class="(ok|bad)">/g) ?? [];
    // The user centre's own new sign-in is the newest row.
    expect(listed.length).toBe(rows.length + 1);
  });
});
