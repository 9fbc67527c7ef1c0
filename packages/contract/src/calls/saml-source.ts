import { z } from 'zod';
import { defineCall, entityId } from '../call.ts';
import { samlBindings, samlLimits, samlNameIdFormats } from '../constants.ts';
import { common, firstScan } from './identity-source-fields.ts';
import { certificateInfo, certificateText, samlUrl } from './saml.ts';
import { upstreamButton, upstreamSignOut } from './upstream-settings.ts';

/**
 * An upstream SAML identity provider as an identity source (issue 33): Tessera is its service
 * provider. The settings come from the upstream's metadata (read by `readSamlSourceMetadata`,
 * then saved with the source); Tessera's own side (entity id, ACS, signing certificate) is
 * made per source and published in its SP metadata.
 */

/** An attribute name of the upstream's assertions; empty: not mapped. */
const attributeName = z
  .string()
  .trim()
  .max(samlLimits.attributeNameMax, { error: 'saml.attribute_name_too_long' })
  .transform((value) => (value === '' ? null : value))
  .nullable()
  .optional();

export const samlSourceLimits = {
  /** AuthnContextClassRef values that count as a second factor. */
  mfaContextsMax: 8,
  mfaContextMax: 256,
} as const;

export const samlSourceSettings = z.object({
  ...common,
  /** Where the metadata was read from (kept to read it again; empty: it was uploaded). */
  metadataUrl: z
    .union([z.literal('').transform(() => null), samlUrl])
    .nullable()
    .optional(),
  /** The upstream's entity id: the Issuer its assertions must carry. */
  idpEntityId: z
    .string({ error: 'saml.entity_id_required' })
    .trim()
    .min(1, { error: 'saml.entity_id_required' })
    .max(samlLimits.entityIdMax, { error: 'saml.entity_id_too_long' }),
  /** Its single sign-on service and the binding the AuthnRequest goes there on. */
  ssoUrl: samlUrl,
  ssoBinding: z.enum(samlBindings).default('redirect'),
  /** Its single logout service (HTTP-Redirect): where a sign-out at Tessera goes on to (empty: none). */
  sloUrl: z
    .union([z.literal('').transform(() => null), samlUrl])
    .nullable()
    .optional(),
  /** Its signing certificates (PEM or bare base64): several while it rotates its key. */
  signingCertificates: z
    .array(certificateText)
    .min(1, { error: 'saml_source.certificate_required' })
    .max(samlLimits.certificatesMax, { error: 'saml_source.certificate_required' }),
  /** The NameID format asked for; the NameID is the person's stable id at the upstream. */
  nameIdFormat: z.enum(samlNameIdFormats).default('unspecified'),
  /** Attribute names for the username (empty: the NameID), name, email, phone and groups. */
  usernameAttribute: attributeName,
  nameAttribute: attributeName,
  emailAttribute: attributeName,
  phoneAttribute: attributeName,
  groupsAttribute: attributeName,
  /** AuthnContextClassRef values of the upstream that count as Tessera's second factor. */
  mfaContexts: z
    .array(
      z
        .string({ error: 'saml_source.mfa_context_invalid' })
        .trim()
        .min(1, { error: 'saml_source.mfa_context_invalid' })
        .max(samlSourceLimits.mfaContextMax, { error: 'saml_source.mfa_context_invalid' }),
    )
    .max(samlSourceLimits.mfaContextsMax, { error: 'saml_source.mfa_context_invalid' })
    .default([]),
  /** Someone no person is linked to yet: refused (link only) or created as a new person. */
  firstScan,
  /** The sign-in page's button and home-realm discovery, as for every upstream source. */
  ...upstreamButton,
  ...upstreamSignOut,
});

/** Tessera's side of a SAML source: what the upstream is given (or reads from the metadata URL). */
export const samlServiceProvider = z.object({
  entityId: z.string(),
  acsUrl: z.string(),
  metadataUrl: z.string(),
  /** Tessera's single logout service: the upstream's LogoutRequests and LogoutResponses. */
  sloUrl: z.string(),
  certificate: certificateInfo,
});

/** What the upstream's metadata says, in the shape of the settings (certificates as PEM). */
export const samlSourceMetadata = z.object({
  idpEntityId: z.string(),
  ssoUrl: z.string(),
  ssoBinding: z.enum(samlBindings),
  sloUrl: z.string().nullable(),
  signingCertificates: z.array(z.string()),
  nameIdFormat: z.enum(samlNameIdFormats).nullable(),
});

export const readSamlSourceMetadata = defineCall({
  path: '/api/v1/manage/identity-source/saml/metadata/read',
  summary:
    "Read an upstream SAML identity provider's metadata (an uploaded document, or a URL fetched once now) into the form; nothing is stored",
  tag: 'Identity sources',
  auth: 'session',
  tenant: true,
  access: { groups: ['identitySource'], level: 'manage' },
  request: z
    .object({
      xml: z
        .string()
        .max(samlLimits.metadataBytes, { error: 'saml.metadata_too_large' })
        .transform((value) => value.trim() || undefined)
        .optional(),
      url: z
        .string()
        .trim()
        .max(samlLimits.urlMax, { error: 'saml.url_invalid' })
        .transform((value) => value || undefined)
        .optional(),
    })
    .superRefine((value, ctx) => {
      if (Boolean(value.xml) === Boolean(value.url))
        ctx.addIssue({ code: 'custom', path: ['xml'], message: 'saml.metadata_source_required' });
    }),
  response: samlSourceMetadata,
});

/** How the source's metadata URL was last read again (once a day, or on demand). */
export const samlMetadataRefreshState = z.object({
  /** The last read that succeeded (its certificates and SSO address are the source's). */
  refreshedAt: z.string().nullable(),
  nextRefreshAt: z.string().nullable(),
  /** The last read that failed since then, with its localised error (the last good settings stay). */
  failedAt: z.string().nullable(),
  error: z.string().nullable(),
});

export const refreshSamlSourceMetadata = defineCall({
  path: '/api/v1/manage/identity-source/saml/metadata/refresh',
  summary:
    "Read a SAML source's metadata URL again now and take its single sign-on address and signing certificates (done once a day by itself); a failure keeps the last good settings",
  tag: 'Identity sources',
  auth: 'session',
  tenant: true,
  access: { groups: ['identitySource'], level: 'manage' },
  request: z.object({ sourceId: entityId }),
  response: samlMetadataRefreshState,
});
