import { z } from 'zod';
import { defineCall, optionalText, paging } from '../call.ts';
import {
  appDefaultAccess,
  appLimits,
  appProtocols,
  appScopes,
  appSigningAlgorithms,
  appStatuses,
  appTemplates,
  appTokenAuthMethods,
  appTypes,
  recommendedTokenLifetimes,
  redirectUriProblem,
} from '../constants.ts';
import { appId, webUrl } from './app-shared.ts';

/**
 * Applications (spec §3 Application): each one is an OIDC client of the provider at /oidc, or a
 * form-fill app, with who may use it, its programmatic access accounts and its form settings.
 * This file holds the app itself (list, detail, create, settings, status, secret, logo); who may
 * use it and its access accounts are in app-access.ts, its form settings in app-form.ts.
 */

const appName = z
  .string({ error: 'app.name_required' })
  .trim()
  .min(1, { error: 'app.name_required' })
  .max(appLimits.nameMax, { error: 'app.name_too_long' });

/** An exact-match redirect (or logout) URI; see `redirectUriProblem`. */
export const redirectUri = z
  .string()
  .max(appLimits.urlMax)
  .superRefine((value, ctx) => {
    const problem = redirectUriProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: `app.redirect_uri_${problem}`, input: value });
  });

/**
 * Where the provider reaches the app when a person signs out (OIDC Back-Channel and Front-Channel
 * Logout 1.0): the rules of callback URLs, and http(s) only (a server posts to it, or a browser
 * frame loads it). An empty string clears it.
 */
const logoutUri = z
  .union([
    z.literal('').transform(() => null),
    redirectUri.refine((value) => /^https?:/i.test(value), { error: 'app.redirect_uri_scheme' }),
  ])
  .nullable()
  .optional();

const redirectUris = z
  .array(redirectUri)
  .max(appLimits.urisMax)
  .transform((uris) => [...new Set(uris)]);

const optionalWebUrl = z
  .union([z.literal('').transform(() => null), webUrl])
  .nullable()
  .optional();

const lifetime = (max: number) =>
  z
    .number({ error: 'app.lifetime_required' })
    .int({ error: 'app.lifetime_range' })
    .min(appLimits.lifetimeMin, { error: 'app.lifetime_range' })
    .max(max, { error: 'app.lifetime_range' });

export const tokenLifetimes = z.object({
  authorizationCode: lifetime(appLimits.authorizationCodeMax).default(
    recommendedTokenLifetimes.authorizationCode,
  ),
  idToken: lifetime(appLimits.tokenMax).default(recommendedTokenLifetimes.idToken),
  /** Required by spec §5: the form cannot be saved without it. */
  accessToken: lifetime(appLimits.tokenMax),
  refreshToken: lifetime(appLimits.refreshTokenMax).default(recommendedTokenLifetimes.refreshToken),
});

const templateKey = z.enum(appTemplates.map((t) => t.key) as [string, ...string[]], {
  error: 'app.template_unknown',
});

export const appSummary = z.object({
  appId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  type: z.enum(appTypes),
  protocol: z.enum(appProtocols),
  template: z.string().nullable(),
  status: z.enum(appStatuses),
  logo: z.string().nullable(),
  clientId: z.string(),
  createdAt: z.number().int(),
});

/** An app's OIDC settings (spec §3: login callback URL, protocol settings, token expiries). */
export const appOidcSettings = z.object({
  redirectUris: z.array(z.string()),
  postLogoutRedirectUris: z.array(z.string()),
  /** Where the app starts a sign-in itself (OIDC third-party initiated login); the portal launches it there. */
  initiateLoginUri: z.string().nullable(),
  /** Where the provider posts a signed logout token when a person signs out (Back-Channel Logout). */
  backchannelLogoutUri: z.string().nullable(),
  /** Loaded in a hidden frame of the sign-out page (Front-Channel Logout), with `iss` and `sid`. */
  frontchannelLogoutUri: z.string().nullable(),
  homeUrl: z.string().nullable(),
  scopes: z.array(z.string()),
  signingAlg: z.enum(appSigningAlgorithms),
  tokenAuthMethod: z.enum(appTokenAuthMethods),
  /** PKCE required on authorization requests (recommended; off only for apps that cannot send it). */
  requirePkce: z.boolean(),
  lifetimes: z.object({
    authorizationCode: z.number().int(),
    idToken: z.number().int(),
    accessToken: z.number().int(),
    refreshToken: z.number().int(),
  }),
});

