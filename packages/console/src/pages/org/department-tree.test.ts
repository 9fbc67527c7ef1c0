import { describe, expect, it } from 'vitest';
import {
  type DepartmentOption,
  departmentOptions,
  filterDepartments,
  findDepartment,
  moveTargets,
  pathTo,
  subtreeIds,
} from './department-tree.ts';
import type { Department } from './org-types.ts';

const node = (departmentId: string, parentId: string | null, children: Department[] = []): Department => ({
  departmentId,
  name: departmentId.toUpperCase(),
  parentId,
  managerId: null,
  managerName: null,
  memberCount: 0,
  totalMemberCount: 0,
  children,
});

// root ─┬─ sales ─┬─ north ── north-east
//       │         └─ south
//       └─ tech ── platform
const tree = node('root', null, [
  node('sales', 'root', [node('north', 'sales', [node('north-east', 'north')]), node('south', 'sales')]),
  node('tech', 'root', [node('platform', 'tech')]),
]);

/** The ids of the options that can be picked, and of those that cannot. */
function picks(options: DepartmentOption[]) {
  const enabled: string[] = [];
  const disabled: string[] = [];
  const walk = (option: DepartmentOption) => {
    (option.disabled ? disabled : enabled).push(option.value);
    option.children?.forEach(walk);
  };
  options.forEach(walk);
  return { enabled: enabled.sort(), disabled: disabled.sort() };
}

describe('the department move picker', () => {
  it('disables the department itself, every department below it and its current superior', () => {
    expect(picks(moveTargets(tree, 'sales'))).toEqual({
      enabled: ['platform', 'tech'],
      disabled: ['north', 'north-east', 'root', 'sales', 'south'],
    });
  });

  it('leaves the rest of the tree pickable for a leaf', () => {
    expect(picks(moveTargets(tree, 'north-east'))).toEqual({
      enabled: ['platform', 'root', 'sales', 'south', 'tech'],
      disabled: ['north', 'north-east'],
    });
  });

  it('offers siblings and their descendants but never a descendant', () => {
    const { enabled } = picks(moveTargets(tree, 'north'));
    expect(enabled).toEqual(['platform', 'root', 'south', 'tech']);
    expect(enabled).not.toContain('north-east');
  });

  it('keeps the shape of the tree', () => {
    const [root] = moveTargets(tree, 'tech');
    expect(root?.children?.map((option) => option.value)).toEqual(['sales', 'tech']);
    expect(root?.children?.[1]?.children?.[0]).toEqual({
      key: 'platform',
      value: 'platform',
      title: 'PLATFORM',
      disabled: true,
    });
  });
});

describe('department tree helpers', () => {
  it('finds departments, their subtree and the path from the root', () => {
    expect(findDepartment(tree, 'south')?.name).toBe('SOUTH');
    expect(findDepartment(tree, 'nowhere')).toBeUndefined();
    expect([...subtreeIds(findDepartment(tree, 'north') as Department)].sort()).toEqual([
      'north',
      'north-east',
    ]);
    expect(pathTo(tree, 'north-east').map((d) => d.departmentId)).toEqual([
      'root',
      'sales',
      'north',
      'north-east',
    ]);
    expect(pathTo(tree, 'nowhere')).toEqual([]);
  });

  it('turns the tree into options with nothing disabled by default', () => {
    expect(picks(departmentOptions(tree)).disabled).toEqual([]);
  });

  it('filters by name, keeping the departments above a match', () => {
    const found = filterDepartments(tree, ' east ');
    expect(found?.children.map((d) => d.departmentId)).toEqual(['sales']);
    expect(found?.children[0]?.children.map((d) => d.departmentId)).toEqual(['north']);
    expect(filterDepartments(tree, 'zzz')).toBeUndefined();
    expect(filterDepartments(tree, '  ')).toBe(tree);
  });
});
