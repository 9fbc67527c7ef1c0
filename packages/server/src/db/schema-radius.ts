import type { ColumnType, Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './schema-columns.ts';

/** A RADIUS client of a company (modules/radius). */
export interface RadiusClientsTable {
  id: string;
  company_id: string;
  name: string;
  /** A cidr: a single address is stored as /32 (/128). */
  source: string;
  secret_sealed: string;
  enabled: Generated<boolean>;
  access: Generated<'all' | 'restricted'>;
  otp_mode: Generated<'challenge' | 'appended'>;
  /** Whether people without an authenticator app get the challenge's code by SMS. */
  sms_codes: Generated<boolean>;
  accepts: ColumnType<string, never, string | number>;
  rejects: ColumnType<string, never, string | number>;
  challenges: ColumnType<string, never, string | number>;
  dropped_no_authenticator: ColumnType<string, never, string | number>;
  dropped_bad_authenticator: ColumnType<string, never, string | number>;
  last_request_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface RadiusClientDepartmentsTable {
  client_id: string;
  department_id: string;
}

/** An Access-Challenge's State (hashed): single use, short-lived. */
export interface RadiusChallengesTable {
  state_hash: string;
  client_id: string;
  account_id: string;
  username: string;
  /** The one-time code sent by SMS for this challenge, if one was. */
  code_id: string | null;
  expires_at: Date;
  created_at: Generated<Date>;
}

export interface RadiusTables {
  radius_clients: RadiusClientsTable;
  radius_client_departments: RadiusClientDepartmentsTable;
  radius_challenges: RadiusChallengesTable;
}
