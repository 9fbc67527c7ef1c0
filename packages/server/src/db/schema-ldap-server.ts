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
  /** People are served as posixAccount and groups as posixGroup (Linux hosts: sssd, nslcd). */
  posix: Generated<boolean>;
  updated_at: Timestamp;
}

/** Each company's next POSIX number (uidNumber/gidNumber): it only rises. */
export interface LdapPosixCountersTable {
  company_id: string;
  next_number: number;
}

/** The POSIX number of a person or group (department or role) of a company, given once by a trigger. */
export interface LdapPosixIdsTable {
  company_id: string;
  subject_id: string;
  number: number;
}

export interface LdapServerTables {
  app_ldap_configs: AppLdapConfigsTable;
  ldap_posix_counters: LdapPosixCountersTable;
  ldap_posix_ids: LdapPosixIdsTable;
}

export type AppLdapConfig = Selectable<AppLdapConfigsTable>;
