import { type ConsoleGrants, grantsAllow } from '@tessera/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegatedAdmin } from '../test/delegated-admin.ts';
import { call, ownerWithCompany, startTestApp, type TestContext, TINY_PNG, upload } from '../test/harness.ts';

/**
 * Issue 15, spec §6: a person with a custom console role is refused, by the server, every call
 * outside their role's permission groups, and reaches every call inside them. Walks every bound
 * call of a company with two roles: a help desk (users read, credential resets) and a reader of
 * every group. A refused call changes nothing (the refusal comes before the request is read).
 */
let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
const people: { grants: ConsoleGrants; token: string; name: string }[] = [];

beforeAll(async () => {
  ctx = await startTestApp();
  owner = await ownerWithCompany(ctx, 'walk-owner');
  const roles: [string, ConsoleGrants][] = [
    ['Help desk', { groups: { user: 'read' }, abilities: ['resetCredentials'] }],
    [
      'Reader',
      {
        groups: {
          app: 'read',
          identitySource: 'read',
          user: 'read',
          department: 'read',
          authority: 'read',
          security: 'read',
          log: 'read',
          branding: 'read',
          licence: 'read',
          companySettings: 'read',
          about: 'read',
        },
        abilities: [],
      },
    ],
  ];
  for (const [name, grants] of roles) {
    const username = `walk-${name.replace(' ', '-').toLowerCase()}`;
    const person = await delegatedAdmin(ctx, owner, username, grants);
    people.push({ name, grants, token: person.token });
  }
});
afterAll(() => ctx.close());

const auditCount = async () =>
  Number(
    (
      await ctx.database.db
        .selectFrom('audit_events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('company_id', '=', owner.companyId)
        .executeTakeFirstOrThrow()
    ).n,
  );

/** One call with an empty body (a file for uploads); a download that answers a file counts as code 200. */
async function send(def: { path: string; upload?: unknown; download?: unknown }, token: string) {
  const headers = { token, companyId: owner.companyId };
  if (def.upload)
    return upload(ctx, def.path, { bytes: TINY_PNG, filename: 'x.png', type: 'image/png' }, headers);
  if (!def.download) return call(ctx, def.path, {}, headers);
  const response = await ctx.tessera.app.inject({
    method: 'POST',
    url: def.path,
    headers: { 'content-type': 'application/json', access_token: token, company_id: owner.companyId },
    payload: '{}',
  });
  return response.headers['content-type']?.toString().startsWith('application/json')
    ? (response.json() as { code: number; data: unknown })
    : { code: response.statusCode, data: null };
}

/** The calls the walk makes: every company call, and the others that declare what a role needs. */
const walkedCalls = () =>
  ctx.tessera.boundCalls.filter((c) => c.tenant || (c.auth === 'session' && c.access !== undefined));

describe('a custom console role', () => {
  it('declares its access on every company call of the contract', () => {
    const undeclared = ctx.tessera.boundCalls
      .filter((c) => c.tenant && c.access === undefined)
      .map((c) => c.path);
    expect(undeclared).toEqual([]);
  });

  it('is refused every call outside its groups and reaches every call inside them', async () => {
    const tenantCalls = walkedCalls();
    expect(tenantCalls.length).toBeGreaterThan(80);
    for (const person of people) {
      const before = await auditCount();
      let refused = 0;
      for (const def of tenantCalls) {
        const answer = await send(def, person.token);
        const reason = (answer.data as { reason?: string } | null)?.reason;
        const label = `${person.name}: ${def.path} answered ${answer.code} ${reason}`;
        if (grantsAllow(person.grants, def.access)) {
          expect(reason, label).not.toBe('auth.group_forbidden');
        } else {
          refused++;
          expect({ code: answer.code, reason }, label).toEqual({ code: 403, reason: 'auth.group_forbidden' });
        }
      }
      expect(refused, person.name).toBeGreaterThan(10);
      // Nothing a refused call could change was changed (the allowed calls above were sent empty).
      expect(await auditCount(), person.name).toBe(before);
    }
  });
});

/**
 * Issue 28: the dashboard's lists of people's sign-ins and failures are log data (spec §6 log
 * group), refused to a role that may not read the sign-in log; its counts, and the platform's
 * version, are for everyone who reaches the console.
 */
const dashboardCalls: Record<string, 'console' | 'log'> = {
  '/api/v1/manage/index/user-data-overview': 'console',
  '/api/v1/manage/index/user-login-trend': 'console',
  '/api/v1/manage/index/user-mfa-info': 'console',
  '/api/v1/manage/index/app-login-count': 'console',
  '/api/v1/manage/index/app-login-trend': 'console',
  '/api/v1/manage/index/app-login-count-ratio': 'console',
  '/api/v1/manage/index/fail-trend': 'console',
  '/api/v1/manage/index/login-hotspot': 'console',
  '/api/v1/manage/index/new-fail-list': 'log',
  '/api/v1/manage/index/new-login-list': 'log',
  '/api/v1/manage/system/info': 'console',
};

describe('the dashboard calls (issue 28)', () => {
  it('are all walked above', () => {
    const walked = walkedCalls().map((c) => c.path);
    const dashboard = ctx.tessera.boundCalls
      .map((c) => c.path)
      .filter((path) => path.startsWith('/api/v1/manage/index/') || path === '/api/v1/manage/system/info');
    expect(dashboard.sort()).toEqual(Object.keys(dashboardCalls).sort());
    expect(dashboard.filter((path) => !walked.includes(path))).toEqual([]);
  });

  it('give the lists of sign-ins and failures only to a role that reads the log, the counts to every role', async () => {
    const expected = (grants: ConsoleGrants, needs: 'console' | 'log') =>
      needs === 'console' || grants.groups.log !== undefined
        ? { code: 200 }
        : { code: 403, reason: 'auth.group_forbidden' };
    for (const person of people) {
      for (const [path, needs] of Object.entries(dashboardCalls)) {
        const answer = await send({ path }, person.token);
        const reason = (answer.data as { reason?: string } | null)?.reason;
        expect({ path, who: person.name, code: answer.code, ...(reason ? { reason } : {}) }).toEqual({
          path,
          who: person.name,
          ...expected(person.grants, needs),
        });
      }
    }
  });
});
