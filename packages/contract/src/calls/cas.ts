import { z } from 'zod';
import { defineCall } from '../call.ts';
import {
  casAttributeSources,
  casLimits,
  casPatternKinds,
  casPatternProblem,
  casServiceMatches,
} from '../cas.ts';
import { appId } from './app-shared.ts';

/**
 * CAS applications (Apereo CAS Protocol 3.0): the service URL patterns of an app, the attributes
 * it is told, its ticket lifetime, proxying and single logout; and the company's CAS server
 * address that the application is configured with.
 */

const pattern = z
  .object({
    kind: z.enum(casPatternKinds, { error: 'cas.pattern_kind_invalid' }),
    value: z
      .string({ error: 'cas.pattern_required' })
      .trim()
      .min(1, { error: 'cas.pattern_required' })
      .max(casLimits.patternMax, { error: 'cas.pattern_too_long' }),
  })
  .superRefine((value, ctx) => {
    const problem = casPatternProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', path: ['value'], message: `cas.pattern_${problem}` });
  });

/** The single-logout address: an http(s) URL that one of the patterns allows. */
const sloUrl = z
  .string()
  .trim()
  .max(casLimits.patternMax, { error: 'cas.slo_url_invalid' })
  .transform((value) => value || null)
  .nullable();

export const casSettings = z.object({
  /** The company's CAS server: `/login`, `/serviceValidate`, … are under it. */
  serverUrl: z.string(),
  servicePatterns: z.array(z.object({ kind: z.enum(casPatternKinds), value: z.string() })),
  attributes: z.array(z.enum(casAttributeSources)),
  ticketTtl: z.number().int(),
  allowProxy: z.boolean(),
  /** Where single logout is posted; null: to the service URL each ticket was issued for. */
  sloUrl: z.string().nullable(),
  /** Whether single logout is sent at all. */
  sloEnabled: z.boolean(),
});

export const casDetail = defineCall({
  path: '/api/v1/manage/app/cas/detail',
  summary: 'The CAS settings of an application, and the CAS server address of the company',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'read' },
  request: z.object({ appId }),
  response: casSettings,
});

export const updateCas = defineCall({
  path: '/api/v1/manage/app/cas/update',
  summary: 'Change the CAS settings of an application (fields left out stay as they are)',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  request: z
    .object({
      appId,
      servicePatterns: z
        .array(pattern)
        .min(1, { error: 'cas.pattern_required' })
        .max(casLimits.patternsMax, { error: 'cas.patterns_too_many' })
        .optional(),
      attributes: z.array(z.enum(casAttributeSources)).max(casAttributeSources.length).optional(),
      ticketTtl: z
        .number({ error: 'cas.ticket_ttl_range' })
        .int({ error: 'cas.ticket_ttl_range' })
        .min(casLimits.ticketTtlMin, { error: 'cas.ticket_ttl_range' })
        .max(casLimits.ticketTtlMax, { error: 'cas.ticket_ttl_range' })
        .optional(),
      allowProxy: z.boolean().optional(),
      sloUrl: sloUrl.optional(),
      sloEnabled: z.boolean().optional(),
    })
    .superRefine((value, ctx) => {
      // A logout address in the same request must be one of the services (the saved patterns are checked by the server).
      if (
        value.sloUrl &&
        value.servicePatterns &&
        !value.servicePatterns.some((p) => casServiceMatches(p, value.sloUrl as string))
      )
        ctx.addIssue({ code: 'custom', path: ['sloUrl'], message: 'cas.slo_url_invalid' });
    }),
  response: casSettings,
});
