import { departmentLimits, type SyncRowKind } from '@tessera/contract';
import type { DirectoryDepartment, DirectorySnapshot } from './snapshot.ts';
import type { SyncRowData } from './sync-plan.ts';
import type { SyncState } from './sync-state.ts';

/**
 * The department half of a sync plan. A directory's departments sit under the company's root
 * department, nested as in the directory (at most 15 levels: deeper ones hang from the deepest
 * allowed ancestor). A new department takes over an existing one of the same name at the same
 * place that no source maintains; otherwise names are made unique among siblings ("Sales (2)").
 * A department gone from the directory is removed once the sync has moved its people out, or
 * kept as an ordinary department when people or sub departments remain.
 */

export interface DepartmentPlan {
  /** Parents first. `parentExternalId` null: under the root department. */
  create: { externalId: string; name: string; parentExternalId: string | null }[];
  update: { externalId: string; departmentId: string; name?: string; parentExternalId?: string | null }[];
  adopt: { externalId: string; departmentId: string }[];
  remove: { externalId: string; departmentId: string }[];
  unlink: { externalId: string; departmentId: string }[];
  /** The final name of each directory department. */
  names: Map<string, string>;
  /** Linked people the plan takes out of these departments. */
  removedMembers(departmentIds: string[]): void;
  /** Decides the removals and writes the department rows (once the people are planned). */
  finish(rows: Record<SyncRowKind, SyncRowData[]>, idName: (id: string) => string): void;
}

const nameOf = (department: DirectoryDepartment) =>
  (department.name.trim() || department.externalId).slice(0, departmentLimits.nameMax);

/** The directory's departments, parents before children; a parent outside the snapshot makes a top department. */
function topological(departments: DirectoryDepartment[]) {
  const byId = new Map(departments.map((d) => [d.externalId, d]));
  const children = new Map<string | null, DirectoryDepartment[]>();
  for (const department of departments) {
    const parent =
      department.parentExternalId && byId.has(department.parentExternalId)
        ? department.parentExternalId
        : null;
    children.set(parent, [...(children.get(parent) ?? []), department]);
  }
  const ordered: { department: DirectoryDepartment; parent: string | null; depth: number }[] = [];
  const visit = (parent: string | null, depth: number) => {
    const list = (children.get(parent) ?? []).sort((a, b) => a.externalId.localeCompare(b.externalId));
    for (const department of list) {
      ordered.push({ department, parent, depth });
      visit(department.externalId, depth + 1);
    }
  };
  // The root department is depth 1; the directory's top departments are depth 2.
  visit(null, 2);
  return ordered;
}

