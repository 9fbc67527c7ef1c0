import { z } from 'zod';
import { defineCall, emptyRequest } from '../call.ts';
import { syslogLimits, syslogProtocols } from '../constants.ts';

/**
 * Syslog forwarding of a company (spec §3 Company syslog settings: enable, protocol, IP, port,
 * log tag; §4 its status is switched through an update call). Every sign-in, administration and
 * alert event of the company is sent as RFC 5424 with the event's fields as structured data,
 * over UDP, TCP or TLS (octet counting, RFC 6587), at least once and in order.
 */

export const syslogSettings = z.object({
  /** Whether events are forwarded: switched by syslog/update (spec §4). */
  enabled: z.boolean(),
  protocol: z.enum(syslogProtocols),
  host: z.string(),
  port: z.number().int(),
  tag: z.string(),
  /** The CA that signs the server's certificate (TLS), PEM; null: the system's trusted CAs. */
  caPem: z.string().nullable(),
  /** False until the first update. */
  configured: z.boolean(),
});

export const syslogConf = defineCall({
  path: '/api/v1/manage/company/syslog/conf',
  summary: "The company's syslog forwarding settings",
  tag: 'Company',
  auth: 'session',
  tenant: true,
  access: { groups: ['companySettings'], level: 'read' },
  request: emptyRequest,
  response: syslogSettings,
});

export const updateSyslog = defineCall({
  path: '/api/v1/manage/company/syslog/update',
  summary:
    'Set the syslog server, protocol, port and log tag, and switch forwarding on or off (the status of spec §4). Loopback, link-local and metadata addresses are refused',
  tag: 'Company',
  auth: 'session',
  tenant: true,
  access: { groups: ['companySettings'], level: 'manage' },
  request: z.object({
    enabled: z.boolean(),
    protocol: z.enum(syslogProtocols),
    host: z
      .string({ error: 'syslog.host_required' })
      .trim()
      .min(1, { error: 'syslog.host_required' })
      .max(syslogLimits.hostMax, { error: 'syslog.host_invalid' }),
    port: z
      .number({ error: 'syslog.port_range' })
      .int({ error: 'syslog.port_range' })
      .min(1, { error: 'syslog.port_range' })
      .max(65535, { error: 'syslog.port_range' }),
    tag: z
      .string()
      .trim()
      .default(syslogLimits.defaultTag)
      .pipe(z.string().regex(syslogLimits.tagPattern, { error: 'syslog.tag_invalid' })),
    caPem: z
      .string()
      .trim()
      .max(syslogLimits.caPemBytes, { error: 'syslog.ca_invalid' })
      .transform((value) => (value === '' ? null : value))
      .nullable()
      .optional(),
  }),
  response: syslogSettings,
});

export const syslogStatus = defineCall({
  path: '/api/v1/manage/company/syslog/status',
  summary:
    'Delivery status of syslog forwarding: delivered up to when, how many events wait (the backlog), the last error. Its payload is empty: forwarding is switched on and off by syslog/update',
  tag: 'Company',
  auth: 'session',
  tenant: true,
  access: { groups: ['companySettings'], level: 'read' },
  request: emptyRequest,
  response: z.object({
    enabled: z.boolean(),
    configured: z.boolean(),
    /** When the receiver last took events, and the time of the newest event it took. */
    deliveredAt: z.string().nullable(),
    deliveredUpTo: z.string().nullable(),
    deliveredCount: z.number().int(),
    backlog: z.number().int(),
    oldestWaitingAt: z.string().nullable(),
    lastError: z.string().nullable(),
    lastErrorAt: z.string().nullable(),
  }),
});
