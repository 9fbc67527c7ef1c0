import { z } from 'zod';
import { defineCall, emptyRequest, entityId, optionalText } from '../call.ts';
import {
  firstScanModes,
  identitySourceTypes,
  identitySourceLimits as limits,
  oidcClientAuthMethods,
  syncRunModes,
  syncRunStatuses,
  upstreamIdTokenAlgorithms,
} from '../constants.ts';
import { samlServiceProvider, samlSourceSettings } from './saml-source.ts';
import { upstreamButton, upstreamSignOut } from './upstream-settings.ts';

/**
 * Identity sources of a company (spec §2 identity-source routes, §3 LDAP fields): an LDAP or
 * Active Directory server that its people sign in with and that feeds its people and
 * departments, and the scan sign-in of DingTalk, WeChat and WeCom (DingTalk and WeCom contacts
 * can be synced too). Secrets (bind password, app secrets) are written, never read back: an
 * omitted or empty secret on update keeps the stored one.
 */

const id = entityId;
const text = (max: number, reason: string) =>
  z.string({ error: reason }).trim().min(1, { error: reason }).max(max, { error: reason });
/** A secret as typed: not trimmed (a space may belong to it); empty means "keep the stored one". */
const secret = z.string().max(limits.credentialMax).optional();

/** An LDAP attribute name (RFC 4512 descr) or numeric OID. */
export const ATTRIBUTE_PATTERN = /^(?:[A-Za-z][A-Za-z0-9-]*|[0-9]+(?:\.[0-9]+)+)$/;
const attribute = z
  .string({ error: 'ldap.attribute_invalid' })
  .trim()
  .max(limits.attributeMax, { error: 'ldap.attribute_invalid' })
  .regex(ATTRIBUTE_PATTERN, { error: 'ldap.attribute_invalid' });
const optionalAttribute = z
  .string()
  .trim()
  .max(limits.attributeMax, { error: 'ldap.attribute_invalid' })
  .refine((value) => value === '' || ATTRIBUTE_PATTERN.test(value), { error: 'ldap.attribute_invalid' })
  .transform((value) => (value === '' ? null : value))
  .nullable()
  .optional();
/** A distinguished name: attribute=value pairs (the directory has the last word on it). */
const dn = z
  .string({ error: 'ldap.dn_invalid' })
  .trim()
  .max(limits.dnMax, { error: 'ldap.dn_invalid' })
  .regex(/^[A-Za-z0-9.-]+=.+$/s, { error: 'ldap.dn_invalid' });
const optionalDn = z
  .string()
  .trim()
  .max(limits.dnMax, { error: 'ldap.dn_invalid' })
  .refine((value) => value === '' || /^[A-Za-z0-9.-]+=.+$/s.test(value), { error: 'ldap.dn_invalid' })
  .transform((value) => (value === '' ? null : value))
  .nullable()
  .optional();
/** An RFC 4515 filter in parentheses (its syntax is checked on the server). */
const filter = z
  .string({ error: 'ldap.invalid_filter' })
  .trim()
  .min(3, { error: 'ldap.invalid_filter' })
  .max(limits.filterMax, { error: 'ldap.invalid_filter' })
  .regex(/^\(.*\)$/s, { error: 'ldap.invalid_filter' });
const optionalFilter = z
  .string()
  .trim()
  .max(limits.filterMax, { error: 'ldap.invalid_filter' })
  .refine((value) => value === '' || /^\(.*\)$/s.test(value), { error: 'ldap.invalid_filter' })
  .transform((value) => (value === '' ? null : value))
  .nullable()
  .optional();

/** ldap:// or ldaps://, a host and an optional port, nothing else. */
export const LDAP_URL_PATTERN = /^ldaps?:\/\/(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::[0-9]{1,5})?\/?$/;

const syncIntervalMinutes = z
  .number({ error: 'identity_source.interval_range' })
  .int({ error: 'identity_source.interval_range' })
  .refine(
    (minutes) =>
      minutes === 0 ||
      (minutes >= limits.syncIntervalMinutes.min && minutes <= limits.syncIntervalMinutes.max),
    { error: 'identity_source.interval_range' },
  );

