import { z } from 'zod';
import { defineCall, emptyRequest, entityId, optionalText, paging } from '../call.ts';
import {
  deviceAccessPermissions,
  deviceActivationPolicies,
  deviceActivations,
  devicePermissions,
  devicePolicyModes,
  deviceStatuses,
  exchangeCredentialModes,
  exchangeLimits,
  isProtectedWebUrl,
  TIME_OF_DAY_PATTERN,
} from '../constants.ts';

/**
 * The Exchange agent and the devices that sync through it (spec §3 Device and Security, §4,
 * §5, §6, §7 `user/exchange/admin/device/list` and `/del`). Settings live under the safety
 * calls (the general screen's device passwords, the exchange screen); devices under the user
 * calls of §7.
 */

const int = (range: { min: number; max: number }, reason: string) =>
  z
    .number({ error: reason })
    .int({ error: reason })
    .min(range.min, { error: reason })
    .max(range.max, { error: reason });

// ---- device passwords and the registration token (general safety screen; spec §3 Security)

export const devicePasswordSettings = z.object({
  /** Spec §5: characters in a generated device password (default 16). */
  devicePasswordDigits: int(exchangeLimits.devicePasswordDigits, 'exchange.password_digits_range'),
  /** Spec §5: days between rotations (default 7, at most 90). */
  rotationDays: int(exchangeLimits.rotationDays, 'exchange.rotation_days_range'),
});

export const getDeviceSettings = defineCall({
  path: '/api/v1/manage/safety/device',
  summary: 'Device password length and rotation, and when the registration token was last replaced',
  tag: 'Exchange',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'read' },
  request: emptyRequest,
  response: devicePasswordSettings.extend({ tokenRotatedAt: z.string() }),
});

export const updateDeviceSettings = defineCall({
  path: '/api/v1/manage/safety/device/update',
  summary: 'Change the device password length and rotation (rotation applies from the next run)',
  tag: 'Exchange',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'manage' },
  request: devicePasswordSettings,
  response: devicePasswordSettings.extend({ tokenRotatedAt: z.string() }),
});

const registrationToken = z.object({ token: z.string(), rotatedAt: z.string() });

export const getRegistrationToken = defineCall({
  path: '/api/v1/manage/safety/device/token',
  summary:
    "The company's device registration token, which phones send once to register (owner and administrators)",
  tag: 'Exchange',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'manage' },
  request: emptyRequest,
  response: registrationToken,
});

export const rotateRegistrationToken = defineCall({
  path: '/api/v1/manage/safety/device/token/rotate',
  summary: 'Replace the device registration token; the old one registers nothing from now on',
  tag: 'Exchange',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'manage' },
  request: emptyRequest,
  response: registrationToken,
});

// ---- the agent (exchange screen)

/**
 * Why an Exchange address is refused, or null: an http(s) origin with an optional path, without
 * user info, query or fragment, and protected on the way (the agent sends credentials to it):
 * https, or http to the loopback host only.
 */
export function exchangeUrlProblem(value: string): 'invalid' | 'http' | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'invalid';
  }
  if (!['https:', 'http:'].includes(url.protocol) || url.username || url.password) return 'invalid';
  if (url.search || url.hash || value.includes('?') || value.includes('#')) return 'invalid';
  return isProtectedWebUrl(url) ? null : 'http';
}

const exchangeUrl = z
  .string()
  .trim()
  .max(exchangeLimits.urlMax, { error: 'exchange.url_invalid' })
  .superRefine((value, ctx) => {
    if (!value) return;
    const problem = exchangeUrlProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: `exchange.url_${problem}`, input: value });
  })
  .transform((value) => (value ? value.replace(/\/+$/, '') : null));

const exchangeShape = {
  /** The agent answers phones of this company only while enabled. */
  enabled: z.boolean(),
  /** Where Exchange is (`https://mail.example.com`); the agent adds /Microsoft-Server-ActiveSync. */
  exchangeUrl: exchangeUrl.nullable().optional(),
  /** service: the company's service account signs in for everyone; personal: each person's own Exchange sign-in. */
  credentialMode: z.enum(exchangeCredentialModes),
  serviceUsername: optionalText(exchangeLimits.serviceUsernameMax),
  /** approval: new devices wait for the person (with device permission) or an administrator; automatic: active at once. */
  activation: z.enum(deviceActivationPolicies),
  /** Spec §5, §9: devices one person may register (default 3). */
  userDeviceLimit: int(exchangeLimits.userDeviceLimit, 'exchange.device_limit_range'),
  /** Spec §6: the device-management permission new people get. */
  defaultDevicePermission: z.enum(devicePermissions),
};

