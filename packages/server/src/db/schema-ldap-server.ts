import type { Generated, Selectable } from 'kysely';
import type { NullableTimestamp, Timestamp } from './schema-columns.ts';

/** The LDAP settings of an application (modules/ldap-server). */
export interface AppLdapConfigsTable {
  app_id: string;
  company_id: string;
  /** SHA-256 (hex) of the service account's secret; null until one is made. */
  secret_hash: string | null;
  secret_rotated_at: NullableTimestamp;
  /** People may bind with their password alone although the company asks them for a second factor. */
  allow_password_with_mfa: Generated<boolean>;
  updated_at: Timestamp;
}

export interface LdapServerTables {
  app_ldap_configs: AppLdapConfigsTable;
}

export type AppLdapConfig = Selectable<AppLdapConfigsTable>;
