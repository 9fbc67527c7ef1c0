import { z } from 'zod';
import { defineCall, entityId, paging } from '../call.ts';
import { QUANTITY_MAX, quantityModules } from '../constants.ts';

/**
 * Company quotas: how many users and applications each company may have, set by platform
 * administrators, within the installation licence. A quota of null means "no limit beyond the
 * licence". The calls are the platform's (no company header); anyone else is refused.
 */

/** A company's quota of one counted function: a whole number, or null for no limit beyond the licence. */
export const quotaValue = z
  .number({ error: 'quota.invalid' })
  .int({ error: 'quota.invalid' })
  .min(0, { error: 'quota.invalid' })
  .max(QUANTITY_MAX, { error: 'quota.invalid' })
  .nullable();

export const companyQuotaState = z.object({
  module: z.enum(quantityModules),
  /** null: no limit beyond the licence. */
  quota: z.number().int().nullable(),
  used: z.number().int(),
});

export const companyQuotaRow = z.object({
  companyId: z.string(),
  name: z.string(),
  ownerUsername: z.string(),
  createdAt: z.string(),
  quotas: z.array(companyQuotaState),
});

export const companyQuotaList = defineCall({
  path: '/api/v1/manage/license/quota/list',
  summary:
    'Companies with their quotas and usage of users and applications, paged and searchable by name or id (platform administrators)',
  tag: 'Licence',
  auth: 'session',
  tenant: false,
  request: z
    .object({ ...paging, keyword: z.string().trim().max(100).optional() })
    .default({ page: 1, pageSize: 20 }),
  response: z.object({ list: z.array(companyQuotaRow), total: z.number().int() }),
});

export const setCompanyQuota = defineCall({
  path: '/api/v1/manage/license/quota/update',
  summary:
    "Set a company's quotas (a number, or null for no limit beyond the licence). A quota below the company's current usage needs confirmBelowUsage: nothing is removed, and new ones are refused until usage is below it (platform administrators)",
  tag: 'Licence',
  auth: 'session',
  tenant: false,
  request: z.object({
    companyId: entityId,
    quotas: z
      .object({ user: quotaValue.optional(), app: quotaValue.optional() })
      .refine((quotas) => quantityModules.some((module) => quotas[module] !== undefined), {
        error: 'quota.nothing_to_set',
      }),
    confirmBelowUsage: z.boolean().default(false),
  }),
  response: companyQuotaRow,
});
