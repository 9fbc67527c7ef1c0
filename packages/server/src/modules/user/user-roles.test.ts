import { generateKeyPairSync } from 'node:crypto';
import type { MemberRole } from '@tessera/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lib/ids.ts';
import {
  call,
  createAccount,
  grantLicense,
  ownerWithCompany,
  sessionFor,
  startTestApp,
  type TestContext,
  TINY_PNG,
  upload,
} from '../../test/harness.ts';

/**
 * Issue 12, roles: every call that changes a person, made by every administrative role against
 * a person of every role. Nobody acts on a role above their own (nor gives one), an external
 * administrator does not manage other external administrators (spec §6), and a member reaches
 * no call at all. A refusal changes nothing.
 *
 * Issue 15: a delegated administrator (a member with a custom console role) stands between
 * member and external administrator: within their console role's groups they act on members
 * only, never on another delegated administrator or anyone above. Here their console role
 * holds every group these calls need, so that only the role rule answers.
 */

let ctx: TestContext;
let company: { companyId: string; token: string; ownerId: string; rootDepartment: string };

const roles: MemberRole[] = ['owner', 'admin', 'external_admin', 'delegated_admin', 'member'];
const rank: Record<MemberRole, number> = {
  member: 0,
  delegated_admin: 1,
  external_admin: 2,
  admin: 3,
  owner: 4,
};
const peersRefused = new Set<MemberRole>(['external_admin', 'delegated_admin']);
const mayActOn = (actor: MemberRole, target: MemberRole) =>
  !(actor === target && peersRefused.has(actor)) && rank[target] <= rank[actor];
/** The console role of the delegated administrators here: everything these calls need. */
let consoleRoleId: string;

/** A person of the company with this role, whose account the company fully manages. */
async function person(role: MemberRole, label: string) {
  const account = await createAccount(ctx, {
    username: `${label}-${newId().slice(0, 8)}`,
    email: `${newId().slice(0, 8)}@example.com`,
  });
  await ctx.database.db
    .updateTable('accounts')
    .set({ home_company_id: company.companyId })
    .where('id', '=', account.id)
    .execute();
  await ctx.database.db
    .insertInto('company_members')
    .values({
      company_id: company.companyId,
      account_id: account.id,
      role,
      console_role_id: role === 'delegated_admin' ? consoleRoleId : null,
    })
    .execute();
  return account;
}

/** One change of a person: `userId` is the target. */
type Change = (token: string, userId: string) => Promise<{ code: number; data: unknown }>;

const as = (token: string, path: string, body: unknown) =>
  call(ctx, path, body, { token, companyId: company.companyId });

const changes: Record<string, Change> = {
  'user/update (profile)': (t, userId) => as(t, '/api/v1/manage/user/update', { userId, name: 'Renamed' }),
  'user/update (departments)': (t, userId) =>
    as(t, '/api/v1/manage/user/update', { userId, departmentIds: [company.rootDepartment] }),
  'user/status': (t, userId) => as(t, '/api/v1/manage/user/status', { userId, status: 'disabled' }),
  'user/password/reset': (t, userId) =>
    as(t, '/api/v1/manage/user/password/reset', {
      userId,
      password: 'Brand-New-Pass-77',
      confirmPassword: 'Brand-New-Pass-77',
      mustChangePassword: true,
    }),
  'user/photo': (t, userId) =>
    upload(
      ctx,
      '/api/v1/manage/user/photo',
      { bytes: TINY_PNG, filename: 'me.png', type: 'image/png' },
      { token: t, companyId: company.companyId, fields: { userId } },
    ),
  'user/send-login-url': (t, userId) => as(t, '/api/v1/manage/user/send-login-url', { userId }),
  'user/email': (t, userId) => as(t, '/api/v1/manage/user/email', { userId }),
  'mfa/admin/user/del': (t, userId) => as(t, '/api/v1/manage/mfa/admin/user/del', { userId }),
  'mfa/admin/user/bind': (t, userId) =>
    as(t, '/api/v1/manage/mfa/admin/user/bind', {
      userId,
      type: 'ukey_pubkey',
      publicKey: generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({
        type: 'spki',
        format: 'pem',
      }),
    }),
  'department/member/add': (t, userId) =>
    as(t, '/api/v1/manage/department/member/add', {
      departmentId: company.rootDepartment,
      userIds: [userId],
    }),
  'department/member/remove': (t, userId) =>
    as(t, '/api/v1/manage/department/member/remove', {
      departmentId: company.rootDepartment,
      userIds: [userId],
    }),
  'user/del': (t, userId) => as(t, '/api/v1/manage/user/del', { userId }),
  'company/user/del': (t, userId) => as(t, '/api/v1/manage/company/user/del', { userId }),
};