const common = {
  name: text(limits.nameMax, 'identity_source.name_required'),
  enabled: z.boolean().default(true),
};

/** Every LDAP field of spec §3 (the test user's password is sent with the test only, never stored). */
export const ldapSettings = z.object({
  ...common,
  /** Connection name is `name`; server URL: */
  url: z
    .string({ error: 'ldap.url_invalid' })
    .trim()
    .max(limits.urlMax, { error: 'ldap.url_invalid' })
    .regex(LDAP_URL_PATTERN, { error: 'ldap.url_invalid' }),
  /** ldap:// upgraded with StartTLS before the bind. */
  startTls: z.boolean().default(false),
  /** Certificate verification flag: on, the server's certificate must chain to a trusted (or the pasted) CA. */
  verifyCertificate: z.boolean().default(true),
  /** A private CA (PEM) that the server's certificate chains to. */
  caCertificate: optionalText(limits.caMax),
  /** Empty: anonymous searches. */
  bindDn: optionalDn,
  bindPassword: secret,
  userRootDn: dn,
  usernameAttribute: attribute,
  /** User distinguished name: a template such as `uid={username},ou=people,dc=example,dc=com` to bind without a search. */
  userDnTemplate: z
    .string()
    .trim()
    .max(limits.dnMax, { error: 'ldap.user_dn_template_invalid' })
    .refine((value) => value === '' || (value.includes('{username}') && value.includes('=')), {
      error: 'ldap.user_dn_template_invalid',
    })
    .transform((value) => (value === '' ? null : value))
    .nullable()
    .optional(),
  /** Unique identifier: entryUUID (OpenLDAP), objectGUID (Active Directory). */
  uniqueIdAttribute: attribute,
  userFilter: filter,
  /** Empty: the organisational units under the user root DN become the departments. */
  groupRootDn: optionalDn,
  groupFilter: optionalFilter,
  groupIdAttribute: optionalAttribute,
  membershipAttribute: optionalAttribute,
  testUsername: optionalText(limits.credentialMax),
  /** People of this source are not asked for a second factor. */
  skipMfa: z.boolean().default(false),
  syncIntervalMinutes: syncIntervalMinutes.default(0),
});

const firstScan = z.enum(firstScanModes).default('link_only');
export const dingtalkSettings = z.object({
  ...common,
  appKey: text(limits.credentialMax, 'identity_source.app_key_required'),
  appSecret: secret,
  firstScan,
  syncIntervalMinutes: syncIntervalMinutes.default(0),
});
export const weixinSettings = z.object({
  ...common,
  appId: text(limits.credentialMax, 'identity_source.app_id_required'),
  appSecret: secret,
  firstScan,
});
export const workWeixinSettings = z.object({
  ...common,
  corpId: text(limits.credentialMax, 'identity_source.corp_id_required'),
  agentId: text(limits.credentialMax, 'identity_source.agent_id_required'),
  secret,
  firstScan,
  syncIntervalMinutes: syncIntervalMinutes.default(0),
});

