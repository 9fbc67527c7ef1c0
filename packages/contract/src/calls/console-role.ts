import { z } from 'zod';
import { defineCall, emptyRequest, entityId, optionalText } from '../call.ts';
import {
  type ConsoleAccess,
  consoleAbilities,
  consoleGroups,
  consoleLevels,
  memberRoles,
  permissionLimits,
} from '../constants.ts';

/**
 * Custom console roles of a company (spec §6 permission groups): each grants some of the groups,
 * to read or to manage, and finer abilities (a help desk: users read and credential resets). A
 * person of the company given one is a delegated administrator: the console shows them that
 * role's screens and the server refuses every other call. Owners and administrators keep everything.
 */

const base = { tag: 'Console roles', auth: 'session', tenant: true } as const;
const read: ConsoleAccess = { groups: ['companySettings'], level: 'read' };
const manage: ConsoleAccess = { groups: ['companySettings'], level: 'manage' };

export const consoleGrants = z.object({
  groups: z.partialRecord(z.enum(consoleGroups), z.enum(consoleLevels)),
  abilities: z
    .array(z.enum(consoleAbilities))
    .transform((list) => [...new Set(list)])
    .default([]),
});

export const consoleRole = z.object({
  roleId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  grants: consoleGrants,
  /** People who hold the role. */
  memberCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const name = z
  .string({ error: 'console_role.name_required' })
  .trim()
  .min(1, { error: 'console_role.name_required' })
  .max(permissionLimits.nameMax);

export const listConsoleRoles = defineCall({
  ...base,
  path: '/api/v1/manage/console-role/list',
  summary: "The company's custom console roles",
  access: read,
  request: emptyRequest,
  response: z.object({ list: z.array(consoleRole) }),
});

export const createConsoleRole = defineCall({
  ...base,
  path: '/api/v1/manage/console-role/create',
  summary: 'Create a console role from permission groups (read or manage) and abilities',
  access: manage,
  request: z.object({
    name,
    description: optionalText(permissionLimits.descriptionMax),
    grants: consoleGrants,
  }),
  response: consoleRole,
});

export const updateConsoleRole = defineCall({
  ...base,
  path: '/api/v1/manage/console-role/update',
  summary: "Change a console role; its holders' next calls follow it",
  access: manage,
  request: z.object({
    roleId: entityId,
    name: name.optional(),
    description: optionalText(permissionLimits.descriptionMax),
    grants: consoleGrants.optional(),
  }),
  response: consoleRole,
});

export const deleteConsoleRole = defineCall({
  ...base,
  path: '/api/v1/manage/console-role/del',
  summary: 'Delete a console role; its holders become members of the company again',
  access: manage,
  request: z.object({ roleId: entityId }),
  response: z.object({ roleId: z.string(), membersReturned: z.number().int() }),
});

export const assignConsoleRole = defineCall({
  ...base,
  path: '/api/v1/manage/console-role/assign',
  summary:
    'Give a member of the company a console role (they become a delegated administrator), or take it away (null)',
  access: manage,
  request: z.object({ userId: entityId, roleId: entityId.nullable() }),
  response: z.object({
    userId: z.string(),
    role: z.enum(memberRoles),
    consoleRole: z.object({ roleId: z.string(), name: z.string() }).nullable(),
  }),
});

export const myConsoleAccess = defineCall({
  ...base,
  path: '/api/v1/manage/company/my/access',
  summary:
    "What the signed-in person may do in the console of the selected company: their role, their console role and its permission groups (the console's menu is built from them)",
  access: 'console',
  request: emptyRequest,
  response: z.object({
    role: z.enum(memberRoles),
    consoleRole: z.object({ roleId: z.string(), name: z.string() }).nullable(),
    grants: consoleGrants,
  }),
});
