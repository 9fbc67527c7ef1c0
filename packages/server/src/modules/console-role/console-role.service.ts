import { type ConsoleGrants, consoleGroups, fullConsoleGrants, type MemberRole } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { AppError, uniqueViolationAs } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { lockUser } from '../user/user.repo.ts';
import { assertMayActOn, assertMayGrant } from '../user/user-authority.ts';
import * as repo from './console-role.repo.ts';

export interface ConsoleRoleActor {
  accountId: string;
  ip: string;
  role: MemberRole;
}

const toConsoleRole = (row: repo.ConsoleRoleRow) => ({
  roleId: row.id,
  name: row.name,
  description: row.description,
  grants: row.grants,
  memberCount: row.member_count,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/** Grants in a stable order (the groups of spec §6), without empty entries. */
function normalised(grants: ConsoleGrants): ConsoleGrants {
  const groups: ConsoleGrants['groups'] = {};
  for (const group of consoleGroups) {
    const level = grants.groups[group];
    if (level) groups[group] = level;
  }
  const result = { groups, abilities: [...grants.abilities].sort() };
  if (Object.keys(groups).length === 0 && result.abilities.length === 0)
    throw new AppError('console_role.empty');
  return result;
}

const nameIndex = { console_roles_name: 'console_role.name_taken' } as const;

/**
 * Custom console roles (spec §6). What a role allows decides what its holders, delegated
 * administrators, may do: changing it is acting on the delegated-administrator level, so a
 * delegated administrator never changes roles or gives one (user-authority.ts, one rule).
 */
export function createConsoleRoleService(deps: { db: Db }) {
  const { db } = deps;

  const list = async (companyId: string) => ({
    list: (await repo.findConsoleRoles(db, companyId)).map(toConsoleRole),
  });

  async function create(
    actor: ConsoleRoleActor,
    companyId: string,
    input: { name: string; description?: string | null; grants: ConsoleGrants },
  ) {
    assertMayGrant(actor.role, 'delegated_admin');
    const grants = normalised(input.grants);
    return uniqueViolationAs(nameIndex, () =>
      db.transaction().execute(async (trx) => {
        const id = newId();
        await trx
          .insertInto('console_roles')
          .values({
            id,
            company_id: companyId,
            name: input.name,
            description: input.description ?? null,
            grants: JSON.stringify(grants),
          })
          .execute();
        await insertAuditEvent(trx, {
          companyId,
          actorAccountId: actor.accountId,
          action: 'console_role.create',
          targetType: 'console_role',
          targetId: id,
          after: { name: input.name, description: input.description ?? null, grants },
          ip: actor.ip,
        });
        return toConsoleRole((await repo.findConsoleRole(trx, companyId, id)) as repo.ConsoleRoleRow);
      }),
    );
  }

  async function update(
    actor: ConsoleRoleActor,
    companyId: string,
    input: { roleId: string; name?: string; description?: string | null; grants?: ConsoleGrants },
  ) {
    assertMayActOn(actor.role, 'delegated_admin');
    const grants = input.grants ? normalised(input.grants) : undefined;
    return uniqueViolationAs(nameIndex, () =>
      db.transaction().execute(async (trx) => {
        const before = await repo.lockConsoleRole(trx, companyId, input.roleId);
        await trx
          .updateTable('console_roles')
          .set({
            ...(input.name !== undefined ? { name: input.name } : {}),
            ...(input.description !== undefined ? { description: input.description } : {}),
            ...(grants ? { grants: JSON.stringify(grants) } : {}),
            updated_at: sql`now()`,
          })
          .where('id', '=', before.id)
          .execute();
        const after = (await repo.findConsoleRole(trx, companyId, before.id)) as repo.ConsoleRoleRow;
        const view = (row: repo.ConsoleRoleRow) => ({
          name: row.name,
          description: row.description,
          grants: row.grants,
        });
        await insertAuditEvent(trx, {
          companyId,
          actorAccountId: actor.accountId,
          action: 'console_role.update',
          targetType: 'console_role',
          targetId: before.id,
          before: view(before),
          after: view(after),
          ip: actor.ip,
        });
        return toConsoleRole(after);
      }),
    );
  }

  async function remove(actor: ConsoleRoleActor, companyId: string, roleId: string) {
    assertMayActOn(actor.role, 'delegated_admin');
    return db.transaction().execute(async (trx) => {
      const role = await repo.lockConsoleRole(trx, companyId, roleId);
      const membersReturned = await repo.returnHoldersToMembers(trx, companyId, role.id);
      await trx.deleteFrom('console_roles').where('id', '=', role.id).execute();
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'console_role.delete',
        targetType: 'console_role',
        targetId: role.id,
        before: { name: role.name, grants: role.grants, members: role.member_count },
        after: { membersReturned },
        ip: actor.ip,
      });
      return { roleId: role.id, membersReturned };
    });
  }

  /** Gives a member a console role (a delegated administrator), or takes it back (`roleId` null). */
  async function assign(actor: ConsoleRoleActor, companyId: string, userId: string, roleId: string | null) {
    return db.transaction().execute(async (trx) => {
      const person = await lockUser(trx, companyId, userId);
      if (!person) throw new AppError('user.not_found');
      if (person.role !== 'member' && person.role !== 'delegated_admin')
        throw new AppError('console_role.not_for_admins');
      assertMayActOn(actor.role, person.role);
      const role = roleId ? await repo.lockConsoleRole(trx, companyId, roleId) : undefined;
      const given: MemberRole = role ? 'delegated_admin' : 'member';
      assertMayGrant(actor.role, given);
      const before = await trx
        .selectFrom('company_members')
        .select('console_role_id')
        .where('company_id', '=', companyId)
        .where('account_id', '=', person.id)
        .executeTakeFirstOrThrow();
      await trx
        .updateTable('company_members')
        .set({ role: given, console_role_id: role?.id ?? null, updated_at: sql`now()` })
        .where('company_id', '=', companyId)
        .where('account_id', '=', person.id)
        .execute();
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'console_role.assign',
        targetType: 'user',
        targetId: person.id,
        before: { username: person.username, role: person.role, consoleRoleId: before.console_role_id },
        after: {
          username: person.username,
          role: given,
          consoleRoleId: role?.id ?? null,
          consoleRole: role?.name,
        },
        ip: actor.ip,
      });
      return {
        userId: person.id,
        role: given,
        consoleRole: role ? { roleId: role.id, name: role.name } : null,
      };
    });
  }

  /** What the signed-in person may do in the console of the company (the console builds its menu from it). */
  async function myAccess(companyId: string, accountId: string, role: MemberRole, grants: ConsoleGrants) {
    if (role !== 'delegated_admin') return { role, consoleRole: null, grants: fullConsoleGrants };
    const row = await db
      .selectFrom('company_members as m')
      .innerJoin('console_roles as r', 'r.id', 'm.console_role_id')
      .select(['r.id', 'r.name'])
      .where('m.company_id', '=', companyId)
      .where('m.account_id', '=', accountId)
      .executeTakeFirst();
    return { role, consoleRole: row ? { roleId: row.id, name: row.name } : null, grants };
  }

  return { list, create, update, remove, assign, myAccess };
}

export type ConsoleRoleService = ReturnType<typeof createConsoleRoleService>;