export const exchangeSettings = z.object({
  ...exchangeShape,
  exchangeUrl: z.string().nullable(),
  serviceUsername: z.string().nullable(),
  /** Whether a service password is stored (it is never sent back). */
  servicePasswordSet: z.boolean(),
  /** The address phones are set up with (the agent's own). */
  agentUrl: z.string(),
});

export const getExchangeSettings = defineCall({
  path: '/api/v1/manage/safety/exchange',
  summary: "The company's Exchange agent: Exchange address, how it signs in, device registration rules",
  tag: 'Exchange',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'read' },
  request: emptyRequest,
  response: exchangeSettings,
});

export const updateExchangeSettings = defineCall({
  path: '/api/v1/manage/safety/exchange/update',
  summary: 'Change the Exchange agent; an empty service password keeps the stored one',
  tag: 'Exchange',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'manage' },
  request: z.object({
    ...exchangeShape,
    servicePassword: z
      .string()
      .max(exchangeLimits.servicePasswordMax, { error: 'exchange.service_password_too_long' })
      .optional(),
  }),
  response: exchangeSettings,
});

// ---- devices (spec §3 Device, §4, §7)

const deviceId = z.string({ error: 'device.not_found' }).trim().min(1, { error: 'device.not_found' }).max(64);
const deviceIds = z
  .array(deviceId)
  .min(1, { error: 'device.none_chosen' })
  .max(exchangeLimits.batchMax)
  .transform((ids) => [...new Set(ids)]);

const validTimeZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

const timeOfDay = z.string().regex(TIME_OF_DAY_PATTERN, { error: 'device.policy_time_invalid' });

export const policyWindow = z
  .object({
    /** ISO weekdays, 1 Monday … 7 Sunday. */
    days: z
      .array(z.number().int().min(1).max(7), { error: 'device.policy_days_required' })
      .min(1, { error: 'device.policy_days_required' })
      .max(7)
      .transform((days) => [...new Set(days)].sort()),
    /** `HH:MM`; a window whose end is before its start runs over midnight. */
    start: timeOfDay,
    end: timeOfDay,
  })
  .refine((window) => window.start !== window.end, { error: 'device.policy_window_empty', path: ['end'] });

/** A device's own rule: allowed only within its time windows, or blocked within them. */
export const devicePolicy = z.object({
  mode: z.enum(devicePolicyModes),
  /** The time zone the windows are in (IANA, e.g. Asia/Shanghai). */
  timeZone: z
    .string()
    .trim()
    .min(1, { error: 'device.time_zone_invalid' })
    .max(64)
    .refine(validTimeZone, { error: 'device.time_zone_invalid' }),
  windows: z
    .array(policyWindow)
    .min(1, { error: 'device.policy_windows_required' })
    .max(exchangeLimits.policyWindowsMax, { error: 'device.policy_windows_too_many' }),
});

export const device = z.object({
  deviceId: z.string(),
  /** The DeviceId the phone sends (MS-ASHTTP). */
  activeSyncId: z.string(),
  name: z.string(),
  /** Spec §3: operating system, as the phone's User-Agent tells it. */
  os: z.string().nullable(),
  /** Spec §3: type, the DeviceType the phone sends (iPhone, Android...). */
  type: z.string(),
  userAgent: z.string().nullable(),
  user: z.object({ userId: z.string(), username: z.string(), name: z.string().nullable() }),
  /** Spec §4: to be activated, active. */
  activation: z.enum(deviceActivations),
  /** Spec §4: enabled or disabled. */
  status: z.enum(deviceStatuses),
  /** Spec §4: online while it has traffic (a held Ping counts). */
  online: z.boolean(),
  accessPermission: z.enum(deviceAccessPermissions),
  /** Spec §3: the custom policy, or null (no time rule). */
  policy: devicePolicy.nullable(),
  registeredAt: z.string(),
  activatedAt: z.string().nullable(),
  lastLoginAt: z.string().nullable(),
  lastOfflineAt: z.string().nullable(),
  lastSeenAt: z.string().nullable(),
  lastIp: z.string().nullable(),
  passwordSetAt: z.string().nullable(),
  /** A new device password waits for its person to see it in the user centre. */
  passwordPending: z.boolean(),
});

