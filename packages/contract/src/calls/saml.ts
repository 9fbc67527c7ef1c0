import { z } from 'zod';
import { defineCall, emptyRequest } from '../call.ts';
import {
  samlAttributeNameFormats,
  samlAttributeSources,
  samlBindings,
  samlLimits,
  samlNameIdFormats,
  samlNameIdSources,
  samlSignatureAlgorithms,
  samlUrlProblem,
} from '../saml.ts';

/**
 * SAML 2.0 applications (spec §3 Application: protocol settings, metadata document): the
 * service provider settings of an app, its metadata import, and the company's identity provider
 * (metadata, signing certificates and their rotation).
 */

const appId = z.string({ error: 'app.not_found' }).trim().min(1, { error: 'app.not_found' }).max(64);

/** An address a SAML message is sent to: https (http on localhost only), exact. */
export const samlUrl = z
  .string({ error: 'saml.url_invalid' })
  .trim()
  .max(samlLimits.urlMax, { error: 'saml.url_invalid' })
  .refine((value) => !samlUrlProblem(value), { error: 'saml.url_invalid' });

const optionalSamlUrl = z
  .union([z.literal('').transform(() => null), samlUrl])
  .nullable()
  .optional();

/** A certificate as pasted: PEM or bare base64 (parsed on the server). */
export const certificateText = z
  .string({ error: 'saml.certificate_invalid' })
  .trim()
  .min(1, { error: 'saml.certificate_invalid' })
  .max(samlLimits.certificateChars, { error: 'saml.certificate_invalid' });

export const certificateInfo = z.object({
  pem: z.string(),
  subject: z.string(),
  notBefore: z.number().int(),
  notAfter: z.number().int(),
  fingerprint: z.string(),
});

const acsEndpoint = z.object({
  url: samlUrl,
  index: z.number({ error: 'saml.acs_index_invalid' }).int().min(0).max(samlLimits.acsIndexMax),
  isDefault: z.boolean().default(false),
});

const attributeMapping = z
  .object({
    name: z
      .string({ error: 'saml.attribute_name_required' })
      .trim()
      .min(1, { error: 'saml.attribute_name_required' })
      .max(samlLimits.attributeNameMax, { error: 'saml.attribute_name_too_long' }),
    nameFormat: z.enum(samlAttributeNameFormats).default('basic'),
    friendlyName: z
      .string()
      .trim()
      .max(samlLimits.attributeNameMax)
      .transform((value) => value || null)
      .nullable()
      .default(null),
    source: z.enum(samlAttributeSources),
    value: z
      .string()
      .trim()
      .max(samlLimits.fixedValueMax, { error: 'saml.fixed_value_too_long' })
      .transform((value) => value || null)
      .nullable()
      .default(null),
  })
  .superRefine((attribute, ctx) => {
    if (attribute.source === 'fixed' && !attribute.value)
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'saml.fixed_value_required' });
  });

/** An application's service provider settings. */
export const samlSettings = z.object({
  entityId: z.string().nullable(),
  acs: z.array(z.object({ url: z.string(), index: z.number().int(), isDefault: z.boolean() })),
  sloUrl: z.string().nullable(),
  sloBinding: z.enum(samlBindings),
  /** Where LogoutResponses go when not to `sloUrl`. */
  sloResponseUrl: z.string().nullable(),
  signingCertificates: z.array(certificateInfo),
  encryptionCertificate: certificateInfo.nullable(),
  nameIdFormat: z.enum(samlNameIdFormats),
  nameIdSource: z.enum(samlNameIdSources),
  attributes: z.array(
    z.object({
      name: z.string(),
      nameFormat: z.enum(samlAttributeNameFormats),
      friendlyName: z.string().nullable(),
      source: z.enum(samlAttributeSources),
      value: z.string().nullable(),
    }),
  ),
  signResponse: z.boolean(),
  signAssertion: z.boolean(),
  signatureAlgorithm: z.enum(samlSignatureAlgorithms),
  encryptAssertion: z.boolean(),
  /** Refuse AuthnRequests that are not signed with one of the signing certificates. */
  requireSignedRequests: z.boolean(),
  /** The RelayState of sign-ins started from "My apps" (the page to land on). */
  defaultRelayState: z.string().nullable(),
  /** Where the metadata was last fetched from, if it was. */
  metadataUrl: z.string().nullable(),
});

