import type { Department } from './org-types.ts';

/** A node of antd's Tree and TreeSelect (`value` for TreeSelect, `key` for Tree). */
export interface DepartmentOption {
  key: string;
  value: string;
  title: string;
  disabled?: boolean;
  children?: DepartmentOption[];
}

/** The department with this id in the tree, if there is one. */
export function findDepartment(root: Department, id: string): Department | undefined {
  if (root.departmentId === id) return root;
  for (const child of root.children) {
    const found = findDepartment(child, id);
    if (found) return found;
  }
  return undefined;
}

/** The ids of a department and of every department below it. */
export function subtreeIds(node: Department): Set<string> {
  const out = new Set<string>();
  const queue = [node];
  while (queue.length) {
    const next = queue.pop() as Department;
    out.add(next.departmentId);
    queue.push(...next.children);
  }
  return out;
}

/** The departments from the root down to the one with this id (empty when it is not in the tree). */
export function pathTo(root: Department, id: string): Department[] {
  if (root.departmentId === id) return [root];
  for (const child of root.children) {
    const path = pathTo(child, id);
    if (path.length) return [root, ...path];
  }
  return [];
}

/** Every department of the tree, parents before their children. */
export function flattenDepartments(root: Department): Department[] {
  return [root, ...root.children.flatMap(flattenDepartments)];
}

/** The tree as antd options; the ids in `disabled` cannot be picked. */
export function departmentOptions(
  root: Department,
  disabled: ReadonlySet<string> = new Set(),
): DepartmentOption[] {
  const toOption = (node: Department): DepartmentOption => ({
    key: node.departmentId,
    value: node.departmentId,
    title: node.name,
    ...(disabled.has(node.departmentId) ? { disabled: true } : {}),
    ...(node.children.length ? { children: node.children.map(toOption) } : {}),
  });
  return [toOption(root)];
}

/**
 * Where a department can be moved (spec §5, the server refuses with `department.cycle`): under
 * any department but itself and its descendants. Its current superior is disabled too, since
 * moving there changes nothing.
 */
export function moveTargets(root: Department, movingId: string): DepartmentOption[] {
  const moving = findDepartment(root, movingId);
  if (!moving) return departmentOptions(root);
  const disabled = subtreeIds(moving);
  if (moving.parentId) disabled.add(moving.parentId);
  return departmentOptions(root, disabled);
}

/**
 * The tree cut down to the departments whose name contains `keyword` (any case) and the
 * departments above them; undefined when nothing matches. A blank keyword keeps the whole tree.
 */
export function filterDepartments(root: Department, keyword: string): Department | undefined {
  const wanted = keyword.trim().toLocaleLowerCase();
  if (!wanted) return root;
  const keep = (node: Department): Department | undefined => {
    const children = node.children.map(keep).filter((child): child is Department => child !== undefined);
    if (children.length || node.name.toLocaleLowerCase().includes(wanted)) return { ...node, children };
    return undefined;
  };
  return keep(root);
}
