import { z } from 'zod';
import { defineCall, emptyRequest } from '../call.ts';
import { QUANTITY_MAX, type QuantityModule } from '../constants.ts';

/**
 * Licensed functions. Quantity functions (`quantityModules`: users, applications) count
 * something; the others are switched on until they expire.
 */
export const licenseModules = ['user', 'app', 'mfa', 'identity_source', 'radius', 'ca', 'device'] as const;
export type LicenseModule = (typeof licenseModules)[number];

export const licenseStatuses = ['not_active', 'normal', 'expired'] as const;
export type LicenseStatus = (typeof licenseStatuses)[number];

/** What an installation without a licence may use. */
export const unlicensedAllowance: Record<QuantityModule, number> = { user: 100, app: 10 };

/** The signed content of a licence file. */
export const licensePayload = z.object({
  format: z.literal(1),
  licenseId: z.string().min(1).max(64),
  applicationCode: z.string().min(1).max(64),
  customer: z.string().min(1).max(200),
  issuedAt: z.iso.datetime(),
  modules: z
    .array(
      z.object({
        module: z.enum(licenseModules),
        /** Quantity for `user` and `app`; absent for functions that are simply switched on. */
        total: z.number().int().min(0).max(QUANTITY_MAX).optional(),
        expiresAt: z.iso.datetime(),
      }),
    )
    .min(1)
    .max(licenseModules.length),
});
export type LicensePayload = z.infer<typeof licensePayload>;

export const licenseModuleState = z.object({
  module: z.enum(licenseModules),
  /**
   * Installation scope: the licence's quantity. Company scope: the company's quota, null when
   * the company has no limit beyond the licence. Null for functions that count nothing.
   */
  total: z.number().int().nullable(),
  /** How many are in use (in the installation, or in the company); null for functions that count nothing. */
  used: z.number().int().nullable(),
  remaining: z.number().int().nullable(),
  expiresAt: z.string().nullable(),
  status: z.enum(licenseStatuses),
  /** Whole days until expiry (negative once expired); null when not active. */
  reduceDay: z.number().int().nullable(),
});

/** Whose quantities a licence detail shows: the whole installation's, or the current company's. */
export const licenseScopes = ['installation', 'company'] as const;

export const licenseDetail = defineCall({
  path: '/api/v1/manage/license/detail',
  summary:
    "The licence: each function with its quantity, usage, remaining quantity, expiry and status. Platform administrators see the installation's totals; company administrators their company's quotas and usage",
  tag: 'Licence',
  auth: 'session',
  tenant: true,
  access: { groups: ['licence', 'about'], level: 'read' },
  aliases: [
    {
      path: '/api/v1/manage/company/license',
      summary:
        'The licence, exactly as license/detail answers: spec §7 lists this path among the company calls also seen, without a payload; it is that licence call under the company prefix',
    },
  ],
  request: emptyRequest,
  response: z.object({
    scope: z.enum(licenseScopes),
    applicationCode: z.string(),
    licenseId: z.string().nullable(),
    customer: z.string().nullable(),
    issuedAt: z.string().nullable(),
    importedAt: z.string().nullable(),
    list: z.array(licenseModuleState),
  }),
});

export const licenseImport = defineCall({
  path: '/api/v1/manage/license/import',
  summary: 'Import a licence file issued for this installation (platform administrators)',
  tag: 'Licence',
  auth: 'session',
  tenant: true,
  access: { groups: ['licence'], level: 'manage' },
  aliases: [
    {
      path: '/api/v1/manage/company/license/import',
      summary:
        'Import a licence file, exactly as license/import does (same payload; platform administrators): spec §7 lists this path among the company calls also seen, without a payload; it is that licence call under the company prefix',
    },
  ],
  request: z.object({
    license: z
      .string()
      .trim()
      .min(1, { error: 'license.file_required' })
      .max(64 * 1024),
  }),
  response: licenseDetail.response,
});

export const licenseCode = defineCall({
  path: '/api/v1/manage/license/code',
  summary: "This installation's application code, which a licence is issued for",
  tag: 'Licence',
  auth: 'session',
  tenant: true,
  access: { groups: ['licence'], level: 'read' },
  aliases: [
    {
      path: '/api/v1/manage/company/license/code',
      summary:
        "This installation's application code, exactly as license/code answers: spec §7 lists this path among the company calls also seen, without a payload; it is that licence call under the company prefix",
    },
  ],
  request: emptyRequest,
  response: z.object({ code: z.string() }),
});

export const licenseInfo = defineCall({
  path: '/api/v1/manage/license/info',
  summary: 'Licence summary for the top bar: Info[0] is the user function (status and days left)',
  tag: 'Licence',
  auth: 'session',
  tenant: true,
  access: 'console',
  request: emptyRequest,
  response: z.object({
    Info: z.array(
      z.object({
        module: z.enum(licenseModules),
        status: z.enum(licenseStatuses),
        reduceDay: z.number().int().nullable(),
        expiresAt: z.string().nullable(),
      }),
    ),
  }),
});

export const systemInfo = defineCall({
  path: '/api/v1/manage/system/info',
  summary: 'Version and build of the platform',
  tag: 'System',
  auth: 'session',
  // The platform's, not a company's: every console shows its version (spec §2 top bar), also
  // before a company exists (/create-company), so it takes no company.
  tenant: false,
  access: 'console',
  request: emptyRequest,
  response: z.object({
    version: z.string(),
    build: z.string(),
    nodeVersion: z.string(),
    database: z.enum(['postgres', 'pglite']),
    startedAt: z.string(),
    /**
     * Whether the platform can send mail (TESSERA_SMTP_URL): without it the console disables
     * sign-in links, account emails and invitations, and says so to administrators.
     */
    mailEnabled: z.boolean(),
  }),
});

export const thirdParty = defineCall({
  path: '/api/v1/manage/system/third-party',
  summary: 'Third-party packages shipped with the platform, with their versions and licences',
  tag: 'System',
  auth: 'session',
  tenant: false,
  request: emptyRequest,
  response: z.object({
    list: z.array(z.object({ name: z.string(), version: z.string(), license: z.string() })),
  }),
});
