import { z } from 'zod';
import { defineCall, paging } from '../call.ts';
import { appLimits } from '../constants.ts';
import { appId, epochSeconds, id } from './app-shared.ts';

/** Applications: who may use one (default access and assigned users, departments and roles) and its programmatic access accounts. */

// ---- Access: default access and assigned users

export const appAssignment = z.object({
  userId: z.string(),
  username: z.string(),
  name: z.string().nullable(),
  /** Seconds since the epoch; null: no expiry. */
  expiresAt: z.number().int().nullable(),
  expired: z.boolean(),
  createdAt: z.number().int(),
});

export const listAppAssignments = defineCall({
  path: '/api/v1/manage/app/assignment/list',
  summary: 'Users assigned to an application, with their expiry',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'read' },
  apiAccess: true,
  request: z.object({ appId, ...paging, keyword: z.string().trim().max(100).optional() }),
  response: z.object({ list: z.array(appAssignment), total: z.number().int() }),
});

export const addAppAssignments = defineCall({
  path: '/api/v1/manage/app/assignment/add',
  summary:
    'Assign users to an application, optionally until a time (an existing assignment gets the new expiry)',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  apiAccess: true,
  request: z.object({
    appId,
    userIds: z.array(id).min(1).max(100),
    expiresAt: epochSeconds.nullable().default(null),
  }),
  response: z.object({ assigned: z.number().int() }),
});

export const removeAppAssignments = defineCall({
  path: '/api/v1/manage/app/assignment/del',
  summary: 'Take users off an application; their tokens for it stop working at once',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  apiAccess: true,
  request: z.object({ appId, userIds: z.array(id).min(1).max(100) }),
  response: z.object({ removed: z.number().int() }),
});

// ---- Access: assigned departments (their sub departments included) and permission roles

export const appGroupKind = z.enum(['department', 'role']);

export const appGroupAssignment = z.object({
  kind: appGroupKind,
  /** The department's or the role's id. */
  targetId: z.string(),
  name: z.string(),
  /** A department's place in the tree ("Company / Sales / East"); null for a role. */
  path: z.string().nullable(),
  /** People the assignment reaches now: members of the department or a department below it, or of the role. */
  people: z.number().int(),
  /** Seconds since the epoch; null: no expiry. */
  expiresAt: z.number().int().nullable(),
  expired: z.boolean(),
  createdAt: z.number().int(),
});

const groupIds = z.array(id).max(100).default([]);

export const listAppGroupAssignments = defineCall({
  path: '/api/v1/manage/app/assignment/group/list',
  summary: 'Departments and permission roles assigned to an application, with their expiry',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'read' },
  apiAccess: true,
  request: z.object({ appId }),
  response: z.object({ list: z.array(appGroupAssignment) }),
});

export const addAppGroupAssignments = defineCall({
  path: '/api/v1/manage/app/assignment/group/add',
  summary:
    'Assign departments (with their sub departments) and permission roles to an application, optionally until a time',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  apiAccess: true,
  request: z.object({
    appId,
    departmentIds: groupIds,
    roleIds: groupIds,
    expiresAt: epochSeconds.nullable().default(null),
  }),
  response: z.object({ assigned: z.number().int() }),
});

export const removeAppGroupAssignments = defineCall({
  path: '/api/v1/manage/app/assignment/group/del',
  summary:
    'Take departments and permission roles off an application; the tokens of people who lose access stop at once',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  apiAccess: true,
  request: z.object({ appId, departmentIds: groupIds, roleIds: groupIds }),
  response: z.object({ removed: z.number().int() }),
});

// ---- Programmatic access accounts

export const apiAccount = z.object({
  accountId: z.string(),
  name: z.string(),
  /** The client id to send with the client credentials grant. */
  clientId: z.string(),
  /** Seconds since the epoch; null: permanent. */
  expiresAt: z.number().int().nullable(),
  expired: z.boolean(),
  lastUsedAt: z.number().int().nullable(),
  createdAt: z.number().int(),
});

const apiAccountName = z
  .string({ error: 'api_account.name_required' })
  .trim()
  .min(1, { error: 'api_account.name_required' })
  .max(appLimits.apiAccountNameMax);

export const listApiAccounts = defineCall({
  path: '/api/v1/manage/app/api-account/list',
  summary: 'Programmatic access accounts of an application',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'read' },
  request: z.object({ appId }),
  response: z.object({ list: z.array(apiAccount), tokenEndpoint: z.string() }),
});

export const createApiAccount = defineCall({
  path: '/api/v1/manage/app/api-account/create',
  summary: 'Create a programmatic access account; its secret is answered once',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  request: z.object({ appId, name: apiAccountName, expiresAt: epochSeconds.nullable().default(null) }),
  response: z.object({ account: apiAccount, secret: z.string() }),
});

export const updateApiAccount = defineCall({
  path: '/api/v1/manage/app/api-account/update',
  summary: 'Rename a programmatic access account or change its expiry',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  request: z.object({
    appId,
    accountId: id,
    name: apiAccountName.optional(),
    expiresAt: epochSeconds.nullable().optional(),
  }),
  response: apiAccount,
});

export const resetApiAccountSecret = defineCall({
  path: '/api/v1/manage/app/api-account/secret/reset',
  summary: 'Give a programmatic access account a new secret (answered once); its tokens stop working',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  request: z.object({ appId, accountId: id }),
  response: z.object({ secret: z.string() }),
});

export const deleteApiAccount = defineCall({
  path: '/api/v1/manage/app/api-account/del',
  summary: 'Delete a programmatic access account; its tokens stop working at once',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  request: z.object({ appId, accountId: id }),
  response: z.object({ accountId: z.string() }),
});
