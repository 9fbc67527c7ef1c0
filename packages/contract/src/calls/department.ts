import { z } from 'zod';
import { defineCall, emptyRequest, entityId } from '../call.ts';
import { departmentLimits, userLimits } from '../constants.ts';

/**
 * Departments (spec §3 Department: name, id, manager, superior department). Every company has
 * one root department, named after the company, which cannot be renamed, moved or deleted.
 */

const id = entityId;

const departmentName = z
  .string({ error: 'department.name_required' })
  .trim()
  .min(1, { error: 'department.name_required' })
  .max(departmentLimits.nameMax);

export interface DepartmentNode {
  departmentId: string;
  name: string;
  parentId: string | null;
  managerId: string | null;
  managerName: string | null;
  /** People directly in this department. */
  memberCount: number;
  /** People in it or in any department below it, each person once. */
  totalMemberCount: number;
  children: DepartmentNode[];
}

export const departmentNode: z.ZodType<DepartmentNode> = z.lazy(() =>
  z.object({
    departmentId: z.string(),
    name: z.string(),
    parentId: z.string().nullable(),
    managerId: z.string().nullable(),
    managerName: z.string().nullable(),
    memberCount: z.number().int(),
    totalMemberCount: z.number().int(),
    children: z.array(departmentNode),
  }),
);

export const departmentTree = defineCall({
  path: '/api/v1/manage/department/tree',
  summary: 'The department tree of the current company, from its root',
  tag: 'Department',
  auth: 'session',
  tenant: true,
  access: { groups: ['department', 'user', 'authority', 'app'], level: 'read' },
  apiAccess: true,
  request: emptyRequest,
  response: z.object({ tree: departmentNode }),
});

const departmentAnswer = z.object({
  departmentId: z.string(),
  name: z.string(),
  parentId: z.string().nullable(),
  managerId: z.string().nullable(),
});

export const createDepartment = defineCall({
  path: '/api/v1/manage/department/create',
  summary: 'Create a department under a superior department',
  tag: 'Department',
  auth: 'session',
  tenant: true,
  access: { groups: ['department'], level: 'manage' },
  apiAccess: true,
  request: z.object({
    name: departmentName,
    parentId: z
      .string({ error: 'department.parent_required' })
      .trim()
      .min(1, { error: 'department.parent_required' })
      .max(64),
    managerId: id.nullable().optional(),
  }),
  response: departmentAnswer,
});

export const updateDepartment = defineCall({
  path: '/api/v1/manage/department/update',
  summary: 'Rename a department or change its manager',
  tag: 'Department',
  auth: 'session',
  tenant: true,
  access: { groups: ['department'], level: 'manage' },
  apiAccess: true,
  request: z.object({
    departmentId: id,
    name: departmentName.optional(),
    managerId: id.nullable().optional(),
  }),
  response: departmentAnswer,
});

export const moveDepartment = defineCall({
  path: '/api/v1/manage/department/move',
  summary: 'Put a department under another superior department (never under itself or its descendants)',
  tag: 'Department',
  auth: 'session',
  tenant: true,
  access: { groups: ['department'], level: 'manage' },
  request: z.object({ departmentId: id, parentId: id }),
  response: departmentAnswer,
});

export const deleteDepartment = defineCall({
  path: '/api/v1/manage/department/del',
  summary: 'Delete a department without sub departments; its people stay in the company',
  tag: 'Department',
  auth: 'session',
  tenant: true,
  access: { groups: ['department'], level: 'manage' },
  apiAccess: true,
  request: z.object({ departmentId: id }),
  response: z.object({ departmentId: z.string() }),
});

const memberChange = z.object({
  departmentId: id,
  userIds: z.array(id).min(1).max(userLimits.batchMax),
});

export const addDepartmentMembers = defineCall({
  path: '/api/v1/manage/department/member/add',
  summary: 'Put users into a department',
  tag: 'Department',
  auth: 'session',
  tenant: true,
  access: { groups: ['department'], level: 'manage' },
  apiAccess: true,
  request: memberChange,
  response: z.object({ added: z.number().int() }),
});

export const removeDepartmentMembers = defineCall({
  path: '/api/v1/manage/department/member/remove',
  summary: 'Take users out of a department',
  tag: 'Department',
  auth: 'session',
  tenant: true,
  access: { groups: ['department'], level: 'manage' },
  apiAccess: true,
  request: memberChange,
  response: z.object({ removed: z.number().int() }),
});
