import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ownerWithCompany, sessionFor, startTestApp, type TestContext } from '../../test/harness.ts';

/** The company settings' Administrators card (issue 35): the administrators alone, and role changes. */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(() => ctx.close());

type Role = 'owner' | 'admin' | 'external_admin' | 'delegated_admin' | 'member';
type Member = { userId: string; username: string; role: Role; consoleRole: { name: string } | null };

/** Spec §6 as the issue states it: nobody acts above their own role; below administrator, nobody manages a peer. */
const rank: Record<Role, number> = { member: 0, delegated_admin: 1, external_admin: 2, admin: 3, owner: 4 };
function refusal(actor: Role, other: Role): string | undefined {
  if (actor === other && actor === 'external_admin') return 'member.external_admin_forbidden';
  if (actor === other && actor === 'delegated_admin') return 'member.delegated_admin_forbidden';
  if (rank[other] > rank[actor]) return 'user.role_above_own';
  return undefined;
}

async function company(username: string) {
  const owner = await ownerWithCompany(ctx, username);
  const as = <T>(token: string, path: string, body: unknown) =>
    call<T>(ctx, `/api/v1/manage/${path}`, body, { token, companyId: owner.companyId });
  const role = await as<{ roleId: string }>(owner.token, 'console-role/create', {
    name: 'Settings keeper',
    grants: { groups: { companySettings: 'manage' } },
  });
  const add = async (name: string, given: Role) => {
    const added = await as<Member>(owner.token, 'company/user/create', {
      username: name,
      role: given,
      consoleRoleId: given === 'delegated_admin' ? role.data.roleId : undefined,
      password: 'Sunny-Day-42',
    });
    expect(added.code).toBe(200);
    return added.data;
  };
  return { ...owner, as, add, consoleRoleId: role.data.roleId };
}

describe('company/user with adminsOnly', () => {
  it('lists the owner, administrators, external administrators and console-role holders, not members', async () => {
    const c = await company('adm-list');
    await c.add('adm-list-admin', 'admin');
    await c.add('adm-list-ext', 'external_admin');
    await c.add('adm-list-desk', 'delegated_admin');
    await c.add('adm-list-plain', 'member');
    await c.add('adm-list-plain2', 'member');
    const admins = await c.as<{ list: Member[]; total: number }>(c.token, 'company/user', {
      page: 1,
      pageSize: 10,
      adminsOnly: true,
    });
    expect(admins.data.total).toBe(4);
    expect(admins.data.list.map((m) => [m.username, m.role, m.consoleRole?.name ?? null])).toEqual([
      ['adm-list', 'owner', null],
      ['adm-list-admin', 'admin', null],
      ['adm-list-ext', 'external_admin', null],
      ['adm-list-desk', 'delegated_admin', 'Settings keeper'],
    ]);
    const searched = await c.as<{ list: Member[]; total: number }>(c.token, 'company/user', {
      page: 1,
      pageSize: 10,
      keyword: 'plain',
      adminsOnly: true,
    });
    expect(searched.data).toEqual({ list: [], total: 0 });
    // Without the field the call answers as before: everyone.
    const everyone = await c.as<{ total: number }>(c.token, 'company/user', { page: 1, pageSize: 10 });
    expect(everyone.data.total).toBe(6);
  });
});

