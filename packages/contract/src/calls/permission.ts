import { z } from 'zod';
import { defineCall, entityId, optionalText, paging } from '../call.ts';
import { permissionLimits, resourceTypes, userStatuses } from '../constants.ts';
import { actions, base, manage, read, required } from './permission-shared.ts';

/**
 * Permissions of the company's applications (spec §3 Resource, Role, Authorization; §5):
 * resources belong to an application (its menus, APIs, buttons, data sets) and declare their
 * action types; roles group people; an authorization gives a subject (a person, a role, or a
 * department with its sub departments) an effect (allow or reject) on an application's
 * resources (all or some) and actions (all or some), under restrictions (a validity period,
 * time-of-day windows, client address ranges). A reject overrides any allow; nothing that
 * matches means denied.
 */

const id = entityId;

// ---- resources

export const permissionResource = z.object({
  resourceId: z.string(),
  appId: z.string(),
  appName: z.string(),
  name: z.string(),
  type: z.enum(resourceTypes),
  description: z.string().nullable(),
  data: z.string().nullable(),
  actions: z.array(z.string()),
  /** Authorizations that name this resource (those for all of the app's resources not counted). */
  authorizationCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const resourceFields = {
  name: required('resource.name_required', permissionLimits.nameMax),
  type: z.enum(resourceTypes).default('api'),
  description: optionalText(permissionLimits.descriptionMax),
  data: optionalText(permissionLimits.dataMax),
  actions: actions.default([]),
};

export const listResources = defineCall({
  ...base,
  path: '/api/v1/manage/permission/resource/list',
  summary: "The company's application resources: by application, type and keyword, paged",
  access: read,
  request: z
    .object({
      ...paging,
      appId: id.optional(),
      type: z.enum(resourceTypes).optional(),
      keyword: z.string().trim().max(100).optional(),
    })
    .default({ page: 1, pageSize: 20 }),
  response: z.object({ list: z.array(permissionResource), total: z.number().int() }),
});

export const createResource = defineCall({
  ...base,
  path: '/api/v1/manage/permission/resource/create',
  summary: 'Add a resource (a menu, API, button or data set) with its action types to an application',
  access: manage,
  request: z.object({ appId: required('resource.app_required', 64), ...resourceFields }),
  response: permissionResource,
});

export const updateResource = defineCall({
  ...base,
  path: '/api/v1/manage/permission/resource/update',
  summary: 'Change a resource: name, type, description, data, action types',
  access: manage,
  request: z.object({
    resourceId: id,
    name: resourceFields.name.optional(),
    type: z.enum(resourceTypes).optional(),
    description: resourceFields.description,
    data: resourceFields.data,
    actions: actions.optional(),
  }),
  response: permissionResource,
});

export const deleteResource = defineCall({
  ...base,
  path: '/api/v1/manage/permission/resource/del',
  summary: 'Delete a resource; authorizations that named only this resource are deleted with it',
  access: manage,
  request: z.object({ resourceId: id }),
  response: z.object({ resourceId: z.string(), authorizationsRemoved: z.number().int() }),
});

// ---- roles

export const permissionRole = z.object({
  roleId: z.string(),
  name: z.string(),
  description: z.string(),
  memberCount: z.number().int(),
  authorizationCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const roleName = required('role.name_required', permissionLimits.nameMax);
const roleDescription = required('role.description_required', permissionLimits.descriptionMax);

export const listRoles = defineCall({
  ...base,
  path: '/api/v1/manage/permission/role/list',
  summary: "The company's roles, searched by name or description, paged",
  access: read,
  request: z
    .object({ ...paging, keyword: z.string().trim().max(100).optional() })
    .default({ page: 1, pageSize: 20 }),
  response: z.object({ list: z.array(permissionRole), total: z.number().int() }),
});

export const roleDetail = defineCall({
  ...base,
  path: '/api/v1/manage/permission/role/detail',
  summary: 'One role',
  access: read,
  request: z.object({ roleId: id }),
  response: permissionRole,
});

export const createRole = defineCall({
  ...base,
  path: '/api/v1/manage/permission/role/create',
  summary: 'Create a role (name and description are required)',
  access: manage,
  request: z.object({ name: roleName, description: roleDescription }),
  response: permissionRole,
});

export const updateRole = defineCall({
  ...base,
  path: '/api/v1/manage/permission/role/update',
  summary: "Change a role's name or description",
  access: manage,
  request: z.object({ roleId: id, name: roleName.optional(), description: roleDescription.optional() }),
  response: permissionRole,
});

export const deleteRole = defineCall({
  ...base,
  path: '/api/v1/manage/permission/role/del',
  summary: 'Delete a role with its memberships and the authorizations that name it',
  access: manage,
  request: z.object({ roleId: id }),
  response: z.object({ roleId: z.string(), authorizationsRemoved: z.number().int() }),
});

export const roleMember = z.object({
  userId: z.string(),
  username: z.string(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  status: z.enum(userStatuses),
  addedAt: z.string(),
});

export const listRoleMembers = defineCall({
  ...base,
  path: '/api/v1/manage/permission/role/member/list',
  summary: 'The people of a role, searched by name, username, email or phone, paged',
  access: read,
  request: z.object({ ...paging, roleId: id, keyword: z.string().trim().max(100).optional() }),
  response: z.object({ list: z.array(roleMember), total: z.number().int() }),
});

const memberChange = z.object({
  roleId: id,
  userIds: z.array(id).min(1).max(permissionLimits.membersMax),
});

export const addRoleMembers = defineCall({
  ...base,
  path: '/api/v1/manage/permission/role/member/add',
  summary: 'Put people of the company into a role',
  access: manage,
  request: memberChange,
  response: z.object({ added: z.number().int() }),
});

export const removeRoleMembers = defineCall({
  ...base,
  path: '/api/v1/manage/permission/role/member/remove',
  summary: 'Take people out of a role',
  access: manage,
  request: memberChange,
  response: z.object({ removed: z.number().int() }),
});

export * from './permission-authorization.ts';
