import { z } from 'zod';
import { defineCall, emptyRequest } from '../call.ts';
import { consoleVariants } from '../constants.ts';

const variant = z.enum(consoleVariants);

export const ssoConfig = defineCall({
  path: '/api/v1/sso/config',
  summary: 'What the console needs to build the authorization request',
  tag: 'Session',
  auth: 'public',
  tenant: false,
  request: z.object({ variant: variant.default('dev') }).default({ variant: 'dev' }),
  response: z.object({
    issuer: z.string(),
    authorizationEndpoint: z.string(),
    endSessionEndpoint: z.string(),
    clientId: z.string(),
    redirectUri: z.string(),
    scope: z.string(),
    codeChallengeMethod: z.literal('S256'),
  }),
});

const tokenResult = z.object({
  token: z.string(),
  username: z.string(),
  /** Seconds until the token stops working unless it is refreshed or used (the idle expiry, capped by the absolute one). */
  expiresIn: z.number().int(),
  /** Seconds until the session ends whatever the activity (its absolute lifetime): no refresh goes past it. */
  sessionExpiresIn: z.number().int(),
});

const tokenCall = (v: (typeof consoleVariants)[number]) =>
  defineCall({
    path: `/api/v1/${v}/oidc/token`,
    summary: `Exchange an authorization code for a console token (${v} console)`,
    tag: 'Session',
    auth: 'public',
    tenant: false,
    request: z.object({
      code: z.string().min(1).max(512),
      codeVerifier: z.string().min(43).max(128),
    }),
    response: tokenResult,
  });

const refreshCall = (v: (typeof consoleVariants)[number]) =>
  defineCall({
    path: `/api/v1/${v}/oidc/refresh`,
    summary: `Replace the console token with a fresh one (${v} console)`,
    tag: 'Session',
    auth: 'session',
    console: v,
    tenant: false,
    request: emptyRequest,
    response: tokenResult,
  });

const logoutCall = (v: (typeof consoleVariants)[number]) =>
  defineCall({
    path: `/api/v1/${v}/login/logout`,
    summary: `End the console session (${v} console); returns where to end the single sign-on session`,
    tag: 'Session',
    auth: 'session',
    console: v,
    tenant: false,
    request: emptyRequest,
    response: z.object({ logoutUrl: z.string() }),
  });

export const oidcToken = { admin: tokenCall('admin'), dev: tokenCall('dev') };
export const oidcRefresh = { admin: refreshCall('admin'), dev: refreshCall('dev') };
export const logout = { admin: logoutCall('admin'), dev: logoutCall('dev') };
