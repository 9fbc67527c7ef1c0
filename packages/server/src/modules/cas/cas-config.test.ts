import { casPatternProblem, casServiceMatches, serverPhrases } from '@tessera/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import { manage } from '../../test/saml-flow.ts';

/** An application's CAS settings (issue 30): service URL patterns, their checks, and the calls. */

describe('service URL patterns', () => {
  it.each([
    ['exact', 'https://oa.example.com/cas', 'https://oa.example.com/cas', true],
    ['exact', 'https://oa.example.com/cas', 'https://oa.example.com/cas?x=1', false],
    ['prefix', 'https://oa.example.com/app', 'https://oa.example.com/app/home?x=1', true],
    ['prefix', 'https://oa.example.com/app', 'https://oa.example.com/app?x=1', true],
    ['prefix', 'https://oa.example.com/app', 'https://oa.example.com/application', false],
    ['prefix', 'https://oa.example.com', 'https://oa.example.com.evil.example/', false],
    ['prefix', 'https://oa.example.com/', 'https://oa.example.com/anything', true],
    ['regex', '^https://[a-z]+\\.example\\.com/.*$', 'https://hr.example.com/login', true],
    ['regex', '^https://[a-z]+\\.example\\.com/.*$', 'https://hr.example.com.evil.example/', false],
  ] as const)('%s %s against %s: %s', (kind, value, service, matches) => {
    expect(casPatternProblem({ kind, value })).toBeNull();
    expect(casServiceMatches({ kind, value }, service)).toBe(matches);
  });

  it.each([
    ['exact', 'oa.example.com/cas', 'url'],
    ['prefix', 'ftp://oa.example.com/', 'url'],
    ['exact', 'https://user:pw@oa.example.com/', 'url'],
    ['regex', '^https://(oa$', 'regex_syntax'],
    ['regex', 'https://oa\\.example\\.com/.*', 'regex_anchors'],
    ['regex', '^https://oa\\.example\\.com/.*', 'regex_anchors'],
    ['regex', '^https://(a+)+$', 'regex_unsafe'],
    ['regex', '^https://([a-z]*\\.)*example\\.com/$', 'regex_unsafe'],
    ['regex', '^https://(a|aa)*$', 'regex_unsafe'],
    ['regex', '^https://(\\w+)\\1$', 'regex_unsafe'],
    ['regex', '^https://(?=a).*$', 'regex_unsafe'],
    ['regex', '^.*x.*x.*$', 'regex_unsafe'],
  ] as const)('refuses %s %s (%s)', (kind, value, problem) => {
    expect(casPatternProblem({ kind, value })).toBe(problem);
  });

  it('a regular expression that passes the check matches a long hostile address quickly', () => {
    const pattern = { kind: 'regex', value: '^https://[a-z.]+/.*$' } as const;
    expect(casPatternProblem(pattern)).toBeNull();
    // Bounded work: this returns (the test would hang on catastrophic backtracking).
    expect(casServiceMatches(pattern, `https://${'a'.repeat(1990)}`)).toBe(false);
  });
});

describe('the CAS settings calls', () => {
  let ctx: TestContext;
  let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
  let appId: string;
  beforeAll(async () => {
    ctx = await startTestApp();
    owner = await ownerWithCompany(ctx, 'cas-config-owner');
    ({
      app: { appId },
    } = await manage<{ app: { appId: string } }>(ctx, owner, '/api/v1/manage/app/create', {
      name: 'OA',
      protocol: 'cas',
    }));
  });
  afterAll(async () => ctx?.close());

  it('starts with the defaults and cannot be enabled before a service pattern is set', async () => {
    const detail = await manage(ctx, owner, '/api/v1/manage/app/cas/detail', { appId });
    expect(detail).toEqual({
      serverUrl: `${ctx.baseUrl}/cas/${owner.companyId}`,
      servicePatterns: [],
      attributes: ['username', 'name', 'email'],
      ticketTtl: 10,
      allowProxy: false,
      sloUrl: null,
      sloEnabled: true,
    });
    const opened = await call(ctx, '/api/v1/manage/app/status', { appId, status: 'opened' }, owner);
    expect(opened.code).toBe(409);
  });

  it.each([
    [{ servicePatterns: [{ kind: 'regex', value: '^https://(a+)+$' }] }, 'cas.pattern_regex_unsafe'],
    [{ servicePatterns: [{ kind: 'prefix', value: 'not a url' }] }, 'cas.pattern_url'],
    [{ servicePatterns: [] }, 'cas.pattern_required'],
    [{ ticketTtl: 0 }, 'cas.ticket_ttl_range'],
    [{ ticketTtl: 301 }, 'cas.ticket_ttl_range'],
    [{ sloUrl: 'https://elsewhere.example/logout' }, 'cas.slo_url_invalid'],
  ])('refuses %j with a localised error and changes nothing', async (change, reason) => {
    const before = await manage(ctx, owner, '/api/v1/manage/app/cas/detail', { appId });
    const answer = await call(
      ctx,
      '/api/v1/manage/app/cas/update',
      { appId, ...change },
      { ...owner, lang: 'zh' },
    );
    expect(answer.code).toBe(400);
    expect(JSON.stringify(answer)).toContain(
      serverPhrases.zh.errors[reason as keyof typeof serverPhrases.zh.errors],
    );
    expect(await manage(ctx, owner, '/api/v1/manage/app/cas/detail', { appId })).toEqual(before);
  });

  it('saves the settings with an audit event, and the app can then be enabled', async () => {
    const saved = await manage(ctx, owner, '/api/v1/manage/app/cas/update', {
      appId,
      servicePatterns: [{ kind: 'prefix', value: 'https://oa.example.com/' }],
      attributes: ['username', 'departments', 'permissions'],
      ticketTtl: 30,
      allowProxy: true,
      sloUrl: 'https://oa.example.com/cas/logout',
    });
    expect(saved).toMatchObject({
      ticketTtl: 30,
      allowProxy: true,
      sloUrl: 'https://oa.example.com/cas/logout',
    });
    const events = await ctx.database.db
      .selectFrom('audit_events')
      .select('action')
      .where('target_id', '=', appId)
      .execute();
    expect(events.map((e) => e.action)).toContain('app.cas.update');
    expect((await call(ctx, '/api/v1/manage/app/status', { appId, status: 'opened' }, owner)).code).toBe(200);
  });

  it('a catalogue CAS app gets its address as a prefix pattern; another company sees no such app', async () => {
    const created = await manage<{ app: { appId: string } }>(ctx, owner, '/api/v1/manage/app/create', {
      name: 'Campus',
      protocol: 'cas',
      type: 'third_party',
      template: 'cas_self_built',
      baseUrl: 'https://campus.example.edu/portal',
    });
    const detail = await manage(ctx, owner, '/api/v1/manage/app/cas/detail', { appId: created.app.appId });
    expect(detail.servicePatterns).toEqual([{ kind: 'prefix', value: 'https://campus.example.edu/portal' }]);
    const stranger = await ownerWithCompany(ctx, 'cas-config-stranger');
    const answer = await call(ctx, '/api/v1/manage/app/cas/detail', { appId: created.app.appId }, stranger);
    expect(answer.code).toBe(404);
  });
});
