import { z } from 'zod';
import { defineCall, emptyRequest } from '../call.ts';

/**
 * The installation's setup, as the platform administrator sees it in the platform console: each
 * setting that shapes what companies can do, with its state and the variable that sets it; and
 * the one setting kept in the database, who may create companies. The calls are the platform's
 * (no company header); anyone but a platform administrator is refused, except the question
 * whether the caller may create a company.
 */

/** Who may create companies: every signed-in person (in the developer console), or platform administrators only. */
export const companyCreationModes = ['everyone', 'platform_admins'] as const;
export type CompanyCreationMode = (typeof companyCreationModes)[number];

/** The installation settings the setup page lists, in its order. */
export const setupItemKeys = [
  'publicUrl',
  'mail',
  'outboundNetworks',
  'trustedProxies',
  'metrics',
  'radius',
  'licence',
  'backups',
  'companyCreation',
] as const;
export type SetupItemKey = (typeof setupItemKeys)[number];

/** ok: set as an installation serving people needs it; attention: works, with a limit the page explains; off: not in use. */
export const setupStates = ['ok', 'attention', 'off'] as const;

export const setupItem = z.object({
  key: z.enum(setupItemKeys),
  state: z.enum(setupStates),
  /** The current value as shown (never a secret); null when there is none. */
  value: z.string().nullable(),
  /** The environment variables that set it (empty: it is set on the page itself). */
  variables: z.array(z.string()),
});

export const platformSetup = defineCall({
  path: '/api/v1/manage/platform/setup',
  summary:
    'The installation settings that shape what companies can do, each with its state, current value and the variables that set it (platform administrators)',
  tag: 'Platform',
  auth: 'session',
  tenant: false,
  request: emptyRequest,
  response: z.object({ items: z.array(setupItem) }),
});

export const companyCreationState = z.object({
  mode: z.enum(companyCreationModes),
  /** Whether the caller may create a company (the developer console's create-company page asks). */
  mayCreate: z.boolean(),
});

export const companyCreation = defineCall({
  path: '/api/v1/manage/platform/company-creation',
  summary: 'Who may create companies on this installation, and whether the caller may',
  tag: 'Platform',
  auth: 'session',
  tenant: false,
  request: emptyRequest,
  response: companyCreationState,
});

export const setCompanyCreation = defineCall({
  path: '/api/v1/manage/platform/company-creation/update',
  summary:
    'Set who may create companies: everyone, or platform administrators only (platform administrators; audited)',
  tag: 'Platform',
  auth: 'session',
  tenant: false,
  request: z.object({ mode: z.enum(companyCreationModes, { error: 'platform.company_creation_invalid' }) }),
  response: companyCreationState,
});
