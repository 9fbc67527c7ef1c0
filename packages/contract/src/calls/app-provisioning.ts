import { z } from 'zod';
import { defineCall, paging } from '../call.ts';
import {
  provisioningActions,
  provisioningAttributes,
  provisioningLifecycles,
  provisioningLimits,
  provisioningLossActions,
  provisioningRunStatuses,
  provisioningRunTriggers,
  provisioningUserNameSources,
} from '../provisioning.ts';
import { appId } from './app-shared.ts';

/**
 * Provisioning of people into an application by SCIM 2.0 (RFC 7643, RFC 7644): the
 * application's SCIM target, a preview of the next run, runs on demand (each a job: one at a
 * time per application, on any instance) and the runs recorded with their counts and errors.
 * The bearer token is written, never read back: the console learns only whether one is set.
 */

const baseUrl = z
  .string({ error: 'provisioning.url_invalid' })
  .trim()
  .max(provisioningLimits.urlMax, { error: 'provisioning.url_invalid' })
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password;
      } catch {
        return false;
      }
    },
    { error: 'provisioning.url_invalid' },
  );

export const provisioningTarget = z.object({
  /** The SCIM service's base address (`/Users` and `/ServiceProviderConfig` are under it). */
  baseUrl: z.string(),
  /** Whether a bearer token is saved (it is never sent back). */
  tokenSet: z.boolean(),
  userNameFrom: z.enum(provisioningUserNameSources),
  attributes: z.array(z.enum(provisioningAttributes)),
  lifecycle: z.enum(provisioningLifecycles),
  onLoss: z.enum(provisioningLossActions),
  enabled: z.boolean(),
  updatedAt: z.string(),
});

export const provisioningCounts = z.object({
  created: z.number().int(),
  adopted: z.number().int(),
  updated: z.number().int(),
  deactivated: z.number().int(),
  deleted: z.number().int(),
  unchanged: z.number().int(),
  failed: z.number().int(),
});

export const provisioningRun = z.object({
  runId: z.string(),
  trigger: z.enum(provisioningRunTriggers),
  status: z.enum(provisioningRunStatuses),
  requestedBy: z.string().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  /** Tries of the run's job so far. */
  attempts: z.number().int(),
  counts: provisioningCounts,
  /** Localised problems: of the whole target (refused address, wrong token) or of one person. */
  errors: z.array(z.object({ reason: z.string(), message: z.string(), username: z.string().nullable() })),
});

export const provisioningDetail = defineCall({
  path: '/api/v1/manage/app/provisioning/detail',
  summary: "An application's SCIM provisioning target (null when it has none); the token is never returned",
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'read' },
  request: z.object({ appId }),
  response: z.object({ target: provisioningTarget.nullable(), lastRun: provisioningRun.nullable() }),
});

export const updateProvisioning = defineCall({
  path: '/api/v1/manage/app/provisioning/update',
  summary:
    "Set an application's SCIM target (a token left out keeps the saved one; the first save needs one)",
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  request: z.object({
    appId,
    baseUrl,
    token: z
      .string({ error: 'provisioning.token_required' })
      .trim()
      .max(provisioningLimits.tokenMax, { error: 'provisioning.token_too_long' })
      .optional()
      .transform((value) => value || undefined),
    userNameFrom: z.enum(provisioningUserNameSources, { error: 'provisioning.user_name_from_invalid' }),
    attributes: z
      .array(z.enum(provisioningAttributes, { error: 'provisioning.attribute_invalid' }))
      .max(provisioningAttributes.length),
    lifecycle: z.enum(provisioningLifecycles, { error: 'provisioning.lifecycle_invalid' }),
    onLoss: z.enum(provisioningLossActions, { error: 'provisioning.on_loss_invalid' }),
    enabled: z.boolean(),
  }),
  response: provisioningTarget,
});

export const removeProvisioning = defineCall({
  path: '/api/v1/manage/app/provisioning/remove',
  summary: "Remove an application's SCIM target (nothing is sent to it any more; remote accounts stay)",
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  request: z.object({ appId }),
  response: z.null(),
});

export const testProvisioning = defineCall({
  path: '/api/v1/manage/app/provisioning/test',
  summary:
    "Read the saved target's ServiceProviderConfig: whether it answers the token, and what it supports",
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  request: z.object({ appId }),
  response: z.object({
    ok: z.boolean(),
    /** The HTTP status of the answer (null when none came). */
    status: z.number().int().nullable(),
    patchSupported: z.boolean(),
    filterSupported: z.boolean(),
    /** Localised reason when not ok. */
    message: z.string().nullable(),
  }),
});

export const previewProvisioning = defineCall({
  path: '/api/v1/manage/app/provisioning/preview',
  summary:
    'What the next run would create, update and deactivate (or delete), from the access rule and what was sent; nothing is sent',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'read' },
  request: z.object({ appId }),
  response: z.object({
    counts: z.object({
      create: z.number().int(),
      update: z.number().int(),
      deactivate: z.number().int(),
      delete: z.number().int(),
      unchanged: z.number().int(),
    }),
    /** The people concerned (at most 500), in username order. */
    list: z.array(
      z.object({
        userId: z.string(),
        username: z.string(),
        name: z.string().nullable(),
        action: z.enum(provisioningActions),
      }),
    ),
  }),
});

export const runProvisioning = defineCall({
  path: '/api/v1/manage/app/provisioning/run',
  summary: 'Run provisioning now (a job; a run already waiting is answered instead of a second one)',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  request: z.object({ appId }),
  response: provisioningRun,
});

export const listProvisioningRuns = defineCall({
  path: '/api/v1/manage/app/provisioning/runs',
  summary: "An application's provisioning runs, newest first, with counts and errors",
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'read' },
  request: z.object({ appId, ...paging }),
  response: z.object({ list: z.array(provisioningRun), total: z.number().int() }),
});
