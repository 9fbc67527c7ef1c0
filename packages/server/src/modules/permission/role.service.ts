import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { AppError, uniqueViolationAs } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { effectiveStatus, searchText } from '../user/user.repo.ts';
import type { PermissionCache } from './policy-cache.ts';
import { likePattern, type PermissionActor } from './resource.service.ts';

const roleColumns = [
  'r.id',
  'r.name',
  'r.description',
  'r.created_at',
  'r.updated_at',
  sql<number>`(select count(*) from permission_role_members rm where rm.role_id = r.id)::int`.as(
    'member_count',
  ),
  sql<number>`(select count(*) from permission_authorizations pa where pa.subject_role_id = r.id)::int`.as(
    'authorization_count',
  ),
] as const;

type RoleRow = {
  id: string;
  name: string;
  description: string;
  member_count: number;
  authorization_count: number;
  created_at: Date;
  updated_at: Date;
};

const toRole = (row: RoleRow) => ({
  roleId: row.id,
  name: row.name,
  description: row.description,
  memberCount: row.member_count,
  authorizationCount: row.authorization_count,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

const rolesOf = (db: Db, companyId: string) =>
  db.selectFrom('permission_roles as r').where('r.company_id', '=', companyId);

async function findRole(db: Db, companyId: string, roleId: string) {
  const row = await rolesOf(db, companyId).select(roleColumns).where('r.id', '=', roleId).executeTakeFirst();
  if (!row) throw new AppError('role.not_found');
  return row as RoleRow;
}

/** The role of the company, locked for the rest of the transaction; another company's is not found. */
async function lockRole(trx: Db, companyId: string, roleId: string) {
  const row = await trx
    .selectFrom('permission_roles')
    .select('id')
    .where('company_id', '=', companyId)
    .where('id', '=', roleId)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw new AppError('role.not_found');
  return findRole(trx, companyId, row.id);
}

/** The given people, all of them people of the company (or the call is refused). */
export async function assertPeopleOfCompany(db: Db, companyId: string, userIds: readonly string[]) {
  const wanted = [...new Set(userIds)];
  const found = await db
    .selectFrom('company_members')
    .select('account_id')
    .where('company_id', '=', companyId)
    .where('account_id', 'in', wanted)
    .execute();
  if (found.length !== wanted.length) throw new AppError('role.member_not_in_company');
  return wanted;
}

const nameIndex = { permission_roles_name: 'role.name_taken' } as const;

/** The company's roles and their people (spec §3 Role). */
export function createRoleService(deps: { db: Db; cache: PermissionCache }) {
  const { db, cache } = deps;

  async function list(companyId: string, query: { keyword?: string; page: number; pageSize: number }) {
    let base = rolesOf(db, companyId);
    if (query.keyword) {
      const pattern = likePattern(query.keyword);
      base = base.where((eb) =>
        eb.or([
          eb(sql<string>`lower(r.name)`, 'like', pattern),
          eb(sql<string>`lower(r.description)`, 'like', pattern),
        ]),
      );
    }
    const [rows, count] = await Promise.all([
      base
        .select(roleColumns)
        .orderBy(sql`lower(r.name)`)
        .orderBy('r.id')
        .limit(query.pageSize)
        .offset((query.page - 1) * query.pageSize)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { list: (rows as RoleRow[]).map(toRole), total: Number(count.n) };
  }

  const detail = async (companyId: string, roleId: string) => toRole(await findRole(db, companyId, roleId));

  async function create(
    actor: PermissionActor,
    companyId: string,
    input: { name: string; description: string },
  ) {
    const created = await uniqueViolationAs(nameIndex, () =>
      db.transaction().execute(async (trx) => {
        const id = newId();
        await trx
          .insertInto('permission_roles')
          .values({ id, company_id: companyId, name: input.name, description: input.description })
          .execute();
        await insertAuditEvent(trx, {
          companyId,
          actorAccountId: actor.accountId,
          action: 'permission.role.create',
          targetType: 'permission_role',
          targetId: id,
          after: input,
          ip: actor.ip,
        });
        return toRole(await findRole(trx, companyId, id));
      }),
    );
    cache.companyChanged(companyId);
    return created;
  }

  async function update(
    actor: PermissionActor,
    companyId: string,
    input: { roleId: string; name?: string; description?: string },
  ) {
    const updated = await uniqueViolationAs(nameIndex, () =>
      db.transaction().execute(async (trx) => {
        const before = await lockRole(trx, companyId, input.roleId);
        await trx
          .updateTable('permission_roles')
          .set({
            ...(input.name !== undefined ? { name: input.name } : {}),
            ...(input.description !== undefined ? { description: input.description } : {}),
            updated_at: sql`now()`,
          })
          .where('id', '=', before.id)
          .execute();
        const after = await findRole(trx, companyId, before.id);
        await insertAuditEvent(trx, {
          companyId,
          actorAccountId: actor.accountId,
          action: 'permission.role.update',
          targetType: 'permission_role',
          targetId: before.id,
          before: { name: before.name, description: before.description },
          after: { name: after.name, description: after.description },
          ip: actor.ip,
        });
        return toRole(after);
      }),
    );
    cache.companyChanged(companyId);
    return updated;
  }

  async function remove(actor: PermissionActor, companyId: string, roleId: string) {
    const removed = await db.transaction().execute(async (trx) => {
      const role = await lockRole(trx, companyId, roleId);
      const members = await trx
        .selectFrom('permission_role_members')
        .select('account_id')
        .where('role_id', '=', role.id)
        .execute();
      // Its memberships and the authorizations that name it go with it (foreign keys).
      await trx.deleteFrom('permission_roles').where('id', '=', role.id).execute();
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'permission.role.delete',
        targetType: 'permission_role',
        targetId: role.id,
        before: { name: role.name, description: role.description, members: members.map((m) => m.account_id) },
        after: { authorizationsRemoved: role.authorization_count },
        ip: actor.ip,
      });
      return { roleId: role.id, authorizationsRemoved: role.authorization_count, members };
    });
    cache.companyChanged(companyId);
    for (const member of removed.members) cache.personChanged(companyId, member.account_id);
    return { roleId: removed.roleId, authorizationsRemoved: removed.authorizationsRemoved };
  }

  async function members(
    companyId: string,
    query: { roleId: string; keyword?: string; page: number; pageSize: number },
  ) {
    await findRole(db, companyId, query.roleId);
    let base = db
      .selectFrom('permission_role_members as rm')
      .innerJoin('company_members as m', (join) =>
        join.onRef('m.company_id', '=', 'rm.company_id').onRef('m.account_id', '=', 'rm.account_id'),
      )
      .innerJoin('accounts as a', 'a.id', 'rm.account_id')
      .where('rm.role_id', '=', query.roleId)
      .where('rm.company_id', '=', companyId);
    if (query.keyword) base = base.where(sql<boolean>`${searchText} like ${likePattern(query.keyword)}`);
    const [rows, count] = await Promise.all([
      base
        .select([
          'a.id',
          'a.username',
          'a.display_name',
          'a.email',
          'rm.created_at',
          effectiveStatus.as('status'),
        ])
        .orderBy(sql`lower(a.username)`)
        .limit(query.pageSize)
        .offset((query.page - 1) * query.pageSize)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return {
      list: rows.map((row) => ({
        userId: row.id,
        username: row.username,
        name: row.display_name,
        email: row.email,
        status: row.status,
        addedAt: row.created_at.toISOString(),
      })),
      total: Number(count.n),
    };
  }

  async function changeMembers(
    actor: PermissionActor,
    companyId: string,
    input: { roleId: string; userIds: string[] },
    change: 'add' | 'remove',
  ) {
    const changed = await db.transaction().execute(async (trx) => {
      const role = await lockRole(trx, companyId, input.roleId);
      const userIds = await assertPeopleOfCompany(trx, companyId, input.userIds);
      const rows =
        change === 'add'
          ? await trx
              .insertInto('permission_role_members')
              .values(
                userIds.map((accountId) => ({
                  role_id: role.id,
                  company_id: companyId,
                  account_id: accountId,
                })),
              )
              .onConflict((oc) => oc.columns(['role_id', 'account_id']).doNothing())
              .returning('account_id')
              .execute()
          : await trx
              .deleteFrom('permission_role_members')
              .where('role_id', '=', role.id)
              .where('account_id', 'in', userIds)
              .returning('account_id')
              .execute();
      const accounts = rows.map((row) => row.account_id);
      if (accounts.length)
        await insertAuditEvent(trx, {
          companyId,
          actorAccountId: actor.accountId,
          action: change === 'add' ? 'permission.role.member.add' : 'permission.role.member.remove',
          targetType: 'permission_role',
          targetId: role.id,
          after: { role: role.name, userIds: accounts },
          ip: actor.ip,
        });
      return accounts;
    });
    for (const accountId of changed) cache.personChanged(companyId, accountId);
    return changed.length;
  }

  return {
    list,
    detail,
    create,
    update,
    remove,
    members,
    addMembers: async (
      actor: PermissionActor,
      companyId: string,
      input: { roleId: string; userIds: string[] },
    ) => ({
      added: await changeMembers(actor, companyId, input, 'add'),
    }),
    removeMembers: async (
      actor: PermissionActor,
      companyId: string,
      input: { roleId: string; userIds: string[] },
    ) => ({ removed: await changeMembers(actor, companyId, input, 'remove') }),
  };
}

export type RoleService = ReturnType<typeof createRoleService>;
