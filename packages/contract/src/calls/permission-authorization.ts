import { z } from 'zod';
import { defineCall, entityId, optionalText, paging } from '../call.ts';
import {
  authorizationEffects,
  authorizationScopes,
  authorizationSubjectTypes,
  decisionReasons,
  permissionLimits,
  restrictionMisses,
  TIME_OF_DAY_PATTERN,
} from '../constants.ts';
import { parseIpRange } from '../ip-range.ts';
import { actions, base, manage, read, required } from './permission-shared.ts';

/** Permissions: authorizations (spec §3 Authorization), what a change would do, and why a person may or may not do something. */

const id = entityId;

// ---- authorizations

const timeWindow = z
  .object({
    /** ISO weekdays, 1 (Monday) to 7 (Sunday). */
    days: z
      .array(z.number().int().min(1).max(7))
      .min(1, { error: 'authorization.window_invalid' })
      .transform((days) => [...new Set(days)].sort()),
    from: z.string().regex(TIME_OF_DAY_PATTERN, { error: 'authorization.window_invalid' }),
    to: z.string().regex(TIME_OF_DAY_PATTERN, { error: 'authorization.window_invalid' }),
  })
  .refine((window) => window.from < window.to, {
    error: 'authorization.window_invalid',
    path: ['to'],
  });

const isTimeZone = (value: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
};

const ipRange = z
  .string()
  .max(64)
  .transform((value, ctx) => {
    const range = parseIpRange(value);
    if (!range) {
      ctx.addIssue({ code: 'custom', message: 'authorization.ip_range_invalid', input: value });
      return z.NEVER;
    }
    return range.text;
  });

const instant = z.iso.datetime({ offset: true, error: 'authorization.validity_invalid' });

export const restrictions = z
  .object({
    validFrom: instant.nullable().default(null),
    validUntil: instant.nullable().default(null),
    timeWindows: z.array(timeWindow).max(permissionLimits.windowsMax).default([]),
    /** The IANA time zone the windows are in (`Asia/Shanghai`). */
    timeZone: z
      .string()
      .max(64)
      .refine(isTimeZone, { error: 'authorization.time_zone_invalid' })
      .default('UTC'),
    /** CIDR ranges or single addresses, IPv4 or IPv6. */
    ipRanges: z
      .array(ipRange)
      .max(permissionLimits.ipRangesMax)
      .transform((ranges) => [...new Set(ranges)])
      .default([]),
  })
  .refine((r) => !r.validFrom || !r.validUntil || Date.parse(r.validFrom) < Date.parse(r.validUntil), {
    error: 'authorization.validity_order',
    path: ['validUntil'],
  });

const subjectRequired = 'authorization.subject_required';
const resourceRequired = 'authorization.resource_required';

export const authorizationInput = z
  .object({
    appId: required(resourceRequired, 64),
    subject: z.object(
      {
        type: z.enum(authorizationSubjectTypes, { error: subjectRequired }),
        id: required(subjectRequired, 64),
      },
      { error: subjectRequired },
    ),
    effect: z.enum(authorizationEffects).default('allow'),
    resourceScope: z.enum(authorizationScopes).default('specific'),
    resourceIds: z
      .array(id)
      .max(permissionLimits.resourcesPerAuthorization)
      .transform((ids) => [...new Set(ids)])
      .default([]),
    actionScope: z.enum(authorizationScopes).default('all'),
    actions: actions.default([]),
    restrictions: restrictions.default({
      validFrom: null,
      validUntil: null,
      timeWindows: [],
      timeZone: 'UTC',
      ipRanges: [],
    }),
    description: optionalText(permissionLimits.descriptionMax),
  })
  .superRefine((input, ctx) => {
    if (input.resourceScope === 'specific' && input.resourceIds.length === 0)
      ctx.addIssue({ code: 'custom', message: resourceRequired, path: ['resourceIds'] });
    if (input.actionScope === 'specific' && input.actions.length === 0)
      ctx.addIssue({ code: 'custom', message: 'authorization.actions_required', path: ['actions'] });
  });

