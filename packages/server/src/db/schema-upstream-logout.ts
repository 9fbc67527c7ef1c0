import type { Timestamp } from './schema-columns.ts';

/**
 * Signing out at the upstream identity provider too (migration 40;
 * modules/identity-source/upstream/upstream-logout.ts).
 */

/** What the provider's logout needs, for a Tessera single sign-on session made through it. */
export interface UpstreamSessionsTable {
  id: string;
  source_id: string;
  account_id: string;
  /** The sign-in interaction, until the sign-in completes and makes (or renews) the session. */
  interaction_uid: string | null;
  /** The Tessera single sign-on session (oidc_payloads uid) once the sign-in completed. */
  sso_session_uid: string | null;
  /** OpenID Connect: the ID token (id_token_hint), sealed. */
  id_token_sealed: string | null;
  sid: string | null;
  /** SAML: the NameID as the assertion gave it, and its SessionIndex. */
  name_id: string | null;
  name_id_format: string | null;
  name_qualifier: string | null;
  sp_name_qualifier: string | null;
  session_index: string | null;
  created_at: Timestamp;
  expires_at: Date;
}

/** A sign-out sent on to the provider: where the browser goes when it comes back (used once). */
export interface UpstreamLogoutsTable {
  /** sha256 of the OIDC state, or the SAML LogoutRequest id. */
  id: string;
  source_id: string;
  next_url: string;
  expires_at: Date;
}

/** The jti of a back-channel logout token accepted, until the token is too old anyway. */
export interface UpstreamLogoutTokensTable {
  source_id: string;
  jti: string;
  expires_at: Date;
}

export interface UpstreamLogoutTables {
  upstream_sessions: UpstreamSessionsTable;
  upstream_logouts: UpstreamLogoutsTable;
  upstream_logout_tokens: UpstreamLogoutTokensTable;
}
