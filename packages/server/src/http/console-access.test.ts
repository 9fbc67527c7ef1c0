import { type ConsoleGrants, grantsAllow } from '@tessera/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  ownerWithCompany,
  sessionFor,
  startTestApp,
  type TestContext,
  TINY_PNG,
  upload,
} from '../test/harness.ts';

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
    const role = await call<{ roleId: string }>(
      ctx,
      '/api/v1/manage/console-role/create',
      { name, grants },
      {
        token: owner.token,
        companyId: owner.companyId,
      },
    );
    const person = await call<{ userId: string }>(
      ctx,
      '/api/v1/manage/company/user/create',
      {
        username: `walk-${name.replace(' ', '-').toLowerCase()}`,
        role: 'delegated_admin',
        consoleRoleId: role.data.roleId,
        password: 'Sunny-Day-42',
      },
      { token: owner.token, companyId: owner.companyId },
    );
    people.push({ name, grants, token: await sessionFor(ctx, person.data.userId) });
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

describe('a custom console role', () => {
  it('declares its access on every company call of the contract', () => {
    const undeclared = ctx.tessera.boundCalls
      .filter((c) => c.tenant && c.access === undefined)
      .map((c) => c.path);
    expect(undeclared).toEqual([]);
  });

  it('is refused every call outside its groups and reaches every call inside them', async () => {
    const tenantCalls = ctx.tessera.boundCalls.filter((c) => c.tenant);
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