export const permissionAuthorization = z.object({
  authorizationId: z.string(),
  appId: z.string(),
  appName: z.string(),
  subject: z.object({ type: z.enum(authorizationSubjectTypes), id: z.string(), name: z.string() }),
  effect: z.enum(authorizationEffects),
  resourceScope: z.enum(authorizationScopes),
  resources: z.array(z.object({ resourceId: z.string(), name: z.string() })),
  actionScope: z.enum(authorizationScopes),
  actions: z.array(z.string()),
  restrictions: z.object({
    validFrom: z.string().nullable(),
    validUntil: z.string().nullable(),
    timeWindows: z.array(z.object({ days: z.array(z.number().int()), from: z.string(), to: z.string() })),
    timeZone: z.string(),
    ipRanges: z.array(z.string()),
  }),
  description: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const listAuthorizations = defineCall({
  ...base,
  path: '/api/v1/manage/permission/authorization/list',
  summary: 'Authorizations: by application, subject and effect, searched by subject or resource name, paged',
  access: read,
  request: z
    .object({
      ...paging,
      appId: id.optional(),
      subjectType: z.enum(authorizationSubjectTypes).optional(),
      subjectId: id.optional(),
      effect: z.enum(authorizationEffects).optional(),
      keyword: z.string().trim().max(100).optional(),
    })
    .default({ page: 1, pageSize: 20 }),
  response: z.object({ list: z.array(permissionAuthorization), total: z.number().int() }),
});

export const createAuthorization = defineCall({
  ...base,
  path: '/api/v1/manage/permission/authorization/create',
  summary: 'Authorize a person, role or department on resources of an application (or reject them)',
  access: manage,
  request: authorizationInput,
  response: permissionAuthorization,
});

export const updateAuthorization = defineCall({
  ...base,
  path: '/api/v1/manage/permission/authorization/update',
  summary: 'Replace an authorization with the one sent',
  access: manage,
  request: z.object({ authorizationId: id, authorization: authorizationInput }),
  response: permissionAuthorization,
});

export const deleteAuthorization = defineCall({
  ...base,
  path: '/api/v1/manage/permission/authorization/del',
  summary: 'Delete an authorization',
  access: manage,
  request: z.object({ authorizationId: id }),
  response: z.object({ authorizationId: z.string() }),
});

// ---- what a change would do, and why a person may or may not do something

/** One (resource, action) of an application. */
const accessPair = z.object({
  appId: z.string(),
  appName: z.string(),
  resource: z.string(),
  action: z.string(),
});

export const accessImpact = z.object({
  /** People whose access was compared. */
  examined: z.number().int(),
  gaining: z.number().int(),
  losing: z.number().int(),
  /** The people who gain or lose something, by name (at most previewListMax of them). */
  people: z.array(
    z.object({
      userId: z.string(),
      username: z.string(),
      name: z.string().nullable(),
      gained: z.array(accessPair),
      lost: z.array(accessPair),
      gainedCount: z.number().int(),
      lostCount: z.number().int(),
    }),
  ),
  truncated: z.boolean(),
});

export const previewAuthorization = defineCall({
  ...base,
  path: '/api/v1/manage/permission/authorization/preview',
  summary:
    'Who would gain and who would lose which access if an authorization were created (authorization only), changed (both) or deleted (authorizationId only); nothing is stored',
  access: read,
  request: z.object({
    authorizationId: id.optional(),
    authorization: authorizationInput.nullable().default(null),
  }),
  response: accessImpact,
});

export const previewRoleMembers = defineCall({
  ...base,
  path: '/api/v1/manage/permission/role/member/preview',
  summary:
    'Who would gain and who would lose which access if these people joined or left the role; nothing is stored',
  access: read,
  request: z.object({
    roleId: id,
    add: z.array(id).max(permissionLimits.membersMax).default([]),
    remove: z.array(id).max(permissionLimits.membersMax).default([]),
  }),
  response: accessImpact,
});

/** A rule that named the person, resource and action: how it reached the person, and whether it applied. */
export const matchedRule = z.object({
  authorizationId: z.string(),
  effect: z.enum(authorizationEffects),
  description: z.string().nullable(),
  /** The subject the authorization names: the person, one of their roles, or one of their departments or its superiors. */
  via: z.object({
    type: z.enum(authorizationSubjectTypes),
    id: z.string(),
    name: z.string(),
    /** For a department: the person's own department it was reached through (itself or a sub department). */
    through: z.object({ id: z.string(), name: z.string() }).nullable(),
  }),
  /** Whether the rule's restrictions held (a reject whose address is unknown applies). */
  applied: z.boolean(),
  miss: z.enum(restrictionMisses).nullable(),
});

export const checkAccess = defineCall({
  ...base,
  path: '/api/v1/manage/permission/check',
  summary:
    'Whether a person may take an action on a resource, and why: the deciding rules, through which role or department, or that none matched',
  access: read,
  request: z.object({
    userId: required('check.user_required', 64),
    resourceId: required('check.resource_required', 64),
    action: required('check.action_required', permissionLimits.actionMax),
    /** The client address to decide for (restrictions by address); none: unknown. */
    ip: z
      .string()
      .trim()
      .max(64)
      .optional()
      .transform((value) => value || undefined),
    /** The moment to decide for (validity and time windows); none: now. */
    at: z.iso.datetime({ offset: true }).optional(),
  }),
  response: z.object({
    allowed: z.boolean(),
    reason: z.enum(decisionReasons),
    /** The rules that decided (the rejects when rejected, else the allows). */
    deciding: z.array(matchedRule),
    /** Every rule that named the person, resource and action. */
    matched: z.array(matchedRule),
  }),
});
