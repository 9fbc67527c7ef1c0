import { type department as contract, departmentLimits, type MemberRole } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { AppError, uniqueViolationAs } from '../../lib/errors.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { assertMayActOn } from '../user/user-authority.ts';
import * as repo from './department.repo.ts';

type DepartmentNode = contract.DepartmentNode;

export interface Actor {
  accountId: string;
  ip: string;
}

/**
 * The department tree of a company (spec §3 Department: name, id, manager, superior department).
 *
 * - One root per company, named after the company: created with the company, or on first use for
 *   companies created before departments existed. It cannot be renamed, moved or deleted (its
 *   manager may change). The tree and answers show the company's current name for it, so a
 *   renamed company does not leave a stale root name behind.
 * - Depth counts levels from the root (depth 1) and is at most `departmentLimits.maxDepth`.
 * - Structural changes of one company are serialised by a transaction-scoped advisory lock, so
 *   two parallel moves cannot build a cycle and parallel creates of one name meet the pre-check;
 *   the sibling-name unique index stays as the backstop (`department.name_taken`, never a 500).
 * - Deleting a department is refused while it has sub departments. Its members simply lose that
 *   membership (department_members cascade); the people stay users of the company. The audit
 *   event keeps the ids of the members it had.
 */
export function createDepartmentService(deps: { db: Db }) {
  const { db } = deps;

  const lockCompanyTree = (trx: Db, companyId: string) =>
    sql`select pg_advisory_xact_lock(hashtextextended(${`tessera.departments:${companyId}`}, 0))`.execute(
      trx,
    );

  const companyName = async (trx: Db, companyId: string) =>
    (await trx.selectFrom('companies').select('name').where('id', '=', companyId).executeTakeFirst())?.name;

  async function answer(trx: Db, companyId: string, row: repo.DepartmentRow) {
    return {
      departmentId: row.id,
      name: row.parent_id === null ? ((await companyName(trx, companyId)) ?? row.name) : row.name,
      parentId: row.parent_id,
      managerId: row.manager_account_id,
    };
  }

  async function assertManager(trx: Db, companyId: string, managerId: string | null | undefined) {
    if (!managerId) return;
    const found = await repo.findMemberIds(trx, companyId, [managerId]);
    if (!found.length) throw new AppError('department.manager_not_member');
  }

  async function assertDepthFits(trx: Db, companyId: string, parentId: string, height: number) {
    const depth = (await repo.depthOf(trx, companyId, parentId)) + height;
    if (depth > departmentLimits.maxDepth)
      throw new AppError('department.too_deep', { max: departmentLimits.maxDepth });
  }

  const nameTaken = { departments_sibling_name: 'department.name_taken' } as const;

  /** A structural change: one transaction, the root ensured, the company's tree locked first. */
  const changeTree = <T>(companyId: string, run: (trx: Db) => Promise<T>) =>
    db.transaction().execute(async (trx) => {
      await repo.ensureRoot(trx, companyId);
      await lockCompanyTree(trx, companyId);
      return run(trx);
    });

  /** Stores the change of `current` and audits the department as it was and as it is now. */
  async function saveAudited(
    trx: Db,
    actor: Actor,
    companyId: string,
    action: 'department.update' | 'department.move',
    current: repo.DepartmentRow,
    before: Awaited<ReturnType<typeof answer>>,
    set: Parameters<typeof repo.updateDepartmentById>[3],
  ) {
    await repo.updateDepartmentById(trx, companyId, current.id, set);
    const after = await answer(trx, companyId, await repo.lockDepartment(trx, companyId, current.id));
    await insertAuditEvent(trx, {
      companyId,
      actorAccountId: actor.accountId,
      action,
      targetType: 'department',
      targetId: current.id,
      before,
      after,
      ip: actor.ip,
    });
    return after;
  }

  async function tree(companyId: string): Promise<{ tree: DepartmentNode }> {
    return db.transaction().execute(async (trx) => {
      const root = await repo.ensureRoot(trx, companyId);
      const rows = await repo.findDepartmentsWithCounts(trx, companyId);
      const inSubtree = await repo.subtreeMemberCounts(trx, companyId);
      const name = await companyName(trx, companyId);
      const nodes = new Map<string, DepartmentNode>();
      for (const row of rows) {
        nodes.set(row.id, {
          departmentId: row.id,
          name: row.parent_id === null ? (name ?? row.name) : row.name,
          parentId: row.parent_id,
          managerId: row.manager_account_id,
          managerName: row.manager_account_id ? (row.manager_display_name ?? row.manager_username) : null,
          memberCount: Number(row.member_count ?? 0),
          totalMemberCount: inSubtree.get(row.id) ?? 0,
          children: [],
        });
      }
      for (const node of nodes.values()) {
        if (node.parentId) nodes.get(node.parentId)?.children.push(node);
      }
      const top = nodes.get(root.id);
      if (!top) throw new AppError('department.not_found');
      return { tree: top };
    });
  }

  async function create(
    actor: Actor,
    companyId: string,
    input: { name: string; parentId: string; managerId?: string | null },
  ) {
    return uniqueViolationAs(nameTaken, () =>
      changeTree(companyId, async (trx) => {
        const parent = await repo.findDepartment(trx, companyId, input.parentId);
        if (!parent) throw new AppError('department.not_found');
        await assertDepthFits(trx, companyId, parent.id, 1);
        await assertManager(trx, companyId, input.managerId);
        if (await repo.siblingNameTaken(trx, companyId, parent.id, input.name))
          throw new AppError('department.name_taken');
        const id = await repo.insertDepartment(trx, companyId, {
          parentId: parent.id,
          name: input.name,
          managerId: input.managerId ?? null,
        });
        const created = await repo.lockDepartment(trx, companyId, id);
        const after = await answer(trx, companyId, created);
        await insertAuditEvent(trx, {
          companyId,
          actorAccountId: actor.accountId,
          action: 'department.create',
          targetType: 'department',
          targetId: id,
          after,
          ip: actor.ip,
        });
        return after;
      }),
    );
  }

  async function update(
    actor: Actor,
    companyId: string,
    input: { departmentId: string; name?: string; managerId?: string | null },
  ) {
    return uniqueViolationAs(nameTaken, () =>
      changeTree(companyId, async (trx) => {
        const current = await repo.lockDepartment(trx, companyId, input.departmentId);
        const before = await answer(trx, companyId, current);
        const set: { name?: string; manager_account_id?: string | null } = {};
        if (input.name !== undefined && input.name !== before.name) {
          // The root carries the company's name; it is renamed with the company, not here.
          if (current.parent_id === null) throw new AppError('department.root_protected');
          if (await repo.siblingNameTaken(trx, companyId, current.parent_id, input.name, current.id))
            throw new AppError('department.name_taken');
          set.name = input.name;
        }
        if (input.managerId !== undefined && input.managerId !== current.manager_account_id) {
          await assertManager(trx, companyId, input.managerId);
          set.manager_account_id = input.managerId;
        }
        if (!Object.keys(set).length) return before;
        return saveAudited(trx, actor, companyId, 'department.update', current, before, set);
      }),
    );
  }

  async function move(actor: Actor, companyId: string, input: { departmentId: string; parentId: string }) {
    return uniqueViolationAs(nameTaken, () =>
      changeTree(companyId, async (trx) => {
        const current = await repo.lockDepartment(trx, companyId, input.departmentId);
        const parent = await repo.findDepartment(trx, companyId, input.parentId);
        if (!parent) throw new AppError('department.not_found');
        if (current.parent_id === null) throw new AppError('department.root_protected');
        const before = await answer(trx, companyId, current);
        if (current.parent_id === parent.id) return before;
        const subtree = await repo.subtreeIds(trx, companyId, current.id);
        if (subtree.includes(parent.id)) throw new AppError('department.cycle');
        await assertDepthFits(trx, companyId, parent.id, await repo.heightOf(trx, companyId, current.id));
        if (await repo.siblingNameTaken(trx, companyId, parent.id, current.name, current.id))
          throw new AppError('department.name_taken');
        return saveAudited(trx, actor, companyId, 'department.move', current, before, {
          parent_id: parent.id,
        });
      }),
    );
  }

  async function remove(actor: Actor, companyId: string, departmentId: string) {
    return changeTree(companyId, async (trx) => {
      const current = await repo.lockDepartment(trx, companyId, departmentId);
      if (current.parent_id === null) throw new AppError('department.root_protected');
      if (await repo.hasChildren(trx, companyId, current.id)) throw new AppError('department.has_children');
      const before = {
        ...(await answer(trx, companyId, current)),
        memberIds: await repo.findDepartmentMemberIds(trx, companyId, current.id),
      };
      // Members lose this membership only (cascade); they remain users of the company.
      await repo.deleteDepartmentById(trx, companyId, current.id);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'department.delete',
        targetType: 'department',
        targetId: current.id,
        before,
        ip: actor.ip,
      });
      return { departmentId: current.id };
    });
  }

  /** A user id is the account id of a user record (company_members) of the company. */
  async function changeMembers(
    actor: Actor & { role: MemberRole },
    companyId: string,
    input: { departmentId: string; userIds: string[] },
    kind: 'add' | 'remove',
  ) {
    return db.transaction().execute(async (trx) => {
      await repo.ensureRoot(trx, companyId);
      // Shared with structural changes: the department cannot be deleted meanwhile.
      const department = await repo.lockDepartment(trx, companyId, input.departmentId);
      const wanted = [...new Set(input.userIds)];
      const members = await repo.findMemberRoles(trx, companyId, wanted);
      if (members.length !== wanted.length) throw new AppError('user.not_found');
      // A department is part of the person's record: the same rule as any change of a person.
      for (const member of members) assertMayActOn(actor.role, member.role);
      const changed = (
        kind === 'add'
          ? await repo.insertDepartmentMembers(trx, companyId, department.id, wanted)
          : await repo.deleteDepartmentMembers(trx, companyId, department.id, wanted)
      ).sort();
      // Idempotent: users already in (or already out of) the department change nothing and leave no event.
      if (changed.length) {
        await insertAuditEvent(trx, {
          companyId,
          actorAccountId: actor.accountId,
          action: kind === 'add' ? 'department.member_add' : 'department.member_remove',
          targetType: 'department',
          targetId: department.id,
          // Only the users this call moved: a department may hold thousands.
          ...(kind === 'add' ? { after: { userIds: changed } } : { before: { userIds: changed } }),
          ip: actor.ip,
        });
      }
      return changed.length;
    });
  }

  return {
    tree,
    create,
    update,
    move,
    remove,
    addMembers: async (
      actor: Actor & { role: MemberRole },
      companyId: string,
      input: { departmentId: string; userIds: string[] },
    ) => ({
      added: await changeMembers(actor, companyId, input, 'add'),
    }),
    removeMembers: async (
      actor: Actor & { role: MemberRole },
      companyId: string,
      input: { departmentId: string; userIds: string[] },
    ) => ({
      removed: await changeMembers(actor, companyId, input, 'remove'),
    }),
  };
}

export type DepartmentService = ReturnType<typeof createDepartmentService>;
