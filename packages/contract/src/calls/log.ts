import { z } from 'zod';
import { defineCall, downloadStream, emptyRequest, entityId } from '../call.ts';
import { exportFormats, languages, logLimits, logRanges, signInMarks } from '../constants.ts';

/**
 * The log screen (spec §2 /log/index): sign-ins (every attempt) and administration (every
 * change), over the ranges of §9 (last month, last three months) or a custom one, filtered,
 * paged and sorted by time on the server, exported as .xlsx or CSV.
 */

const isoTime = z.iso.datetime({ offset: true });

/** The time range of a query: a range of §9, or `custom` with both ends. */
export const logRangeFields = {
  range: z.enum(logRanges).default('month'),
  from: isoTime.optional(),
  to: isoTime.optional(),
};

const pageFields = {
  page: z.number().int().min(1).default(1),
  pageSize: z.number().int().min(1).max(100).default(20),
  order: z.enum(['desc', 'asc']).default('desc'),
};

export const signInLogFilter = z.object({
  ...logRangeFields,
  userId: entityId.optional(),
  appId: entityId.optional(),
  result: z.enum(['success', 'failure']).optional(),
  cause: z.string().trim().min(1).max(40).optional(),
  mark: z.enum(signInMarks).optional(),
});

export const adminLogFilter = z.object({
  ...logRangeFields,
  actorId: entityId.optional(),
  action: z.string().trim().min(1).max(80).optional(),
});

export const place = z.object({
  country: z.string(),
  region: z.string().nullable(),
  city: z.string().nullable(),
});

export const signInLogRow = z.object({
  id: z.string(),
  time: z.string(),
  userId: z.string().nullable(),
  username: z.string().nullable(),
  /** What was typed (the username of an unknown account, say). */
  identifier: z.string(),
  appId: z.string().nullable(),
  appName: z.string().nullable(),
  /** Tessera's own clients (the consoles, the user centre) have no app id. */
  clientId: z.string().nullable(),
  result: z.enum(['success', 'failure']),
  cause: z.string().nullable(),
  causeText: z.string().nullable(),
  ip: z.string().nullable(),
  place: place.nullable(),
  browser: z.string().nullable(),
  os: z.string().nullable(),
  marks: z.array(z.enum(signInMarks)),
  /** A RADIUS sign-in: the NAS-IP-Address and Calling-Station-Id its request carried. */
  nas: z.object({ ip: z.string().nullable(), callingStationId: z.string().nullable() }).nullable(),
  /** How the person proved who they were (`password`, `passkey`, `email_code`, `sms_code`), when recorded. */
  method: z.string().nullable(),
});

export const adminLogRow = z.object({
  id: z.string(),
  time: z.string(),
  actorId: z.string().nullable(),
  actorName: z.string().nullable(),
  action: z.string(),
  targetType: z.string(),
  targetId: z.string().nullable(),
  before: z.unknown(),
  after: z.unknown(),
  ip: z.string().nullable(),
});

const listOf = <T extends z.ZodType>(row: T) =>
  z.object({
    list: z.array(row),
    /** Rows that match, counted up to logLimits.countCap. */
    total: z.number().int(),
    /** True when more rows match than `total` says. */
    totalCapped: z.boolean(),
    from: z.string(),
    to: z.string(),
  });

export const signInLog = defineCall({
  path: '/api/v1/manage/log/sign-in/list',
  summary: 'Sign-in attempts of the company in a range, filtered, paged and sorted by time',
  tag: 'Log',
  auth: 'session',
  tenant: true,
  access: { groups: ['log'], level: 'read' },
  request: signInLogFilter
    .extend(pageFields)
    .default({ range: 'month', page: 1, pageSize: 20, order: 'desc' }),
  response: listOf(signInLogRow),
});

export const adminLog = defineCall({
  path: '/api/v1/manage/log/admin/list',
  summary: 'Administration events (who changed what, before and after) in a range, filtered and paged',
  tag: 'Log',
  auth: 'session',
  tenant: true,
  access: { groups: ['log'], level: 'read' },
  request: adminLogFilter
    .extend(pageFields)
    .default({ range: 'month', page: 1, pageSize: 20, order: 'desc' }),
  response: listOf(adminLogRow),
});

export const adminLogActions = defineCall({
  path: '/api/v1/manage/log/admin/actions',
  summary: 'The administration actions the company has events of (for the action filter)',
  tag: 'Log',
  auth: 'session',
  tenant: true,
  access: { groups: ['log'], level: 'read' },
  request: emptyRequest,
  response: z.object({ list: z.array(z.string()) }),
});

export const exportLog = defineCall({
  path: '/api/v1/manage/log/export',
  summary: `The filtered rows of one view as .xlsx or CSV, streamed (at most ${logLimits.exportRows} rows); cells a spreadsheet would run as formulas are neutralised`,
  tag: 'Log',
  auth: 'session',
  tenant: true,
  access: { groups: ['log'], level: 'read' },
  request: z.discriminatedUnion('view', [
    signInLogFilter.extend({
      view: z.literal('signin'),
      format: z.enum(exportFormats).default('xlsx'),
      language: z.enum(languages).default('en'),
      order: z.enum(['desc', 'asc']).default('desc'),
    }),
    adminLogFilter.extend({
      view: z.literal('admin'),
      format: z.enum(exportFormats).default('xlsx'),
      language: z.enum(languages).default('en'),
      order: z.enum(['desc', 'asc']).default('desc'),
    }),
  ]),
  response: downloadStream,
  download: { contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet or text/csv' },
});

export const logSettings = defineCall({
  path: '/api/v1/manage/log/settings',
  summary: 'How many days the company keeps its sign-in and administration logs',
  tag: 'Log',
  auth: 'session',
  tenant: true,
  access: { groups: ['log'], level: 'read' },
  request: emptyRequest,
  response: z.object({ retentionDays: z.number().int() }),
});

export const updateLogSettings = defineCall({
  path: '/api/v1/manage/log/settings/update',
  summary: 'Set how many days logs are kept; older events are purged by a background job',
  tag: 'Log',
  auth: 'session',
  tenant: true,
  access: { groups: ['log'], level: 'manage' },
  request: z.object({
    retentionDays: z
      .number({ error: 'log.retention_range' })
      .int({ error: 'log.retention_range' })
      .min(logLimits.retentionDays.min, { error: 'log.retention_range' })
      .max(logLimits.retentionDays.max, { error: 'log.retention_range' }),
  }),
  response: z.object({ retentionDays: z.number().int() }),
});
