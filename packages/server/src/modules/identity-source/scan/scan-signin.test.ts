import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  absolute,
  browse,
  type CookieJar,
  csrfOf,
  decodeEntities,
  followToRedirectUri,
  request,
  signInToPortal,
  startAuthorization,
} from '../../../test/browser-flow.ts';
import {
  call,
  companyMember,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../../test/harness.ts';
import { openedApp } from '../../../test/opened-app.ts';
import { type ProviderFixture, startProviderFixture } from '../../../test/scan-providers.ts';

/**
 * Scan sign-in (issue 14) through the sign-in page against local servers that implement the
 * documented DingTalk, WeChat and WeCom endpoints: the provider's page, its callback, the code
 * exchanged by the product's own client, the state bound to the interaction and used once, the
 * first-scan setting, binding in the user centre, and the contacts of DingTalk and WeCom synced.
 */

let ctx: TestContext;
let fixture: ProviderFixture;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let clientId: string;
const redirectUri = 'http://localhost:7002/callback';
const sources: Record<'dingtalk' | 'weixin' | 'work_weixin', string> = {
  dingtalk: '',
  weixin: '',
  work_weixin: '',
};

async function createSource(body: Record<string, unknown>, company = owner) {
  const created = await call<{ sourceId: string; callbackUrl: string }>(
    ctx,
    '/api/v1/manage/identity-source/create',
    body,
    company,
  );
  expect(created.code, created.msg).toBe(200);
  return created.data.sourceId;
}

/** Opens the sign-in page of the application and presses the scan button of `sourceId`. */
async function pressScan(sourceId: string, jar?: CookieJar) {
  const start = await startAuthorization({ baseUrl: ctx.baseUrl, clientId, redirectUri, jar });
  const page = await request(start.jar, start.location);
  const html = await page.text();
  const action = new RegExp(`action="([^"]*/scan/${sourceId})"`).exec(html)?.[1];
  if (!action) return { jar: start.jar, html, provider: undefined };
  const pressed = await request(start.jar, absolute(start.location, decodeEntities(action)), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: csrfOf(html) }).toString(),
  });
  expect(pressed.status).toBe(303);
  return { jar: start.jar, html, provider: pressed.headers.get('location') ?? '' };
}

/** Scans at the provider (its page redirects at once) and follows its callback to where the browser lands. */
async function scan(sourceId: string) {
  const pressed = await pressScan(sourceId);
  const atProvider = await fetch(pressed.provider as string, { redirect: 'manual' });
  expect(atProvider.status).toBe(302);
  const callback = atProvider.headers.get('location') as string;
  expect(callback).toContain(`/portal/scan/${sourceId}/callback?`);
  const back = await request(pressed.jar, callback);
  return { jar: pressed.jar, callback, back };
}

const linkOf = (sourceId: string, externalId: string) =>
  ctx.database.db
    .selectFrom('identity_links as l')
    .innerJoin('accounts as a', 'a.id', 'l.account_id')
    .select(['a.id', 'a.username', 'a.display_name as name', 'a.email', 'l.external_name'])
    .where('l.source_id', '=', sourceId)
    .where('l.external_id', '=', externalId)
    .executeTakeFirst();

beforeAll(async () => {
  fixture = await startProviderFixture();
  ctx = await startTestApp({ listen: true, scanProviders: fixture.urls });
  owner = await ownerWithCompany(ctx, 'scan-owner', 'Scan Corp');
  clientId = await openedApp(ctx, owner, redirectUri);
  const { dingtalk, weixin, wecom } = fixture.credentials;
  sources.dingtalk = await createSource({
    type: 'dingtalk',
    name: 'DingTalk HQ',
    ...dingtalk,
    firstScan: 'create',
  });
  sources.weixin = await createSource({ type: 'weixin', name: 'WeChat', ...weixin, firstScan: 'link_only' });
  sources.work_weixin = await createSource({
    type: 'work_weixin',
    name: 'WeCom',
    ...wecom,
    firstScan: 'create',
  });
});
afterAll(async () => {
  await ctx?.close();
  await fixture?.close();
});

