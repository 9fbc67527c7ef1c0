import type { app as contract } from '@tessera/contract';
import type { z } from 'zod';
import type { Db } from '../../db/database.ts';
import type { App } from '../../db/schema.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import type { OutboundPolicy } from '../../lib/outbound-address.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { casConfigured } from '../cas/cas.repo.ts';
import { fileUrl } from '../files/files.ts';
import { ldapConfigured } from '../ldap-server/ldap-config.service.ts';
import * as repo from './app.repo.ts';

/**
 * What the parts of the application service share (app.service.ts and its sub-areas): the
 * answers' shapes, the lookup of a company's app and the audit event of a change.
 */

export type Body<C> = z.output<C extends { request: infer R extends z.ZodType } ? R : never>;
type AppDetail = contract.AppDetail;

export interface Actor {
  accountId: string;
  ip: string;
}

/** What every part of the service works with: the database, the sealer, the provider's metadata. */
export interface AppServiceContext {
  db: Db;
  sealer: Sealer;
  metadata: ProviderMetadata;
  outbound?: Pick<OutboundPolicy, 'refusalOf'>;
}

export const seconds = (date: Date | null) => (date ? Math.floor(date.getTime() / 1000) : null);
export const dateOf = (epoch: number | null) => (epoch === null ? null : new Date(epoch * 1000));

/** The provider's metadata document (spec §3): what a relying party is configured with. */
export const providerMetadata = (issuer: string) => ({
  issuer,
  discoveryUrl: `${issuer}/.well-known/openid-configuration`,
  jwksUri: `${issuer}/jwks`,
  authorizationEndpoint: `${issuer}/auth`,
  tokenEndpoint: `${issuer}/token`,
  userinfoEndpoint: `${issuer}/me`,
  endSessionEndpoint: `${issuer}/session/end`,
});
export type ProviderMetadata = ReturnType<typeof providerMetadata>;

export const summary = (app: App) => ({
  appId: app.id,
  name: app.name,
  description: app.description,
  type: app.type,
  protocol: app.protocol,
  template: app.template,
  status: app.status,
  logo: fileUrl(app.logo_file_id),
  clientId: app.client_id,
  createdAt: seconds(app.created_at) as number,
});

/**
 * Whether the application has what a sign-in needs, so it may be enabled: OIDC a login callback,
 * SAML its service provider, form-fill its form settings. A catalogue app can have all of it
 * from the moment it is added.
 */
export async function readyToEnable(db: Db, app: App): Promise<boolean> {
  if (app.protocol === 'oidc') return app.redirect_uris.length > 0;
  if (app.protocol === 'saml') return repo.samlConfigured(db, app.id);
  if (app.protocol === 'cas') return casConfigured(db, app.id);
  if (app.protocol === 'ldap') return ldapConfigured(db, app.id);
  return Boolean(await repo.findFormConfig(db, app.id));
}

/** The detail answer; `ready` is what readyToEnable says of the same app. */
export const detailOf = (app: App, metadata: ProviderMetadata, ready: boolean): AppDetail => ({
  ...summary(app),
  readyToEnable: ready,
  oidc: {
    redirectUris: app.redirect_uris,
    postLogoutRedirectUris: app.post_logout_redirect_uris,
    initiateLoginUri: app.initiate_login_uri,
    backchannelLogoutUri: app.backchannel_logout_uri,
    frontchannelLogoutUri: app.frontchannel_logout_uri,
    homeUrl: app.home_url,
    scopes: app.scopes,
    signingAlg: app.signing_alg,
    tokenAuthMethod: app.token_auth_method,
    requirePkce: app.require_pkce,
    lifetimes: {
      authorizationCode: app.authorization_code_ttl,
      idToken: app.id_token_ttl,
      accessToken: app.access_token_ttl,
      refreshToken: app.refresh_token_ttl,
    },
  },
  defaultAccess: app.default_access,
  askConsent: app.ask_consent,
  metadata,
  updatedAt: seconds(app.updated_at) as number,
});

/** What the audit keeps of an application: its settings, never its secret. */
export const audited = (app: App) => {
  const { client_secret_sealed: _secret, ...rest } = app;
  return rest;
};

/** The company's application, or "not found" (another company's app included). */
export async function appOf(trx: Db, companyId: string, appId: string, lock = false) {
  const app = await (lock ? repo.findAppForUpdate : repo.findApp)(trx, companyId, appId);
  if (!app) throw new AppError('app.not_found');
  return app;
}

export const audit = (
  trx: Db,
  actor: Actor,
  companyId: string,
  action: string,
  targetId: string,
  before?: unknown,
  after?: unknown,
) =>
  insertAuditEvent(trx, {
    companyId,
    actorAccountId: actor.accountId,
    action,
    targetType: 'app',
    targetId,
    before,
    after,
    ip: actor.ip,
  });
