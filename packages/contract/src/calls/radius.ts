import { z } from 'zod';
import { defineCall, emptyRequest, entityId } from '../call.ts';
import { radiusAccessModes, radiusLimits, radiusOtpModes } from '../constants.ts';

/**
 * RADIUS clients of a company (spec §1 RADIUS, §2 /safety-management/radius): the network
 * devices (VPN gateways, Wi-Fi controllers, switches) that sign people in through Tessera's
 * RADIUS server. Each has a source address or range, a shared secret shown once, an on/off
 * switch, who may use it and how people give their second factor.
 */

const id = entityId;

const name = z
  .string({ error: 'radius.name_required' })
  .trim()
  .min(1, { error: 'radius.name_required' })
  .max(radiusLimits.nameMax, { error: 'radius.name_too_long' });

/** An IPv4 or IPv6 address, or a CIDR range (checked on the server, which normalises it). */
const source = z
  .string({ error: 'radius.source_required' })
  .trim()
  .min(1, { error: 'radius.source_required' })
  .max(radiusLimits.sourceMax, { error: 'radius.source_invalid' });

const departmentIds = z.array(id).max(radiusLimits.departmentsMax);

export const radiusClientStats = z.object({
  accepts: z.number().int(),
  rejects: z.number().int(),
  challenges: z.number().int(),
  /** Requests dropped for a missing Message-Authenticator (RFC 3579, Blast-RADIUS). */
  droppedNoAuthenticator: z.number().int(),
  /** Requests dropped for a wrong Message-Authenticator: a wrong shared secret or a forgery. */
  droppedBadAuthenticator: z.number().int(),
  lastRequestAt: z.string().nullable(),
});

export const radiusClient = z.object({
  clientId: z.string(),
  name: z.string(),
  /** The address or CIDR range requests must come from, normalised (`10.0.0.0/24`). */
  source: z.string(),
  enabled: z.boolean(),
  access: z.enum(radiusAccessModes),
  /** With access `restricted`: the departments (and their sub departments) whose people may use it. */
  departments: z.array(z.object({ departmentId: z.string(), name: z.string() })),
  otpMode: z.enum(radiusOtpModes),
  /** In challenge mode: people without an authenticator app get the code by SMS (issue 29). */
  smsCodes: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
  stats: radiusClientStats,
});

export const listRadiusClients = defineCall({
  path: '/api/v1/manage/radius/client/list',
  summary: "The company's RADIUS clients with their counters, and how the RADIUS server is reached",
  tag: 'RADIUS',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'read' },
  request: emptyRequest,
  response: z.object({
    list: z.array(radiusClient),
    server: z.object({
      /** The UDP port of the RADIUS server, or null when it is off on this installation. */
      port: z.number().int().nullable(),
      challengeSeconds: z.number().int(),
    }),
  }),
});

export const createRadiusClient = defineCall({
  path: '/api/v1/manage/radius/client/create',
  summary: 'Add a RADIUS client; its shared secret is answered once',
  tag: 'RADIUS',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'manage' },
  request: z.object({
    name,
    source,
    enabled: z.boolean().default(true),
    access: z.enum(radiusAccessModes).default('all'),
    departmentIds: departmentIds.default([]),
    otpMode: z.enum(radiusOtpModes).default('challenge'),
    smsCodes: z.boolean().default(false),
  }),
  response: z.object({ client: radiusClient, secret: z.string() }),
});

export const updateRadiusClient = defineCall({
  path: '/api/v1/manage/radius/client/update',
  summary: 'Change a RADIUS client (name, source, on/off, who may use it, second-factor mode)',
  tag: 'RADIUS',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'manage' },
  request: z.object({
    clientId: id,
    name: name.optional(),
    source: source.optional(),
    enabled: z.boolean().optional(),
    access: z.enum(radiusAccessModes).optional(),
    departmentIds: departmentIds.optional(),
    otpMode: z.enum(radiusOtpModes).optional(),
    smsCodes: z.boolean().optional(),
  }),
  response: radiusClient,
});

export const resetRadiusSecret = defineCall({
  path: '/api/v1/manage/radius/client/secret/reset',
  summary:
    "Replace a RADIUS client's shared secret; the new one is answered once and the old one stops working",
  tag: 'RADIUS',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'manage' },
  request: z.object({ clientId: id }),
  response: z.object({ secret: z.string() }),
});

export const deleteRadiusClient = defineCall({
  path: '/api/v1/manage/radius/client/del',
  summary: 'Remove a RADIUS client; its requests are dropped from then on',
  tag: 'RADIUS',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'manage' },
  request: z.object({ clientId: id }),
  response: z.object({ clientId: z.string() }),
});
