import type { Generated } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from './schema-columns.ts';

/** A company's SCIM bearer token (modules/scim): only its SHA-256 is kept. */
export interface ScimTokensTable {
  id: string;
  company_id: string;
  name: string;
  token_hash: string;
  groups_as: Generated<'departments' | 'roles'>;
  expires_at: NullableTimestamp;
  created_at: Timestamp;
  last_used_at: NullableTimestamp;
  last_used_ip: string | null;
}

/** Whether SCIM clients may set passwords (off unless the company turns it on). */
export interface ScimSettingsTable {
  company_id: string;
  allow_passwords: boolean;
  updated_at: Timestamp;
}

/** What SCIM says of a person that has no column of its own (externalId, name parts, enterprise extension). */
export interface ScimUsersTable {
  company_id: string;
  account_id: string;
  external_id: string | null;
  attributes: Json;
}

/** The externalId a SCIM client gave a department it created or named. */
export interface ScimGroupsTable {
  company_id: string;
  department_id: string;
  external_id: string | null;
}

/** The externalId a SCIM client gave a permission role it created or named (tokens whose groups are roles). */
export interface ScimRolesTable {
  company_id: string;
  role_id: string;
  external_id: string | null;
}

export interface ScimTables {
  scim_tokens: ScimTokensTable;
  scim_settings: ScimSettingsTable;
  scim_users: ScimUsersTable;
  scim_groups: ScimGroupsTable;
  scim_roles: ScimRolesTable;
}