describe('company/user/role', () => {
  it('makes a member an administrator, external administrator or console-role holder, and back, with audit', async () => {
    const c = await company('adm-give');
    const person = await c.add('adm-give-person', 'member');
    const set = (role: string, consoleRoleId?: string) =>
      c.as<Member>(c.token, 'company/user/role', { userId: person.userId, role, consoleRoleId });
    expect((await set('admin')).data).toMatchObject({ role: 'admin', consoleRole: null });
    expect((await set('external_admin')).data).toMatchObject({ role: 'external_admin' });
    expect((await set('delegated_admin', c.consoleRoleId)).data).toMatchObject({
      role: 'delegated_admin',
      consoleRole: { roleId: c.consoleRoleId, name: 'Settings keeper' },
    });
    expect((await set('member')).data).toMatchObject({ role: 'member', consoleRole: null });
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .select('action')
      .where('company_id', '=', c.companyId)
      .where('action', '=', 'company.member.role')
      .execute();
    expect(audit).toHaveLength(4);
  });

  it('refuses the owner, oneself, a missing or foreign console role and a person of another company, changing nothing', async () => {
    const c = await company('adm-refuse');
    const other = await company('adm-refuse-other');
    const stranger = await other.add('adm-refuse-stranger', 'member');
    const admin = await c.add('adm-refuse-admin', 'admin');
    const person = await c.add('adm-refuse-person', 'member');
    const adminToken = await sessionFor(ctx, admin.userId);
    const role = (token: string, body: unknown) => c.as(token, 'company/user/role', body);
    expect(await role(adminToken, { userId: c.account.id, role: 'member' })).toMatchObject({
      code: 409,
      data: { reason: 'member.owner_protected' },
    });
    expect(await role(adminToken, { userId: admin.userId, role: 'member' })).toMatchObject({
      code: 409,
      msg: 'You cannot change your own role',
    });
    const zh = await call(
      ctx,
      '/api/v1/manage/company/user/role',
      { userId: person.userId, role: 'delegated_admin' },
      { token: c.token, companyId: c.companyId, lang: 'zh' },
    );
    expect(zh).toMatchObject({ code: 400, data: { reason: 'console_role.required' } });
    expect(
      await role(c.token, {
        userId: person.userId,
        role: 'delegated_admin',
        consoleRoleId: other.consoleRoleId,
      }),
    ).toMatchObject({ data: { reason: 'console_role.not_found' } });
    expect(await role(c.token, { userId: stranger.userId, role: 'admin' })).toMatchObject({
      code: 404,
      data: { reason: 'member.not_found' },
    });
    const list = await c.as<{ list: Member[] }>(c.token, 'company/user', { page: 1, pageSize: 10 });
    expect(list.data.list.find((m) => m.userId === person.userId)?.role).toBe('member');
  });

  it('follows spec §6 for every role against every role and every role given', async () => {
    const c = await company('adm-matrix');
    const actors: Record<Exclude<Role, 'member'>, string> = {
      owner: c.token,
      admin: await sessionFor(ctx, (await c.add('adm-matrix-a', 'admin')).userId),
      external_admin: await sessionFor(ctx, (await c.add('adm-matrix-e', 'external_admin')).userId),
      delegated_admin: await sessionFor(ctx, (await c.add('adm-matrix-d', 'delegated_admin')).userId),
    };
    const targets: Exclude<Role, 'owner'>[] = ['admin', 'external_admin', 'delegated_admin', 'member'];
    const people = Object.fromEntries(
      await Promise.all(targets.map(async (t) => [t, (await c.add(`adm-matrix-t-${t}`, t)).userId] as const)),
    ) as Record<(typeof targets)[number], string>;
    const body = (userId: string, role: Role) => ({
      userId,
      role,
      consoleRoleId: role === 'delegated_admin' ? c.consoleRoleId : undefined,
    });
    for (const [actor, token] of Object.entries(actors) as [Role, string][]) {
      for (const target of targets) {
        for (const given of targets) {
          const expected = refusal(actor, target) ?? refusal(actor, given);
          const answer = await c.as<Member & { reason?: string }>(
            token,
            'company/user/role',
            body(people[target], given),
          );
          const seen = `${actor} on ${target} -> ${given}: ${answer.code} ${answer.data?.reason ?? answer.data?.role}`;
          if (expected) expect(seen).toBe(`${actor} on ${target} -> ${given}: 403 ${expected}`);
          else expect(seen).toBe(`${actor} on ${target} -> ${given}: 200 ${given}`);
          // Put the target back as it was (the owner may).
          if (!expected)
            expect((await c.as(c.token, 'company/user/role', body(people[target], target))).code).toBe(200);
        }
      }
      // Nobody changes the owner.
      expect((await c.as(token, 'company/user/role', body(c.account.id, 'member'))).code).toBe(409);
    }
  });
});
