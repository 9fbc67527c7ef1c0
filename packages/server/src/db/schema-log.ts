/** Logs, syslog forwarding and brand (modules/log, syslog, brand): the tables of migration 15. */
import type { ColumnType } from 'kysely';
import type { NullableTimestamp, Timestamp } from './schema-columns.ts';

export interface AccountSignInPlacesTable {
  account_id: string;
  countries: ColumnType<string[], string[] | undefined, string[]>;
  last_latitude: number | null;
  last_longitude: number | null;
  last_at: NullableTimestamp;
}

export interface CompanyLogSettingsTable {
  company_id: string;
  retention_days: number;
  updated_at: Timestamp;
}

export interface LogAlertsTable {
  id: string;
  company_id: string;
  cause: string;
  account_id: string | null;
  identifier: string | null;
  count: number;
  threshold: number;
  window_minutes: number;
  created_at: Timestamp;
}

export interface CompanySyslogTable {
  company_id: string;
  enabled: boolean;
  protocol: 'udp' | 'tcp' | 'tls';
  host: string;
  port: number;
  tag: string;
  ca_pem: string | null;
  delivered_at: NullableTimestamp;
  delivered_event_at: NullableTimestamp;
  delivered_count: ColumnType<string, string | number | undefined, string | number>;
  last_error: string | null;
  last_error_at: NullableTimestamp;
  updated_at: Timestamp;
}

export interface SyslogOutboxTable {
  seq: ColumnType<string, never, never>;
  company_id: string;
  kind: 'signin' | 'audit' | 'alert';
  event_id: string;
  created_at: Timestamp;
}

export interface CompanyBrandTable {
  company_id: string;
  logo_file_id: string | null;
  background_file_id: string | null;
  primary_color: string | null;
  title: string | null;
  footer_text: string | null;
  footer_link: string | null;
  updated_at: Timestamp;
}

/**
 * Sign-ins per company and quarter of an hour (migration 21, written by a trigger on
 * login_events): '' stands for no cause, no client, no place.
 */
export interface SignInCountsTable {
  company_id: string;
  bucket: Date;
  result: 'success' | 'failure';
  cause: string;
  client_id: string;
  count: number;
}

/** Sign-ins per company, quarter of an hour and place (the province in China only). */
export interface SignInPlaceCountsTable {
  company_id: string;
  bucket: Date;
  country: string;
  region: string;
  count: number;
  new_country: number;
  impossible_travel: number;
}

/** Each person's latest successful sign-in in a company. */
export interface SignInPeopleTable {
  company_id: string;
  account_id: string;
  last_success_at: Date;
}

export interface LogTables {
  account_sign_in_places: AccountSignInPlacesTable;
  company_log_settings: CompanyLogSettingsTable;
  log_alerts: LogAlertsTable;
  company_syslog: CompanySyslogTable;
  syslog_outbox: SyslogOutboxTable;
  company_brand: CompanyBrandTable;
  sign_in_counts: SignInCountsTable;
  sign_in_place_counts: SignInPlaceCountsTable;
  sign_in_people: SignInPeopleTable;
}