export const samlDetail = defineCall({
  path: '/api/v1/manage/app/saml/detail',
  summary: 'The SAML service provider settings of an application',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'read' },
  request: z.object({ appId }),
  response: samlSettings,
});

export const updateSaml = defineCall({
  path: '/api/v1/manage/app/saml/update',
  summary: 'Change the SAML service provider settings of an application (fields left out stay as they are)',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  request: z.object({
    appId,
    entityId: z
      .string({ error: 'saml.entity_id_required' })
      .trim()
      .min(1, { error: 'saml.entity_id_required' })
      .max(samlLimits.entityIdMax, { error: 'saml.entity_id_too_long' })
      .optional(),
    acs: z.array(acsEndpoint).min(1, { error: 'saml.acs_required' }).max(samlLimits.acsMax).optional(),
    sloUrl: optionalSamlUrl,
    sloBinding: z.enum(samlBindings).optional(),
    sloResponseUrl: optionalSamlUrl,
    signingCertificates: z.array(certificateText).max(samlLimits.certificatesMax).optional(),
    encryptionCertificate: certificateText.nullable().optional(),
    nameIdFormat: z.enum(samlNameIdFormats).optional(),
    nameIdSource: z.enum(samlNameIdSources).optional(),
    attributes: z.array(attributeMapping).max(samlLimits.attributesMax).optional(),
    signResponse: z.boolean().optional(),
    signAssertion: z.boolean().optional(),
    signatureAlgorithm: z.enum(samlSignatureAlgorithms).optional(),
    encryptAssertion: z.boolean().optional(),
    requireSignedRequests: z.boolean().optional(),
    defaultRelayState: z
      .string()
      .trim()
      .max(samlLimits.relayStateMax, { error: 'saml.relay_state_too_long' })
      .transform((value) => value || null)
      .nullable()
      .optional(),
  }),
  response: samlSettings,
});

export const importSamlMetadata = defineCall({
  path: '/api/v1/manage/app/saml/metadata/import',
  summary:
    "Read a service provider's metadata (an uploaded or pasted document, or a URL fetched once now) into the application's settings",
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  request: z
    .object({
      appId,
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
  response: samlSettings,
});

export const samlIdp = z.object({
  entityId: z.string(),
  metadataUrl: z.string(),
  ssoUrl: z.string(),
  sloUrl: z.string(),
  /** The published signing certificates: the active one, and the next one once prepared. */
  certificates: z.array(
    certificateInfo.extend({ status: z.enum(['active', 'next']), createdAt: z.number().int() }),
  ),
  metadataXml: z.string(),
});

const idpCall = <const P extends string>(path: P, summary: string, level: 'read' | 'manage') =>
  defineCall({
    path,
    summary,
    tag: 'Application',
    auth: 'session',
    tenant: true,
    access: { groups: ['app'], level },
    request: emptyRequest,
    response: samlIdp,
  });

export const samlIdpDetail = idpCall(
  '/api/v1/manage/app/saml/idp',
  "The company's SAML identity provider: entity id, endpoints, signing certificates and metadata",
  'read',
);
export const prepareSamlKey = idpCall(
  '/api/v1/manage/app/saml/key/prepare',
  'Publish the next signing certificate in the metadata (it signs nothing until activated)',
  'manage',
);
export const activateSamlKey = idpCall(
  '/api/v1/manage/app/saml/key/activate',
  'Sign with the prepared certificate from now on; the current one is retired',
  'manage',
);
export const discardSamlKey = idpCall(
  '/api/v1/manage/app/saml/key/discard',
  'Withdraw the prepared signing certificate',
  'manage',
);
