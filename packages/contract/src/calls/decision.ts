import { z } from 'zod';
import { defineCall } from '../call.ts';
import {
  authorizationEffects,
  authorizationSubjectTypes,
  decisionReasons,
  permissionLimits,
} from '../constants.ts';

/**
 * The decision API of applications: an application asks whether a person may take an action on
 * one of its resources, several such questions at once, or everything the person may do in it
 * (to build its menus). The application authenticates with its own OIDC client id and secret
 * (HTTP Basic, as at the token endpoint and for token introspection); the company and the
 * application are the client's, so it only ever learns about its own resources.
 */

const base = { tag: 'Permission decisions', auth: 'app', tenant: false } as const;

/** The person: the `sub` of the ID token the application received. */
const userId = z.string().trim().min(1).max(64);
const ip = z
  .string()
  .trim()
  .max(64)
  .optional()
  .transform((value) => value || undefined);

const question = {
  userId,
  /** The resource's name, as the company set it up for the application. */
  resource: z.string().trim().min(1).max(permissionLimits.nameMax),
  action: z.string().trim().min(1).max(permissionLimits.actionMax),
  /** The person's client address, when the application knows it (restrictions by address). */
  ip,
};

export const decision = z.object({
  allowed: z.boolean(),
  reason: z.enum(decisionReasons),
  /** The authorizations that decided: the rejects when rejected, else the allows. */
  rules: z.array(
    z.object({
      authorizationId: z.string(),
      effect: z.enum(authorizationEffects),
      via: z.object({ type: z.enum(authorizationSubjectTypes), id: z.string(), name: z.string() }),
    }),
  ),
});

export const decideOne = defineCall({
  ...base,
  path: '/api/v1/app/permission/check',
  summary:
    'Whether a person may take an action on a resource of the calling application, and the deciding rules',
  request: z.object(question),
  response: decision,
});

export const decideMany = defineCall({
  ...base,
  path: '/api/v1/app/permission/check-many',
  summary: 'Several questions in one call; the answers come in the same order',
  request: z.object({ checks: z.array(z.object(question)).min(1).max(permissionLimits.checkManyMax) }),
  response: z.object({ results: z.array(decision) }),
});

export const permittedActions = defineCall({
  ...base,
  path: '/api/v1/app/permission/list',
  summary:
    'Everything a person may do in the calling application now: each resource with the allowed actions (to build menus)',
  request: z.object({ userId, ip }),
  response: z.object({
    allowed: z.boolean(),
    reason: z.enum(decisionReasons),
    permissions: z.array(
      z.object({
        resource: z.string(),
        type: z.string(),
        data: z.string().nullable(),
        actions: z.array(z.string()),
      }),
    ),
  }),
});