/** An issuer: https, or http on the machine itself (a development upstream); no query or fragment. */
export const ISSUER_PATTERN =
  /^(?:https:\/\/[^\s?#]+|http:\/\/(?:localhost|127\.0\.0\.1|\[::1\])(?::[0-9]{1,5})?(?:\/[^\s?#]*)?)$/;
/** A claim name of an ID token or userinfo answer. */
const claim = z
  .string({ error: 'upstream.claim_invalid' })
  .trim()
  .min(1, { error: 'upstream.claim_invalid' })
  .max(limits.attributeMax, { error: 'upstream.claim_invalid' })
  .regex(/^[A-Za-z0-9_:.\-/]+$/, { error: 'upstream.claim_invalid' });
const optionalClaim = z
  .string()
  .trim()
  .max(limits.attributeMax, { error: 'upstream.claim_invalid' })
  .refine((value) => value === '' || /^[A-Za-z0-9_:.\-/]+$/.test(value), { error: 'upstream.claim_invalid' })
  .transform((value) => (value === '' ? null : value))
  .nullable()
  .optional();
/** acr or amr values: short tokens without spaces. */
const assertionValues = z
  .array(
    z
      .string()
      .trim()
      .min(1, { error: 'upstream.value_invalid' })
      .max(limits.urlMax, { error: 'upstream.value_invalid' })
      .regex(/^\S+$/, { error: 'upstream.value_invalid' }),
  )
  .max(limits.assertionValuesMax, { error: 'upstream.value_invalid' })
  .default([]);
/** What every upstream source (OpenID Connect, SAML) has: the button, home-realm discovery, MFA, first sign-in. */
export const upstreamCommon = {
  ...upstreamButton,
  ...upstreamSignOut,
  /** The upstream's assertion (acr/amr) of a second factor counts as the company's second factor. */
  trustUpstreamMfa: z.boolean().default(false),
  firstScan,
};

/** An upstream OpenID Connect provider (Entra ID, Okta, Keycloak, another Tessera...). */
export const oidcSettings = z.object({
  ...common,
  issuer: z
    .string({ error: 'upstream.issuer_invalid' })
    .trim()
    .max(limits.urlMax, { error: 'upstream.issuer_invalid' })
    .regex(ISSUER_PATTERN, { error: 'upstream.issuer_invalid' }),
  clientId: text(limits.credentialMax, 'upstream.client_id_required'),
  clientAuth: z.enum(oidcClientAuthMethods).default('client_secret_basic'),
  /** Needed for client_secret_basic and client_secret_post. */
  clientSecret: secret,
  scopes: z
    .string()
    .trim()
    .max(limits.urlMax, { error: 'upstream.scopes_invalid' })
    .regex(/^[\x21\x23-\x5B\x5D-\x7E]+(?: [\x21\x23-\x5B\x5D-\x7E]+)*$/, { error: 'upstream.scopes_invalid' })
    .refine((value) => value.split(' ').includes('openid'), { error: 'upstream.scopes_invalid' })
    .default('openid profile email'),
  /** Algorithms the ID token may be signed with (empty: all of upstreamIdTokenAlgorithms). */
  idTokenAlgorithms: z.array(z.enum(upstreamIdTokenAlgorithms)).default([]),
  usernameClaim: claim.default('preferred_username'),
  nameClaim: optionalClaim.default('name'),
  emailClaim: optionalClaim.default('email'),
  phoneClaim: optionalClaim.default('phone_number'),
  groupsClaim: optionalClaim,
  /** acr values that mean a second factor (any one of them). */
  mfaAcrValues: assertionValues,
  /** amr values that mean a second factor (any one of them), e.g. mfa, otp, hwk. */
  mfaAmrValues: assertionValues,
  ...upstreamCommon,
});

/** A source's settings as a request carries them, by type (with `extra` fields in each). */
const settingsByType = <T extends z.ZodRawShape>(extra: T) =>
  z.discriminatedUnion('type', [
    ldapSettings.extend({ type: z.literal('ldap'), ...extra }),
    dingtalkSettings.extend({ type: z.literal('dingtalk'), ...extra }),
    weixinSettings.extend({ type: z.literal('weixin'), ...extra }),
    workWeixinSettings.extend({ type: z.literal('work_weixin'), ...extra }),
    oidcSettings.extend({ type: z.literal('oidc'), ...extra }),
    samlSourceSettings.extend({ type: z.literal('saml'), ...extra }),
  ]);
export const sourceSettings = settingsByType({});

export const syncCounts = z.object({
  departmentsCreated: z.number().int(),
  departmentsUpdated: z.number().int(),
  departmentsRemoved: z.number().int(),
  created: z.number().int(),
  updated: z.number().int(),
  moved: z.number().int(),
  disabled: z.number().int(),
  enabled: z.number().int(),
  unchanged: z.number().int(),
  /** Rows that collide with people of the company (listed as rows). */
  conflicts: z.number().int(),
  /** Rows whose username, email or phone an account outside the company has: a count only. */
  conflictsElsewhere: z.number().int(),
});

export const syncRun = z.object({
  runId: z.string(),
  mode: z.enum(syncRunModes),
  trigger: z.enum(['manual', 'schedule']),
  status: z.enum(syncRunStatuses),
  requestedBy: z.string().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  counts: syncCounts.nullable(),
  /** Localised problems (a refused batch, the directory not answering...). */
  errors: z.array(z.object({ reason: z.string(), message: z.string() })),
  /** An apply run: the preview it applies. A preview: the apply run made from it, if any. */
  previewRunId: z.string().nullable(),
  appliedByRunId: z.string().nullable(),
});

const sourceBase = z.object({
  sourceId: z.string(),
  name: z.string(),
  enabled: z.boolean(),
  createdAt: z.string(),
  /** People of the company linked to this source (what deleting it concerns). */
  people: z.number().int(),
  lastRun: syncRun.nullable(),
});

export const identitySourceSummary = sourceBase.extend({ type: z.enum(identitySourceTypes) });

/** A source as the detail screens show it: its settings without secrets. */
export const identitySourceDetail = z.discriminatedUnion('type', [
  sourceBase.extend({
    type: z.literal('ldap'),
    settings: ldapSettings.omit({ bindPassword: true }).extend({ bindPasswordSet: z.boolean() }),
  }),
  sourceBase.extend({
    type: z.literal('dingtalk'),
    settings: dingtalkSettings.omit({ appSecret: true }).extend({ secretSet: z.boolean() }),
    /** The address to register with the provider as the redirect (callback) URL. */
    callbackUrl: z.string(),
  }),
  sourceBase.extend({
    type: z.literal('weixin'),
    settings: weixinSettings.omit({ appSecret: true }).extend({ secretSet: z.boolean() }),
    callbackUrl: z.string(),
  }),
  sourceBase.extend({
    type: z.literal('work_weixin'),
    settings: workWeixinSettings.omit({ secret: true }).extend({ secretSet: z.boolean() }),
    callbackUrl: z.string(),
  }),
  sourceBase.extend({
    type: z.literal('oidc'),
    settings: oidcSettings.omit({ clientSecret: true }).extend({ secretSet: z.boolean() }),
    /** The redirect URI to register at the upstream provider. */
    callbackUrl: z.string(),
    /** Where the upstream reads the key Tessera signs its client assertions with (private_key_jwt). */
    jwksUrl: z.string(),
    /** The back-channel logout URI to register at the upstream provider. */
    backchannelLogoutUrl: z.string(),
    /** The post-logout redirect URI to register at the upstream provider (sign-out goes on there). */
    postLogoutRedirectUrl: z.string(),
  }),
  sourceBase.extend({
    type: z.literal('saml'),
    settings: samlSourceSettings,
    /** Tessera's side: what to give the upstream. */
    serviceProvider: samlServiceProvider,
  }),
]);

export const listIdentitySources = defineCall({
  path: '/api/v1/manage/identity-source/list',
  summary: "The company's identity sources with their state and last sync",
  tag: 'Identity sources',
  auth: 'session',
  tenant: true,
  access: { groups: ['identitySource'], level: 'read' },
  request: emptyRequest,
  response: z.object({ list: z.array(identitySourceSummary) }),
});

export const identitySourceDetailCall = defineCall({
  path: '/api/v1/manage/identity-source/detail',
  summary: 'One identity source with its settings (secrets are never sent back)',
  tag: 'Identity sources',
  auth: 'session',
  tenant: true,
  access: { groups: ['identitySource'], level: 'read' },
  request: z.object({ sourceId: id }),
  response: identitySourceDetail,
});

export const createIdentitySource = defineCall({
  path: '/api/v1/manage/identity-source/create',
  summary:
    'Add an LDAP / Active Directory, DingTalk, WeChat, WeCom, OpenID Connect or upstream SAML source (secrets are stored sealed)',
  tag: 'Identity sources',
  auth: 'session',
  tenant: true,
  access: { groups: ['identitySource'], level: 'manage' },
  request: sourceSettings,
  response: identitySourceDetail,
});

export const updateIdentitySource = defineCall({
  path: '/api/v1/manage/identity-source/update',
  summary: "Change a source's settings; an empty or omitted secret keeps the stored one",
  tag: 'Identity sources',
  auth: 'session',
  tenant: true,
  access: { groups: ['identitySource'], level: 'manage' },
  request: settingsByType({ sourceId: id }),
  response: identitySourceDetail,
});

export const setIdentitySourceStatus = defineCall({
  path: '/api/v1/manage/identity-source/status',
  summary: 'Enable or disable a source: disabled, nobody signs in through it and it is not synced',
  tag: 'Identity sources',
  auth: 'session',
  tenant: true,
  access: { groups: ['identitySource'], level: 'manage' },
  request: z.object({ sourceId: id, enabled: z.boolean() }),
  response: identitySourceSummary,
});

export const deleteIdentitySource = defineCall({
  path: '/api/v1/manage/identity-source/del',
  summary:
    'Delete a source. Its people stay people of the company (unlinked); its departments stay as ordinary departments',
  tag: 'Identity sources',
  auth: 'session',
  tenant: true,
  access: { groups: ['identitySource'], level: 'manage' },
  request: z.object({ sourceId: id }),
  response: z.object({ sourceId: z.string(), peopleUnlinked: z.number().int() }),
});

/** The outcome of a test: a precise, localised reason when it failed. */
const testOutcome = z.object({ ok: z.boolean(), reason: z.string().nullable(), message: z.string() });

const ldapTestRequest = z.object({
  /** The stored source whose bind password to use when none is typed. */
  sourceId: id.optional(),
  settings: ldapSettings,
});

export const testLdapConnection = defineCall({
  path: '/api/v1/manage/identity-source/ldap/test-connection',
  summary: 'Connect and bind with the given settings and read the user and group root DNs',
  tag: 'Identity sources',
  auth: 'session',
  tenant: true,
  access: { groups: ['identitySource'], level: 'manage' },
  request: ldapTestRequest,
  response: testOutcome.extend({
    details: z
      .object({ userRootFound: z.boolean(), groupRootFound: z.boolean().nullable(), tls: z.string() })
      .nullable(),
  }),
});

export const directoryPerson = z.object({
  dn: z.string(),
  externalId: z.string(),
  username: z.string(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  departments: z.array(z.string()),
  disabled: z.boolean(),
});

export const testLdapUser = defineCall({
  path: '/api/v1/manage/identity-source/ldap/test-user',
  summary: 'Find the test user, check their password and show their attributes as they would be mapped',
  tag: 'Identity sources',
  auth: 'session',
  tenant: true,
  access: { groups: ['identitySource'], level: 'manage' },
  request: ldapTestRequest.extend({
    testUsername: z.string().trim().min(1, { error: 'ldap.test_user_required' }).max(limits.credentialMax),
    testPassword: z.string().min(1, { error: 'ldap.test_password_required' }).max(limits.credentialMax),
  }),
  response: testOutcome.extend({ person: directoryPerson.nullable() }),
});

export const testOidcSource = defineCall({
  path: '/api/v1/manage/identity-source/oidc/test',
  summary: "Read the upstream provider's discovery document and its signing keys (JWKS)",
  tag: 'Identity sources',
  auth: 'session',
  tenant: true,
  access: { groups: ['identitySource'], level: 'manage' },
  request: z.object({ issuer: oidcSettings.shape.issuer }),
  response: testOutcome.extend({
    details: z
      .object({
        issuer: z.string(),
        authorizationEndpoint: z.string(),
        tokenEndpoint: z.string(),
        userinfoEndpoint: z.string().nullable(),
        endSessionEndpoint: z.string().nullable(),
        backchannelLogoutSupported: z.boolean(),
        keys: z.number().int(),
        algorithms: z.array(z.string()),
      })
      .nullable(),
  }),
});
