import { departmentLimits, permissionLimits, type ScimGroupKind } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import { ensureRoot } from '../department/department.repo.ts';
import type { DepartmentService } from '../department/department.service.ts';
import type { RoleService } from '../permission/role.service.ts';
import * as repo from './scim-groups.repo.ts';
import type { actorOf } from './scim-users.service.ts';

/**
 * What a token's SCIM Groups are stored as: the company's departments or its permission roles.
 * Each store reads its own kind only (so a Group id of the other kind is not found) and changes
 * it through its module's service, so the console's rules, locks, caches and audit apply.
 */

type Actor = ReturnType<typeof actorOf>;

export interface GroupStore {
  nameMax: number;
  rows(
    companyId: string,
    ids?: string[],
  ): Promise<{ id: string; name: string; created_at: Date; updated_at: Date; external_id: string | null }[]>;
  members(companyId: string, ids: string[]): Promise<Map<string, { value: string; display: string }[]>>;
  externalIdTaken(companyId: string, externalId: string, exceptId?: string): Promise<boolean>;
  saveExternalId(companyId: string, id: string, externalId: string | null): Promise<void>;
  /** Creates a group of this name; its id. */
  create(actor: Actor, companyId: string, name: string): Promise<string>;
  rename(actor: Actor, companyId: string, id: string, name: string): Promise<unknown>;
  addMembers(actor: Actor, companyId: string, id: string, userIds: string[]): Promise<unknown>;
  removeMembers(actor: Actor, companyId: string, id: string, userIds: string[]): Promise<unknown>;
  remove(actor: Actor, companyId: string, id: string): Promise<unknown>;
}

/** Groups are departments under the root (the company itself); members are department members. */
function departmentStore(db: Db, departments: DepartmentService): GroupStore {
  return {
    nameMax: departmentLimits.nameMax,
    rows: (companyId, ids) => repo.findGroupRows(db, companyId, ids),
    members: (companyId, ids) => repo.findGroupMembers(db, companyId, ids),
    externalIdTaken: (companyId, externalId, exceptId) =>
      repo.groupExternalIdTaken(db, companyId, externalId, exceptId),
    saveExternalId: (companyId, id, externalId) => repo.saveGroupExternalId(db, companyId, id, externalId),
    async create(actor, companyId, name) {
      const root = await db.transaction().execute((trx) => ensureRoot(trx, companyId));
      return (await departments.create(actor, companyId, { name, parentId: root.id })).departmentId;
    },
    rename: (actor, companyId, departmentId, name) =>
      departments.update(actor, companyId, { departmentId, name }),
    addMembers: (actor, companyId, departmentId, userIds) =>
      departments.addMembers(actor, companyId, { departmentId, userIds }),
    removeMembers: (actor, companyId, departmentId, userIds) =>
      departments.removeMembers(actor, companyId, { departmentId, userIds }),
    remove: (actor, companyId, departmentId) => departments.remove(actor, companyId, departmentId),
  };
}

/** Groups are permission roles; members are the role's people. */
function roleStore(db: Db, roles: RoleService): GroupStore {
  return {
    nameMax: permissionLimits.nameMax,
    rows: (companyId, ids) => repo.findRoleGroupRows(db, companyId, ids),
    members: (companyId, ids) => repo.findRoleGroupMembers(db, companyId, ids),
    externalIdTaken: (companyId, externalId, exceptId) =>
      repo.roleExternalIdTaken(db, companyId, externalId, exceptId),
    saveExternalId: (companyId, id, externalId) => repo.saveRoleExternalId(db, companyId, id, externalId),
    create: async (actor, companyId, name) =>
      (await roles.create(actor, companyId, { name, description: '' })).roleId,
    rename: (actor, companyId, roleId, name) => roles.update(actor, companyId, { roleId, name }),
    addMembers: (actor, companyId, roleId, userIds) =>
      roles.addMembers(actor, companyId, { roleId, userIds }),
    removeMembers: (actor, companyId, roleId, userIds) =>
      roles.removeMembers(actor, companyId, { roleId, userIds }),
    remove: (actor, companyId, roleId) => roles.remove(actor, companyId, roleId),
  };
}

export function createGroupStores(deps: {
  db: Db;
  departments: DepartmentService;
  roles: RoleService;
}): Record<ScimGroupKind, GroupStore> {
  return { departments: departmentStore(deps.db, deps.departments), roles: roleStore(deps.db, deps.roles) };
}
