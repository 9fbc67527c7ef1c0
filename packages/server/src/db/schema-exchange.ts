/** The Exchange agent and devices (modules/exchange): the tables of migration 20. */
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { NullableTimestamp, Timestamp } from './schema-columns.ts';

/** A company's Exchange agent and device rules (modules/exchange). */
export interface ExchangeSettingsTable {
  company_id: string;
  enabled: Generated<boolean>;
  exchange_url: string | null;
  credential_mode: Generated<'service' | 'personal'>;
  service_username: string | null;
  service_password_sealed: string | null;
  activation: Generated<'approval' | 'automatic'>;
  user_device_limit: Generated<number>;
  default_device_permission: Generated<'user' | 'admin'>;
  device_password_digits: Generated<number>;
  rotation_days: Generated<number>;
  registration_token_sealed: string;
  registration_token_hmac: string;
  token_rotated_at: Timestamp;
  updated_at: Timestamp;
}

/** A phone of a person in a company, as its ActiveSync DeviceId names it. */
export interface ExchangeDevicesTable {
  id: string;
  company_id: string;
  account_id: string;
  device_id: string;
  device_type: string;
  name: string;
  os: string | null;
  user_agent: string | null;
  activation: 'to_be_activated' | 'active';
  status: Generated<'enabled' | 'disabled'>;
  access_permission: Generated<'full' | 'receive_only'>;
  policy: ColumnType<unknown | null, string | null | undefined, string | null>;
  password_hash: string | null;
  password_pending_sealed: string | null;
  password_set_at: NullableTimestamp;
  registered_at: Timestamp;
  activated_at: NullableTimestamp;
  last_login_at: NullableTimestamp;
  last_offline_at: NullableTimestamp;
  online_until: NullableTimestamp;
  last_seen_at: NullableTimestamp;
  last_ip: string | null;
}

/** A person's own Exchange sign-in, sealed (personal credential mode). */
export interface ExchangeCredentialsTable {
  company_id: string;
  account_id: string;
  username: string;
  password_sealed: string;
  updated_at: Timestamp;
}

export interface ExchangeTables {
  exchange_settings: ExchangeSettingsTable;
  exchange_devices: ExchangeDevicesTable;
  exchange_credentials: ExchangeCredentialsTable;
}

export type ExchangeSettingsRow = Selectable<ExchangeSettingsTable>;
export type ExchangeDevice = Selectable<ExchangeDevicesTable>;
