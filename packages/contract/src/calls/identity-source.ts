import { z } from 'zod';
import { defineCall, emptyRequest, entityId } from '../call.ts';
import {
  identitySourceTypes,
  identitySourceLimits as limits,
  syncRunModes,
  syncRunStatuses,
} from '../constants.ts';
import { ldapSettings } from './identity-source-ldap.ts';
import { dingtalkSettings, weixinSettings, workWeixinSettings } from './identity-source-scan.ts';
import { oidcSettings } from './identity-source-upstream.ts';
import { samlMetadataRefreshState, samlServiceProvider, samlSourceSettings } from './saml-source.ts';

/**
 * Identity sources of a company (spec §2 identity-source routes, §3 LDAP fields): an LDAP or
 * Active Directory server that its people sign in with and that feeds its people and
 * departments, and the scan sign-in of DingTalk, WeChat and WeCom (DingTalk and WeCom contacts
 * can be synced too). Secrets (bind password, app secrets) are written, never read back: an
 * omitted or empty secret on update keeps the stored one.
 */

/* Each kind's settings live in a file of their own; they are exported from here too. */
export * from './identity-source-ldap.ts';
export * from './identity-source-scan.ts';
export * from './identity-source-upstream.ts';

const id = entityId;

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
    /** Set up from a metadata URL: how it was last read again (null: from a file). */
    metadataRefresh: samlMetadataRefreshState.nullable(),
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