const roleRefusals = [
  'user.role_above_own',
  'member.external_admin_forbidden',
  'member.delegated_admin_forbidden',
];
const reasonOf = (data: unknown) => (data as { reason?: string } | null)?.reason;

/** What the stored person looks like (to check that a refusal changed nothing). */
const snapshot = async (userId: string) => ({
  account: await ctx.database.db
    .selectFrom('accounts')
    .selectAll()
    .where('id', '=', userId)
    .executeTakeFirst(),
  record: await ctx.database.db
    .selectFrom('company_members')
    .selectAll()
    .where('account_id', '=', userId)
    .where('company_id', '=', company.companyId)
    .executeTakeFirst(),
  departments: await ctx.database.db
    .selectFrom('department_members')
    .select('department_id')
    .where('account_id', '=', userId)
    .execute(),
});

beforeAll(async () => {
  ctx = await startTestApp();
  await grantLicense(ctx, { user: 10_000 });
  const owner = await ownerWithCompany(ctx, 'matrix-owner');
  const tree = await call<{ tree: { departmentId: string } }>(
    ctx,
    '/api/v1/manage/department/tree',
    {},
    { token: owner.token, companyId: owner.companyId },
  );
  company = {
    companyId: owner.companyId,
    token: owner.token,
    ownerId: owner.account.id,
    rootDepartment: tree.data.tree.departmentId,
  };
  const role = await call<{ roleId: string }>(
    ctx,
    '/api/v1/manage/console-role/create',
    {
      name: 'People desk',
      grants: { groups: { user: 'manage', department: 'manage', companySettings: 'manage' }, abilities: [] },
    },
    { token: owner.token, companyId: owner.companyId },
  );
  consoleRoleId = role.data.roleId;
});
afterAll(() => ctx.close());

describe('every role against every role', () => {
  for (const actorRole of roles) {
    for (const targetRole of roles) {
      it(`${actorRole} changing ${targetRole}`, async () => {
        const actor =
          actorRole === 'owner' ? { id: company.ownerId } : await person(actorRole, `actor-${actorRole}`);
        const token = actorRole === 'owner' ? company.token : await sessionFor(ctx, actor.id);
        for (const [name, change] of Object.entries(changes)) {
          // The owner is one person: as a target it is the company's owner (the actor itself when the owner acts).
          const target =
            targetRole === 'owner' ? { id: company.ownerId } : await person(targetRole, 'target');
          const before = await snapshot(target.id);
          const answer = await change(token, target.id);
          const reason = reasonOf(answer.data);
          const label = `${actorRole} → ${targetRole}: ${name} answered ${answer.code} ${reason}`;
          if (actorRole === 'member') {
            expect(reason, label).toBe('company.not_found');
          } else if (!mayActOn(actorRole, targetRole)) {
            // The owner is protected before any role is compared.
            const refusals =
              targetRole === 'owner'
                ? [...roleRefusals, 'user.owner_protected', 'member.owner_protected']
                : roleRefusals;
            expect(refusals, label).toContain(reason);
            expect(answer.code, label).toBeGreaterThanOrEqual(403);
          } else {
            // Allowed by the role rules; other rules may still say no (the owner is protected,
            // nobody disables themselves, mail is not set up here).
            expect(roleRefusals, label).not.toContain(reason);
          }
          if (answer.code !== 200) expect(await snapshot(target.id), label).toEqual(before);
        }
      });
    }
  }

  it('gives no role above the giver', async () => {
    for (const actorRole of ['admin', 'external_admin', 'delegated_admin'] as const) {
      const actor = await person(actorRole, `giver-${actorRole}`);
      const token = await sessionFor(ctx, actor.id);
      for (const role of ['admin', 'external_admin', 'delegated_admin', 'member'] as const) {
        const username = `given-${role}-${newId().slice(0, 6)}`;
        const answer = await as(token, '/api/v1/manage/company/user/create', {
          username,
          role,
          ...(role === 'delegated_admin' ? { consoleRoleId } : {}),
          password: 'Sunny-Day-42',
        });
        const label = `${actorRole} giving ${role}: ${answer.code} ${reasonOf(answer.data)}`;
        if (mayActOn(actorRole, role)) expect(answer.code, label).toBe(200);
        else {
          expect(roleRefusals, label).toContain(reasonOf(answer.data));
          const stored = await ctx.database.db
            .selectFrom('accounts')
            .select('id')
            .where('username', '=', username)
            .executeTakeFirst();
          expect(stored, label).toBeUndefined();
        }
      }
    }
  });
});