export function planDepartments(
  snapshot: DirectorySnapshot,
  state: SyncState,
  maxDepth: number,
): DepartmentPlan {
  const plan: Omit<DepartmentPlan, 'removedMembers' | 'finish'> = {
    create: [],
    update: [],
    adopt: [],
    remove: [],
    unlink: [],
    names: new Map(),
  };
  const rows: { kind: SyncRowKind; row: SyncRowData }[] = [];
  const inSnapshot = new Set(snapshot.departments.map((d) => d.externalId));
  const redecided = new Set(
    [...state.sourceDepartments].filter(([ext]) => inSnapshot.has(ext)).map(([, id]) => id),
  );
  const rootKey = state.rootDepartmentId ?? 'root';
  /** Who has each name under each parent: parent key → lower-case name → occupant. */
  const slots = new Map<string, Map<string, string>>();
  const slotOf = (key: string) => {
    let slot = slots.get(key);
    if (!slot) {
      slot = new Map();
      for (const department of state.departments.values())
        if (department.parentId === key && !redecided.has(department.id))
          slot.set(department.name.toLowerCase(), department.id);
      slots.set(key, slot);
    }
    return slot;
  };
  const parentKey = (parent: string | null) =>
    parent === null ? rootKey : (state.sourceDepartments.get(parent) ?? `ext:${parent}`);
  const adopted = new Set<string>();
  const ancestors = new Map<string, string | null>();

  for (const { department, parent: directoryParent, depth } of topological(snapshot.departments)) {
    let parent = directoryParent;
    // Too deep: hang it from its ancestor at the deepest allowed level.
    for (let level = depth; level > maxDepth && parent; level--) parent = ancestors.get(parent) ?? null;
    ancestors.set(department.externalId, parent);
    const key = parentKey(parent);
    const slot = slotOf(key);
    const existingId = state.sourceDepartments.get(department.externalId);
    const wanted = nameOf(department);
    const holder = slot.get(wanted.toLowerCase());
    const parentName = parent === null ? null : (plan.names.get(parent) ?? parent);
    if (
      !existingId &&
      holder &&
      !holder.startsWith('ext:') &&
      !state.otherSourceDepartments.has(holder) &&
      !adopted.has(holder)
    ) {
      adopted.add(holder);
      plan.adopt.push({ externalId: department.externalId, departmentId: holder });
      plan.names.set(department.externalId, wanted);
      slot.set(wanted.toLowerCase(), holder);
      rows.push({
        kind: 'department_updated',
        row: { externalId: department.externalId, label: wanted, changes: [], note: { key: 'adopted' } },
      });
      continue;
    }
    let name = wanted;
    const self = existingId ?? `ext:${department.externalId}`;
    for (let n = 2; slot.has(name.toLowerCase()) && slot.get(name.toLowerCase()) !== self; n++) {
      const suffix = ` (${n})`;
      name = `${wanted.slice(0, departmentLimits.nameMax - suffix.length)}${suffix}`;
    }
    slot.set(name.toLowerCase(), self);
    plan.names.set(department.externalId, name);
    const note = name !== wanted ? { key: 'renamed_duplicate', params: { name: wanted } } : null;
    if (!existingId) {
      plan.create.push({ externalId: department.externalId, name, parentExternalId: parent });
      rows.push({
        kind: 'department_created',
        row: {
          externalId: department.externalId,
          label: name,
          changes: [{ field: 'parent', before: null, after: parentName }],
          note,
        },
      });
      continue;
    }
    const current = state.departments.get(existingId);
    const parentId = parent === null ? state.rootDepartmentId : (state.sourceDepartments.get(parent) ?? null);
    const moves = !current || current.parentId !== parentId;
    const renames = !current || current.name !== name;
    if (!moves && !renames) continue;
    plan.update.push({
      externalId: department.externalId,
      departmentId: existingId,
      ...(renames ? { name } : {}),
      ...(moves ? { parentExternalId: parent } : {}),
    });
    rows.push({
      kind: 'department_updated',
      row: {
        externalId: department.externalId,
        label: name,
        changes: [
          ...(renames ? [{ field: 'name', before: current?.name ?? null, after: name }] : []),
          ...(moves
            ? [
                {
                  field: 'parent',
                  before: current?.parentId ? (state.departments.get(current.parentId)?.name ?? null) : null,
                  after: parentName,
                },
              ]
            : []),
        ],
        note,
      },
    });
  }

  const leaving = new Map<string, number>();
  return {
    ...plan,
    removedMembers(departmentIds) {
      for (const id of departmentIds) leaving.set(id, (leaving.get(id) ?? 0) + 1);
    },
    finish(target, idName) {
      for (const { kind, row } of rows) target[kind].push(row);
      const gone = [...state.sourceDepartments]
        .filter(([ext]) => !inSnapshot.has(ext))
        .sort(([a], [b]) => a.localeCompare(b));
      const removable = new Set<string>();
      // Children first: a department whose sub departments all go can go too.
      for (let changed = true; changed; ) {
        changed = false;
        for (const [, id] of gone) {
          if (removable.has(id)) continue;
          const members = (state.memberCounts.get(id) ?? 0) - (leaving.get(id) ?? 0);
          const children = [...state.departments.values()].filter(
            (d) => d.parentId === id && !redecided.has(d.id) && !removable.has(d.id),
          );
          if (members <= 0 && !children.length) {
            removable.add(id);
            changed = true;
          }
        }
      }
      for (const [externalId, departmentId] of gone) {
        const keep = !removable.has(departmentId);
        (keep ? plan.unlink : plan.remove).push({ externalId, departmentId });
        target.department_removed.push({
          externalId,
          label: idName(departmentId),
          changes: [],
          note: keep ? { key: 'kept_not_empty' } : null,
        });
      }
      // Removed in the order that keeps the tree valid: sub departments before their parents.
      const depthOf = (id: string) => {
        let depth = 0;
        for (let at = state.departments.get(id); at?.parentId; at = state.departments.get(at.parentId))
          depth++;
        return depth;
      };
      plan.remove.sort((a, b) => depthOf(b.departmentId) - depthOf(a.departmentId));
    },
  };
}