export const deviceFilter = z.object({
  /** One person's devices (the user page). */
  userId: entityId.optional(),
  /** The person: username, name, email or phone. */
  keyword: z.string().trim().max(exchangeLimits.keywordMax).optional(),
  os: z.string().trim().max(64).optional(),
  type: z.string().trim().max(64).optional(),
  status: z.enum(deviceStatuses).optional(),
  activation: z.enum(deviceActivations).optional(),
  online: z.boolean().optional(),
});

export const listDevices = defineCall({
  path: '/api/v1/manage/user/exchange/admin/device/list',
  summary: "The company's Exchange devices, filtered by person, operating system, type, status and online",
  tag: 'Exchange',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'read' },
  request: deviceFilter.extend(paging).default({ page: 1, pageSize: 20 }),
  response: z.object({
    list: z.array(device),
    total: z.number().int(),
    /** The operating systems and types the company's devices have (the filters' choices). */
    osOptions: z.array(z.string()),
    typeOptions: z.array(z.string()),
  }),
});

export const deleteDevices = defineCall({
  path: '/api/v1/manage/user/exchange/admin/device/del',
  summary: 'Remove devices: they stop syncing at once and must register again',
  tag: 'Exchange',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'manage' },
  request: z.object({ deviceIds }),
  response: z.object({ removed: z.number().int() }),
});

export const deviceEvent = z.object({
  eventId: z.string(),
  at: z.string(),
  result: z.enum(['success', 'failure']),
  cause: z.string().nullable(),
  ip: z.string().nullable(),
});

export const deviceDetail = defineCall({
  path: '/api/v1/manage/user/exchange/admin/device/detail',
  summary: "One device, with the agent's recent decisions about it",
  tag: 'Exchange',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'read' },
  request: z.object({ deviceId }),
  response: z.object({ device, events: z.array(deviceEvent), ownerPermission: z.enum(devicePermissions) }),
});

export const approveDevices = defineCall({
  path: '/api/v1/manage/user/exchange/admin/device/approve',
  summary: 'Activate devices that wait; each gets a password its person sees once in the user centre',
  tag: 'Exchange',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'manage' },
  request: z.object({ deviceIds }),
  response: z.object({ approved: z.number().int() }),
});

export const setDeviceStatus = defineCall({
  path: '/api/v1/manage/user/exchange/admin/device/status',
  summary: 'Enable or disable devices; a disabled device is refused at once',
  tag: 'Exchange',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'manage' },
  request: z.object({ deviceIds, status: z.enum(deviceStatuses) }),
  response: z.object({ changed: z.number().int() }),
});

export const updateDevice = defineCall({
  path: '/api/v1/manage/user/exchange/admin/device/update',
  summary: "Change a device's name, access permission and custom policy (null: no time rule)",
  tag: 'Exchange',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'manage' },
  request: z.object({
    deviceId,
    name: z
      .string()
      .trim()
      .min(1, { error: 'device.name_required' })
      .max(exchangeLimits.deviceNameMax, { error: 'device.name_too_long' }),
    accessPermission: z.enum(deviceAccessPermissions),
    policy: devicePolicy.nullable(),
  }),
  response: device,
});

export const devicePermissionOf = defineCall({
  path: '/api/v1/manage/user/exchange/admin/permission',
  summary: "A person's permission on device management (spec §6) and how many devices they have",
  tag: 'Exchange',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'read' },
  request: z.object({ userId: entityId }),
  response: z.object({
    permission: z.enum(devicePermissions),
    devices: z.number().int(),
    limit: z.number().int(),
  }),
});

export const setDevicePermission = defineCall({
  path: '/api/v1/manage/user/exchange/admin/permission/update',
  summary: "Set a person's permission on device management: ordinary user or administrator (spec §6)",
  tag: 'Exchange',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'manage' },
  request: z.object({ userId: entityId, permission: z.enum(devicePermissions) }),
  response: z.object({ permission: z.enum(devicePermissions) }),
});
