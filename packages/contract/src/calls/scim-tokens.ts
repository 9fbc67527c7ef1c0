import { z } from 'zod';
import { defineCall, emptyRequest } from '../call.ts';

/**
 * SCIM 2.0 inbound (issue 31): the bearer tokens a company gives its HR system, Microsoft Entra ID
 * or Okta to push people and groups into Tessera at `/scim/v2/<company id>/`, and whether those
 * clients may set passwords. A token's secret is shown once, when it is created.
 */

export const scimLimits = {
  nameMax: 64,
  tokensMax: 20,
  /** The longest a token may live; null (no expiry) is allowed too. */
  expiryDaysMax: 3650,
} as const;

/**
 * What a token's SCIM Groups are in Tessera: the company's departments, or its permission roles.
 * A token acts on one kind only; a Group id of the other kind is not found.
 */
export const scimGroupKinds = ['departments', 'roles'] as const;
export type ScimGroupKind = (typeof scimGroupKinds)[number];

export const scimToken = z.object({
  tokenId: z.string(),
  name: z.string(),
  groupsAs: z.enum(scimGroupKinds),
  expiresAt: z.string().nullable(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  lastUsedIp: z.string().nullable(),
});

export const scimOverview = z.object({
  /** The SCIM base URL of the company (what Entra ID calls the Tenant URL, Okta the connector base URL). */
  baseUrl: z.string(),
  allowPasswords: z.boolean(),
  list: z.array(scimToken),
});

export const scimTokens = defineCall({
  path: '/api/v1/manage/company/scim/tokens',
  summary:
    "The company's SCIM endpoint address, its SCIM tokens (never their secrets) with their last use, and the password setting",
  tag: 'Company',
  auth: 'session',
  tenant: true,
  access: { groups: ['companySettings'], level: 'read' },
  request: emptyRequest,
  response: scimOverview,
});

export const createScimToken = defineCall({
  path: '/api/v1/manage/company/scim/token/create',
  summary: 'Create a SCIM bearer token; its secret is in this answer only (audited)',
  tag: 'Company',
  auth: 'session',
  tenant: true,
  access: { groups: ['companySettings'], level: 'manage' },
  request: z.object({
    name: z
      .string({ error: 'scim.token_name_required' })
      .trim()
      .min(1, { error: 'scim.token_name_required' })
      .max(scimLimits.nameMax, { error: 'scim.token_name_too_long' }),
    /** Days until the token stops working; null: until revoked. */
    expiresInDays: z
      .number({ error: 'scim.token_expiry_range' })
      .int({ error: 'scim.token_expiry_range' })
      .min(1, { error: 'scim.token_expiry_range' })
      .max(scimLimits.expiryDaysMax, { error: 'scim.token_expiry_range' })
      .nullable(),
    groupsAs: z.enum(scimGroupKinds, { error: 'scim.groups_as_invalid' }).default('departments'),
  }),
  response: scimToken.extend({ secret: z.string() }),
});

export const revokeScimToken = defineCall({
  path: '/api/v1/manage/company/scim/token/revoke',
  summary: 'Revoke a SCIM token: its next request is refused (audited)',
  tag: 'Company',
  auth: 'session',
  tenant: true,
  access: { groups: ['companySettings'], level: 'manage' },
  request: z.object({ tokenId: z.string({ error: 'scim.token_not_found' }).max(64) }),
  response: z.object({ tokenId: z.string() }),
});

export const updateScimSettings = defineCall({
  path: '/api/v1/manage/company/scim/settings/update',
  summary:
    "Whether SCIM clients may set people's passwords (off by default; a password still meets the company's password rules; audited)",
  tag: 'Company',
  auth: 'session',
  tenant: true,
  access: { groups: ['companySettings'], level: 'manage' },
  request: z.object({ allowPasswords: z.boolean({ error: 'scim.allow_passwords_invalid' }) }),
  response: z.object({ allowPasswords: z.boolean() }),
});