export const appDetail = appSummary.extend({
  /**
   * It has what a sign-in needs (OIDC a login callback, SAML its service provider, form-fill its
   * form settings), so enabling it is allowed: while it is to be configured, the console says
   * "ready to enable" rather than what to add.
   */
  readyToEnable: z.boolean(),
  oidc: appOidcSettings,
  defaultAccess: z.enum(appDefaultAccess),
  /**
   * Each person is asked once what the application may read (an application run by another
   * organisation); off, the company's decision of who may use it stands for everyone it lets in.
   */
  askConsent: z.boolean(),
  /** The metadata document (spec §3): what a relying party is configured with. */
  metadata: z.object({
    issuer: z.string(),
    discoveryUrl: z.string(),
    jwksUri: z.string(),
    authorizationEndpoint: z.string(),
    tokenEndpoint: z.string(),
    userinfoEndpoint: z.string(),
    endSessionEndpoint: z.string(),
  }),
  updatedAt: z.number().int(),
});
export type AppDetail = z.output<typeof appDetail>;

export const listApps = defineCall({
  path: '/api/v1/manage/app/list',
  summary: 'Applications of the current company, paged, by name',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app', 'authority'], level: 'read' },
  apiAccess: true,
  request: z
    .object({
      ...paging,
      keyword: z.string().trim().max(100).optional(),
      status: z.enum(appStatuses).optional(),
    })
    .default({ page: 1, pageSize: 20 }),
  response: z.object({ list: z.array(appSummary), total: z.number().int() }),
});

export const createApp = defineCall({
  path: '/api/v1/manage/app/create',
  summary:
    'Add an application (self-built, or third-party from a catalogue template); the client secret is answered once',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  request: z
    .object({
      name: appName,
      description: optionalText(appLimits.descriptionMax),
      type: z.enum(appTypes).default('self_built'),
      protocol: z.enum(appProtocols).default('oidc'),
      /** A catalogue template (third-party apps): its settings are pre-filled. */
      template: templateKey.optional(),
      /** The app's own address; a template's callback paths are put under it. */
      baseUrl: optionalWebUrl,
    })
    .superRefine((value, ctx) => {
      if (value.type === 'third_party' && !value.template)
        ctx.addIssue({ code: 'custom', path: ['template'], message: 'app.template_required' });
    }),
  response: z.object({ app: appDetail, clientSecret: z.string() }),
});

export const appDetailCall = defineCall({
  path: '/api/v1/manage/app/detail',
  summary: 'One application with its OIDC settings and metadata document',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'read' },
  apiAccess: true,
  request: z.object({ appId }),
  response: appDetail,
});

export const updateApp = defineCall({
  path: '/api/v1/manage/app/update',
  summary: 'Change an application; takes effect on the next request on every server instance',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  request: z.object({
    appId,
    name: appName.optional(),
    description: optionalText(appLimits.descriptionMax),
    redirectUris: redirectUris.optional(),
    postLogoutRedirectUris: redirectUris.optional(),
    backchannelLogoutUri: logoutUri,
    frontchannelLogoutUri: logoutUri,
    initiateLoginUri: optionalWebUrl,
    homeUrl: optionalWebUrl,
    scopes: z
      .array(z.enum(appScopes))
      .max(appScopes.length)
      .transform((scopes) => [...new Set(['openid', ...scopes])])
      .optional(),
    signingAlg: z.enum(appSigningAlgorithms).optional(),
    tokenAuthMethod: z.enum(appTokenAuthMethods).optional(),
    requirePkce: z.boolean().optional(),
    lifetimes: tokenLifetimes.optional(),
    defaultAccess: z.enum(appDefaultAccess).optional(),
    askConsent: z.boolean().optional(),
  }),
  response: appDetail,
});

export const setAppStatus = defineCall({
  path: '/api/v1/manage/app/status',
  summary: 'Open or disable an application (an app with nothing to sign in to cannot be opened)',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  request: z.object({ appId, status: z.enum(['opened', 'disabled']) }),
  response: appSummary,
});

export const deleteApp = defineCall({
  path: '/api/v1/manage/app/del',
  summary: 'Delete an application; its tokens stop working at once',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  request: z.object({ appId }),
  response: z.object({ appId: z.string() }),
});

export const resetAppSecret = defineCall({
  path: '/api/v1/manage/app/secret/reset',
  summary: 'Rotate the client secret; the new one is answered once and the old one stops working',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  request: z.object({ appId }),
  response: z.object({ clientSecret: z.string() }),
});

export const uploadAppLogo = defineCall({
  path: '/api/v1/manage/app/logo',
  summary: 'Upload the application logo (multipart: field "appId", then the file; png, jpeg, svg or webp)',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  request: z.object({ appId }),
  response: z.object({ logo: z.string() }),
  upload: {
    field: 'file',
    maxBytes: appLimits.logoBytes,
    types: ['image/png', 'image/jpeg', 'image/svg+xml', 'image/webp'],
  },
});

export * from './app-access.ts';
export * from './app-form.ts';
