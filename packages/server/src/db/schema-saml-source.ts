/** The upstream SAML identity sources (modules/identity-source/saml-source): the tables of migration 36. */
import type { ColumnType } from 'kysely';
import type { Timestamp } from './schema-columns.ts';

/**
 * An AuthnRequest sent to an upstream, bound to the sign-in interaction it was sent for. The ACS
 * marks it verified (the person found, a handoff token for the interaction); the interaction's
 * own page then takes it, once.
 */
export interface SamlSourceRequestsTable {
  /** The AuthnRequest's ID: the response's InResponseTo. */
  id: string;
  source_id: string;
  interaction_uid: string;
  created_at: Timestamp;
  expires_at: Date;
  /** SHA-256 of the handoff token the ACS sent the browser back with. */
  handoff_hash: string | null;
  /** Who the verified assertion named and how (saml-source-signin.ts). */
  verified: ColumnType<unknown, string | null | undefined, string | null>;
}

/** The ids of assertions already used, until they expire: a replay is refused on any instance. */
export interface SamlSourceAssertionsTable {
  source_id: string;
  assertion_id: string;
  expires_at: Date;
}

export interface SamlSourceTables {
  saml_source_requests: SamlSourceRequestsTable;
  saml_source_assertions: SamlSourceAssertionsTable;
}
