import type { CasAttributeSource, CasServicePattern } from '@tessera/contract';
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { NullableTimestamp, Timestamp } from './schema-columns.ts';

type JsonColumn<T> = ColumnType<T, string | undefined, string>;

/** The CAS settings of an application (modules/cas). */
export interface AppCasConfigsTable {
  app_id: string;
  company_id: string;
  service_patterns: JsonColumn<CasServicePattern[]>;
  attributes: JsonColumn<CasAttributeSource[]>;
  /** A service or proxy ticket's lifetime, seconds. */
  ticket_ttl: Generated<number>;
  allow_proxy: Generated<boolean>;
  slo_enabled: Generated<boolean>;
  /** Where single logout is posted; null: the service URL of each ticket. */
  slo_url: string | null;
  updated_at: Timestamp;
}

/** A sign-in under way: a `/login` waiting for the provider's sign-in to finish. */
export interface CasFlowsTable {
  id: string;
  app_id: string;
  service: string;
  renew: boolean;
  gateway: boolean;
  /** `method=POST`: the ticket goes to the service in a posted form. */
  post_response: boolean;
  created_at: Timestamp;
  expires_at: Date;
  consumed_at: NullableTimestamp;
}

/**
 * A ticket: a service ticket (ST-), a proxy ticket (PT-) or a proxy-granting ticket (PGT-).
 * A service ticket that was validated stays as the person's session at the service until single
 * logout reaches it.
 */
export interface CasTicketsTable {
  id: string;
  kind: 'ST' | 'PT' | 'PGT';
  company_id: string;
  app_id: string;
  account_id: string;
  /** The provider's single sign-on session the ticket was issued in. */
  sso_session_uid: string;
  /** The service it is for (a PGT: the proxy callback it was sent to). */
  service: string;
  /** Issued from a sign-in with the person's credentials just now (renew, isFromNewLogin). */
  renewed: boolean;
  /** The proxies a PT or PGT went through, the most recent first. */
  proxies: JsonColumn<string[]>;
  authenticated_at: Date;
  created_at: Timestamp;
  expires_at: Date;
  consumed_at: NullableTimestamp;
  validated_at: NullableTimestamp;
  logout_sent_at: NullableTimestamp;
}

export interface CasTables {
  app_cas_configs: AppCasConfigsTable;
  cas_flows: CasFlowsTable;
  cas_tickets: CasTicketsTable;
}

export type AppCasConfig = Selectable<AppCasConfigsTable>;
export type CasFlow = Selectable<CasFlowsTable>;
export type CasTicket = Selectable<CasTicketsTable>;
