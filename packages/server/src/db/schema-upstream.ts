import type { NullableTimestamp, Timestamp } from './schema-columns.ts';

/** A sign-in at an upstream identity provider under way (migration 35; modules/identity-source/upstream). */
export interface UpstreamStatesTable {
  /** sha256 of the state sent to the upstream. */
  id: string;
  source_id: string;
  interaction_uid: string;
  /** OpenID Connect: the nonce the ID token must carry (SAML: the AuthnRequest id). */
  nonce: string | null;
  /** OpenID Connect: the PKCE verifier. */
  code_verifier: string | null;
  expires_at: Date;
  used_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface UpstreamTables {
  upstream_states: UpstreamStatesTable;
}
