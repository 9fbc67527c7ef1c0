import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { App } from '../../db/schema.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { companySectorUri } from '../oidc/subject.ts';

export const CLIENT_SECRET_PURPOSE = 'client-secret';
export const API_ACCOUNT_SECRET_PURPOSE = 'api-account-secret';

/** What the provider knows of an application's client beyond the standard metadata. */
export interface TesseraAppClient {
  appId: string;
  companyId: string;
  /** Each person is asked for consent to what it reads (an app run by another organisation). */
  askConsent: boolean;
  requirePkce: boolean;
  /** OIDC Front-Channel Logout 1.0 (the provider has no setting for it: the sign-out page loads it). */
  frontchannelLogoutUri: string | null;
  ttl: { authorizationCode: number; idToken: number; accessToken: number; refreshToken: number };
  /** Which client secret the app has (apiSecretVersion): its decision API tokens end with it. */
  secretVersion: string;
}

/** What the provider knows of a programmatic access account's client. */
export interface TesseraApiClient {
  accountId: string;
  appId: string;
  companyId: string;
  /** Which secret the account has (apiSecretVersion): its tokens end when the secret is reset. */
  secretVersion: string;
}

/**
 * A short fingerprint of an access account's or application's sealed secret (sealing is randomised, so every
 * reset gives a new one). Access tokens carry it; a token of an older secret is refused.
 */
export const apiSecretVersion = (secretSealed: string): string =>
  createHash('sha256').update(secretSealed).digest('base64url').slice(0, 22);

/** Extra client metadata the provider accepts (only ever set by Tessera itself, from the database). */
export const extraClientProperties = ['tessera_app', 'tessera_api_account'] as const;

const isWebScheme = (uri: string) => uri.startsWith('https:') || uri.startsWith('http:');

/** The client metadata of an application as oidc-provider reads it. */
export function appClientMetadata(app: App, clientSecret: string) {
  const tessera: TesseraAppClient = {
    appId: app.id,
    companyId: app.company_id,
    askConsent: app.ask_consent,
    requirePkce: app.require_pkce,
    frontchannelLogoutUri: app.frontchannel_logout_uri,
    ttl: {
      authorizationCode: app.authorization_code_ttl,
      idToken: app.id_token_ttl,
      accessToken: app.access_token_ttl,
      refreshToken: app.refresh_token_ttl,
    },
    secretVersion: apiSecretVersion(app.client_secret_sealed),
  };
  // A confidential client also gets tokens of its own for the permission decision API.
  const confidential = app.token_auth_method !== 'none';
  return {
    client_id: app.client_id,
    client_secret: clientSecret,
    client_name: app.name,
    // A native app's private-use scheme callback (RFC 8252) makes it a native client.
    application_type: app.redirect_uris.every(isWebScheme) ? 'web' : 'native',
    redirect_uris: app.redirect_uris,
    post_logout_redirect_uris: app.post_logout_redirect_uris,
    // A person's `sub` is the same in every app of the company, and unrelated elsewhere (subject.ts).
    subject_type: 'pairwise',
    sector_identifier_uri: companySectorUri(app.company_id),
    ...(app.backchannel_logout_uri
      ? { backchannel_logout_uri: app.backchannel_logout_uri, backchannel_logout_session_required: true }
      : {}),
    grant_types: ['authorization_code', 'refresh_token', ...(confidential ? ['client_credentials'] : [])],

    response_types: ['code'],
    scope: app.scopes.join(' '),
    id_token_signed_response_alg: app.signing_alg,
    token_endpoint_auth_method: app.token_auth_method,
    tessera_app: tessera,
  };
}

/** Where a SAML application's internal client comes back to (modules/saml). */
export interface SamlClientUrls {
  callback: string;
  logoutReturn: string;
}

/**
 * A SAML application's internal client: SAML sign-ins are authorizations of it, so that they run
 * through the one sign-in pipeline and single sign-on session. Its code and its logout return go
 * to Tessera's own SAML endpoints only; no refresh tokens, short-lived tokens that never leave
 * the server.
 */
export function samlClientMetadata(app: App, clientSecret: string, urls: SamlClientUrls) {
  const tessera: TesseraAppClient = {
    appId: app.id,
    companyId: app.company_id,
    askConsent: app.ask_consent,
    requirePkce: true,
    frontchannelLogoutUri: null,
    ttl: { authorizationCode: 60, idToken: 60, accessToken: 60, refreshToken: 60 },
    secretVersion: apiSecretVersion(app.client_secret_sealed),
  };
  return {
    client_id: app.client_id,
    client_secret: clientSecret,
    client_name: app.name,
    application_type: 'web',
    redirect_uris: [urls.callback],
    post_logout_redirect_uris: [urls.logoutReturn],
    grant_types: ['authorization_code'],
    response_types: ['code'],
    scope: 'openid',
    id_token_signed_response_alg: 'ES256',
    token_endpoint_auth_method: 'client_secret_basic',
    tessera_app: tessera,
  };
}

/**
 * Client metadata by client id, read from the database on every request: a changed, disabled
 * or deleted application or access account takes effect on the next request on every server
 * instance. An application without a callback URL (or a form-fill one) is no OIDC client (a SAML
 * one is its internal client, see samlClientMetadata); a
 * disabled one still is, so that its users see why they cannot sign in. An expired access
 * account is no client at all: its next token request is refused.
 */
export async function findClientMetadata(
  db: Db,
  sealer: Sealer,
  clientId: string,
  saml: SamlClientUrls,
  cas: SamlClientUrls,
) {
  if (clientId.startsWith('api_')) {
    const account = await db
      .selectFrom('app_api_accounts')
      .select(['id', 'app_id', 'company_id', 'client_id', 'secret_sealed'])
      .where('client_id', '=', clientId)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
      .executeTakeFirst();
    if (!account) return undefined;
    const tessera: TesseraApiClient = {
      accountId: account.id,
      appId: account.app_id,
      companyId: account.company_id,
      secretVersion: apiSecretVersion(account.secret_sealed),
    };
    return {
      client_id: account.client_id,
      client_secret: sealer.open(account.secret_sealed, API_ACCOUNT_SECRET_PURPOSE),
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      tessera_api_account: tessera,
    };
  }
  const app = await db
    .selectFrom('apps')
    .selectAll()
    .where('client_id', '=', clientId)
    .where('protocol', 'in', ['oidc', 'saml', 'cas'])
    .executeTakeFirst();
  // A CAS application's internal client is built as a SAML one's, with the CAS addresses (modules/cas).
  if (app?.protocol === 'cas')
    return samlClientMetadata(app, sealer.open(app.client_secret_sealed, CLIENT_SECRET_PURPOSE), cas);
  if (app?.protocol === 'saml')
    return samlClientMetadata(app, sealer.open(app.client_secret_sealed, CLIENT_SECRET_PURPOSE), saml);
  if (!app || app.redirect_uris.length === 0) return undefined;
  return appClientMetadata(app, sealer.open(app.client_secret_sealed, CLIENT_SECRET_PURPOSE));
}