describe('scan sign-in', () => {
  it("offers a button per enabled scan source of the application's company, none of another company", async () => {
    const other = await ownerWithCompany(ctx, 'scan-other', 'Other Scan Corp');
    await createSource({ type: 'weixin', name: 'Other WeChat', appId: 'wxother', appSecret: 'x' }, other);
    const { html } = await pressScan('none');
    expect(html).toContain('DingTalk HQ');
    expect(html).toContain('WeCom');
    expect(html).not.toContain('Other WeChat');
    await call(
      ctx,
      '/api/v1/manage/identity-source/status',
      { sourceId: sources.weixin, enabled: false },
      owner,
    );
    expect((await pressScan(sources.weixin)).provider).toBeUndefined();
    await call(
      ctx,
      '/api/v1/manage/identity-source/status',
      { sourceId: sources.weixin, enabled: true },
      owner,
    );
  });

  it('creates a DingTalk person at the first scan (unionId) and signs the same person in at the next', async () => {
    const first = await scan(sources.dingtalk);
    await followToRedirectUri(first.jar, ctx.baseUrl, first.back, redirectUri);
    const person = await linkOf(sources.dingtalk, 'union-dt-1');
    expect(person).toMatchObject({ name: '丁一', email: 'ding.one@dt.example', external_name: '丁一' });
    const again = await scan(sources.dingtalk);
    const landed = await followToRedirectUri(again.jar, ctx.baseUrl, again.back, redirectUri);
    expect(landed.searchParams.get('code')).toBeTruthy();
    const events = await ctx.database.db
      .selectFrom('login_events')
      .select('result')
      .where('account_id', '=', person?.id as string)
      .execute();
    expect(events.map((e) => e.result)).toEqual(['success', 'success']);
  });

  it('uses a state once: the same callback again signs nobody in', async () => {
    const first = await scan(sources.work_weixin);
    await followToRedirectUri(first.jar, ctx.baseUrl, first.back, redirectUri);
    expect(await linkOf(sources.work_weixin, 'li.lei')).toMatchObject({ username: 'li.lei', name: '李雷' });
    const replayed = await browse(first.jar, first.callback);
    expect(replayed.response.status).toBe(400);
    expect(decodeEntities(replayed.html)).toContain('The scan has expired or was already used');
  });

  it('refuses an unlinked WeChat account when the source only links, and says how to bind', async () => {
    const refused = await scan(sources.weixin);
    const page = await browse(refused.jar, absolute(ctx.baseUrl, refused.back.headers.get('location')));
    expect(page.response.status).toBe(403);
    expect(decodeEntities(page.html)).toContain('Scan Corp');
    expect(await linkOf(sources.weixin, 'union-wx-1')).toBeUndefined();
    const event = await ctx.database.db
      .selectFrom('login_events')
      .select(['result', 'failure_cause', 'identifier'])
      .where('identifier', '=', 'weixin:union-wx-1')
      .executeTakeFirst();
    expect(event).toEqual({
      result: 'failure',
      failure_cause: 'scan_not_linked',
      identifier: 'weixin:union-wx-1',
    });
  });

  it('lets a person bind WeChat in the user centre, sign in by scanning, and unbind', async () => {
    const member = await companyMember(ctx, owner, 'wei.member');
    const portal = await signInToPortal(ctx.baseUrl, member.username, member.password);
    expect(portal.page.html).toContain('WeChat');
    const csrf = csrfOf(portal.page.html.slice(portal.page.html.indexOf('id="bindings"')));
    const bind = await request(portal.jar, `${ctx.baseUrl}/portal/account/bindings/bind`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, sourceId: sources.weixin }).toString(),
    });
    const atProvider = await fetch(bind.headers.get('location') as string, { redirect: 'manual' });
    const bound = await browse(portal.jar, atProvider.headers.get('location') as string);
    expect(bound.url).toContain('notice=scan_bound');
    expect(await linkOf(sources.weixin, 'union-wx-1')).toMatchObject({
      username: 'wei.member',
      external_name: '微一',
    });

    const signedIn = await scan(sources.weixin);
    await followToRedirectUri(signedIn.jar, ctx.baseUrl, signedIn.back, redirectUri);

    const unbound = await browse(portal.jar, `${ctx.baseUrl}/portal/account/bindings/unbind`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, sourceId: sources.weixin }).toString(),
    });
    expect(unbound.url).toContain('notice=scan_unbound');
    expect(await linkOf(sources.weixin, 'union-wx-1')).toBeUndefined();
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .select('action')
      .where('target_id', '=', sources.weixin)
      .where('action', 'in', ['identity_source.bind', 'identity_source.unbind'])
      .execute();
    expect(audit.map((a) => a.action).sort()).toEqual(['identity_source.bind', 'identity_source.unbind']);
  });

  it("gives the provider's refusal as a clear message when the stored secret is wrong", async () => {
    await call(
      ctx,
      '/api/v1/manage/identity-source/update',
      {
        sourceId: sources.dingtalk,
        type: 'dingtalk',
        name: 'DingTalk HQ',
        appKey: 'dingfixturekey',
        appSecret: 'wrong',
      },
      owner,
    );
    const refused = await scan(sources.dingtalk);
    const page = await browse(refused.jar, absolute(ctx.baseUrl, refused.back.headers.get('location')));
    expect(page.response.status).toBe(502);
    expect(decodeEntities(page.html)).toContain('DingTalk');
  });
});

