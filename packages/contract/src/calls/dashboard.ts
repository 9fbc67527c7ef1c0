import { z } from 'zod';
import { defineCall, emptyRequest } from '../call.ts';
import { dashboardWindows, logReadAccess, mfaModes, signInMarks } from '../constants.ts';
import { place } from './log.ts';

/**
 * The dashboard (spec §2, §3 Dashboard statistics, §7 /api/v1/manage/index/*), over the windows
 * of §9: the last 7 days (`week`), the last month (`month`, 30 days) and the last three days
 * (`three_days`). Days are counted in the caller's time zone (IANA name, default UTC).
 */

const windowRequest = (fallback: (typeof dashboardWindows)[number]) =>
  z
    .object({
      window: z.enum(dashboardWindows).default(fallback),
      timeZone: z.string().trim().min(1).max(64).default('UTC'),
    })
    .default({ window: fallback, timeZone: 'UTC' });

const range = { from: z.string(), to: z.string() };

const tag = 'Dashboard';
/**
 * The dashboard is every console user's first screen (spec §2: pinned), whatever their console
 * role: its counts are for anyone who reaches the console. Its lists of people's sign-ins and
 * failures are log data (spec §6 log group), as on the log screen; the console leaves their
 * panels out for a role that may not read the log.
 */
const base = { tag, auth: 'session', tenant: true, access: 'console' } as const;
const logBase = { ...base, access: logReadAccess } as const;

export const userDataOverview = defineCall({
  ...base,
  path: '/api/v1/manage/index/user-data-overview',
  summary: 'Users of the company by status, new and active in the last 7 days',
  request: emptyRequest,
  response: z.object({
    total: z.number().int(),
    enabled: z.number().int(),
    disabled: z.number().int(),
    locked: z.number().int(),
    administrators: z.number().int(),
    newLast7Days: z.number().int(),
    activeLast7Days: z.number().int(),
  }),
});

export const userLoginTrend = defineCall({
  ...base,
  path: '/api/v1/manage/index/user-login-trend',
  summary: 'Sign-in attempts per day in the window: successes and failures',
  request: windowRequest('week'),
  response: z.object({
    ...range,
    days: z.array(z.object({ day: z.string(), success: z.number().int(), failure: z.number().int() })),
  }),
});

export const userMfaInfo = defineCall({
  ...base,
  path: '/api/v1/manage/index/user-mfa-info',
  summary: "Second factors: the company's policy, users with and without one, users per kind",
  request: emptyRequest,
  response: z.object({
    mode: z.enum(mfaModes),
    users: z.number().int(),
    withFactor: z.number().int(),
    withoutFactor: z.number().int(),
    byType: z.array(z.object({ type: z.string(), users: z.number().int() })),
  }),
});

const appCount = z.object({ appId: z.string(), name: z.string(), count: z.number().int() });

export const appLoginCount = defineCall({
  ...base,
  path: '/api/v1/manage/index/app-login-count',
  summary: 'Applications by status and the three with the most sign-ins in the window',
  request: windowRequest('week'),
  response: z.object({
    ...range,
    total: z.number().int(),
    opened: z.number().int(),
    disabled: z.number().int(),
    toBeConfigured: z.number().int(),
    signIns: z.number().int(),
    top: z.array(appCount),
  }),
});

export const appLoginTrend = defineCall({
  ...base,
  path: '/api/v1/manage/index/app-login-trend',
  summary: 'Successful sign-ins per day of the five most used applications in the window',
  request: windowRequest('week'),
  response: z.object({
    ...range,
    apps: z.array(z.object({ appId: z.string(), name: z.string() })),
    days: z.array(z.object({ day: z.string(), counts: z.array(z.number().int()) })),
  }),
});

export const appLoginCountRatio = defineCall({
  ...base,
  path: '/api/v1/manage/index/app-login-count-ratio',
  summary: "Each application's share of the successful sign-ins in the window (top five and the rest)",
  request: windowRequest('week'),
  response: z.object({
    ...range,
    total: z.number().int(),
    list: z.array(appCount.extend({ share: z.number() })),
    others: z.number().int(),
  }),
});

export const recentEvent = z.object({
  id: z.string(),
  time: z.string(),
  userId: z.string().nullable(),
  username: z.string().nullable(),
  identifier: z.string(),
  appName: z.string().nullable(),
  cause: z.string().nullable(),
  causeText: z.string().nullable(),
  ip: z.string().nullable(),
  place: place.nullable(),
  marks: z.array(z.enum(signInMarks)),
});

const recentRequest = z.object({ limit: z.number().int().min(1).max(50).default(10) }).default({ limit: 10 });

export const newFailList = defineCall({
  ...logBase,
  path: '/api/v1/manage/index/new-fail-list',
  summary: 'The newest failed sign-ins of the last three days (empty: no errors in the last three days)',
  request: recentRequest,
  response: z.object({ ...range, list: z.array(recentEvent) }),
});

export const newLoginList = defineCall({
  ...logBase,
  path: '/api/v1/manage/index/new-login-list',
  summary:
    'The newest successful sign-ins of the last three days (empty: no one logged in in the last three days)',
  request: recentRequest,
  response: z.object({ ...range, list: z.array(recentEvent) }),
});

export const failureAlert = z.object({
  id: z.string(),
  time: z.string(),
  cause: z.string(),
  causeText: z.string(),
  /** The account the failures were about; null for a company-wide spike. */
  username: z.string().nullable(),
  count: z.number().int(),
  threshold: z.number().int(),
  windowMinutes: z.number().int(),
});

export const failTrend = defineCall({
  ...base,
  path: '/api/v1/manage/index/fail-trend',
  summary: 'Failed sign-ins per day and per cause in the window, and the failure spikes of the last 24 hours',
  request: windowRequest('week'),
  response: z.object({
    ...range,
    causes: z.array(z.object({ cause: z.string(), causeText: z.string(), count: z.number().int() })),
    days: z.array(
      z.object({ day: z.string(), total: z.number().int(), byCause: z.record(z.string(), z.number().int()) }),
    ),
    /** The spikes name people: given to those who may read the log, empty for the others. */
    alerts: z.array(failureAlert),
  }),
});

export const loginHotspot = defineCall({
  ...base,
  path: '/api/v1/manage/index/login-hotspot',
  summary:
    'Sign-ins by country (world) or by province (China) in the window, with first sign-ins from a new country and impossible travel',
  request: z
    .object({
      window: z.enum(dashboardWindows).default('week'),
      timeZone: z.string().trim().min(1).max(64).default('UTC'),
      scope: z.enum(['world', 'china']).default('world'),
    })
    .default({ window: 'week', timeZone: 'UTC', scope: 'world' }),
  response: z.object({
    ...range,
    list: z.array(
      z.object({
        /** ISO 3166-1 alpha-2 (world), or the province's name in English as the geo-IP database has it (china). */
        key: z.string(),
        count: z.number().int(),
        newCountry: z.number().int(),
        impossibleTravel: z.number().int(),
      }),
    ),
    /** Sign-ins from addresses without a place (private networks, unknown addresses). */
    unplaced: z.number().int(),
    /** The geo-IP database, for the attribution its licence asks for. */
    source: z.string(),
  }),
});
