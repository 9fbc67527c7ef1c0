import type { ColumnType, Generated, Selectable } from 'kysely';

import type { NullableTimestamp, Timestamp } from './schema-columns.ts';

type JsonColumn<T> = ColumnType<T, string | undefined, string>;

/** A company's SAML signing keys: one active, at most one next (published before it signs), retired ones. */
export interface SamlSigningKeysTable {
  id: string;
  company_id: string;
  status: 'active' | 'next' | 'retired';
  private_key_sealed: string;
  /** The self-signed certificate, base64 DER. */
  certificate: string;
  not_after: Date;
  created_at: Timestamp;
  activated_at: NullableTimestamp;
  retired_at: NullableTimestamp;
}

export interface SamlAcsEndpoint {
  url: string;
  index: number;
  isDefault: boolean;
}

export interface SamlAttributeMapping {
  name: string;
  nameFormat: 'unspecified' | 'uri' | 'basic';
  friendlyName: string | null;
  source: 'username' | 'name' | 'email' | 'phone' | 'departments' | 'roles' | 'user_id' | 'fixed';
  /** The value of a `fixed` attribute. */
  value: string | null;
}

/** The service provider settings of a SAML application. */
export interface AppSamlConfigsTable {
  app_id: string;
  company_id: string;
  entity_id: string | null;
  acs: JsonColumn<SamlAcsEndpoint[]>;
  slo_url: string | null;
  slo_binding: Generated<'post' | 'redirect'>;
  slo_response_url: string | null;
  /** Base64 DER certificates the service provider signs requests with. */
  signing_certificates: JsonColumn<string[]>;
  encryption_certificate: string | null;
  name_id_format: Generated<'unspecified' | 'emailAddress' | 'persistent' | 'transient'>;
  name_id_source: Generated<'username' | 'email' | 'persistent'>;
  attributes: JsonColumn<SamlAttributeMapping[]>;
  sign_response: Generated<boolean>;
  sign_assertion: Generated<boolean>;
  signature_algorithm: Generated<'rsa-sha256' | 'rsa-sha512' | 'rsa-sha1'>;
  encrypt_assertion: Generated<boolean>;
  require_signed_requests: Generated<boolean>;
  default_relay_state: string | null;
  metadata_url: string | null;
  updated_at: Timestamp;
}

/** A sign-in under way: the SAML request waiting for the provider's sign-in to finish. */
export interface SamlFlowsTable {
  id: string;
  app_id: string;
  /** The AuthnRequest's ID (InResponseTo); null for a sign-in started at Tessera (IdP-initiated). */
  request_id: string | null;
  acs_url: string;
  relay_state: string | null;
  passive: boolean;
  created_at: Timestamp;
  expires_at: Date;
  consumed_at: NullableTimestamp;
}

/** Ids of SAML messages received, kept while they could still be valid: a second arrival is a replay. */
export interface SamlSeenMessagesTable {
  app_id: string;
  message_id: string;
  expires_at: Date;
}

/** A person's sign-in at a service provider, within one single sign-on session of the provider. */
export interface SamlSessionsTable {
  /** The SessionIndex. */
  id: string;
  company_id: string;
  app_id: string;
  account_id: string;
  /** The provider's single sign-on session (its `uid`): the SAML session lives while it does. */
  sso_session_uid: string;
  name_id: string;
  name_id_format: string;
  created_at: Timestamp;
  expires_at: Date;
  /** Set when single logout was sent to the service provider (or it has no logout address). */
  ended_at: NullableTimestamp;
  /** The LogoutRequest sent to the service provider, whose LogoutResponse is awaited. */
  logout_request_id: string | null;
}

/** A single logout under way through the service providers of an ended single sign-on session. */
export interface SamlLogoutChainsTable {
  id: string;
  sso_session_uid: string;
  account_id: string;
  /** Where the browser goes when every service provider was told. */
  next_url: string;
  expires_at: Date;
}

export interface SamlTables {
  saml_logout_chains: SamlLogoutChainsTable;
  saml_signing_keys: SamlSigningKeysTable;
  app_saml_configs: AppSamlConfigsTable;
  saml_flows: SamlFlowsTable;
  saml_seen_messages: SamlSeenMessagesTable;
  saml_sessions: SamlSessionsTable;
}

export type SamlSigningKey = Selectable<SamlSigningKeysTable>;
export type AppSamlConfig = Selectable<AppSamlConfigsTable>;
export type SamlFlow = Selectable<SamlFlowsTable>;
export type SamlSession = Selectable<SamlSessionsTable>;