describe('contacts sync of DingTalk and WeCom', () => {
  /** Previews, applies the preview, and answers both runs. */
  async function previewAndApply(sourceId: string) {
    const preview = await call<{ runId: string }>(
      ctx,
      '/api/v1/manage/identity-source/sync/preview',
      { sourceId },
      owner,
    );
    expect(preview.code, preview.msg).toBe(200);
    await ctx.tessera.jobs.drain();
    const previewed = await call<{ status: string; counts: Record<string, number> }>(
      ctx,
      '/api/v1/manage/identity-source/sync/run',
      { sourceId, runId: preview.data.runId },
      owner,
    );
    expect(previewed.data.status).toBe('succeeded');
    const apply = await call<{ runId: string }>(
      ctx,
      '/api/v1/manage/identity-source/sync/apply',
      { sourceId, runId: preview.data.runId },
      owner,
    );
    await ctx.tessera.jobs.drain();
    const applied = await call<{ status: string; counts: Record<string, number> }>(
      ctx,
      '/api/v1/manage/identity-source/sync/run',
      { sourceId, runId: apply.data.runId },
      owner,
    );
    return { previewed: previewed.data, applied: applied.data };
  }

  it('brings in the WeCom departments and active members, and disables a member who leaves', async () => {
    const { previewed, applied } = await previewAndApply(sources.work_weixin);
    expect(applied.status).toBe('succeeded');
    expect(applied.counts).toEqual(previewed.counts);
    expect(previewed.counts.departmentsCreated).toBe(3);
    const people = () =>
      ctx.database.db
        .selectFrom('identity_links as l')
        .innerJoin('company_members as m', (join) =>
          join.onRef('m.account_id', '=', 'l.account_id').onRef('m.company_id', '=', 'l.company_id'),
        )
        .innerJoin('accounts as a', 'a.id', 'l.account_id')
        .select(['l.external_id', 'a.status'])
        .where('l.source_id', '=', sources.work_weixin)
        .orderBy('l.external_id')
        .execute();
    // Someone who already left (status 5) is not brought in.
    expect(await people()).toEqual([
      { external_id: 'han.meimei', status: 'enabled' },
      { external_id: 'li.lei', status: 'enabled' },
    ]);
    // Nothing changed at WeCom: a second sync changes nothing.
    const again = await previewAndApply(sources.work_weixin);
    expect(again.applied.counts).toMatchObject({ created: 0, updated: 0, moved: 0, disabled: 0 });
    // han.meimei leaves the corporation: disabled, not deleted.
    const leaver = fixture.people.wecom.find((p) => p.id === 'han.meimei');
    if (leaver) leaver.status = 5;
    const left = await previewAndApply(sources.work_weixin);
    expect(left.applied.counts).toMatchObject({ disabled: 1, created: 0 });
    expect(await people()).toEqual([
      { external_id: 'han.meimei', status: 'disabled' },
      { external_id: 'li.lei', status: 'enabled' },
    ]);
  });
});
