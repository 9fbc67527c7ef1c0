/** Permissions and console roles (modules/permission, console-role): the tables of migration 18. */
import type { ColumnType } from 'kysely';
import type { NullableTimestamp, Timestamp } from './schema-columns.ts';

/** A custom console role of a company (spec §6 permission groups). */
export interface ConsoleRolesTable {
  id: string;
  company_id: string;
  name: string;
  description: string | null;
  /** ConsoleGrants: { groups: { <group>: 'read' | 'manage' }, abilities: [...] } (written as JSON text). */
  grants: ColumnType<unknown, string, string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A resource of an application (spec §3 Resource). */
export interface PermissionResourcesTable {
  id: string;
  company_id: string;
  app_id: string;
  name: string;
  type: 'menu' | 'api' | 'button' | 'data';
  description: string | null;
  data: string | null;
  /** Action types, a JSON array of strings (written as JSON text). */
  actions: ColumnType<string[], string | undefined, string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PermissionRolesTable {
  id: string;
  company_id: string;
  name: string;
  description: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PermissionRoleMembersTable {
  role_id: string;
  company_id: string;
  account_id: string;
  created_at: Timestamp;
}

/** A time-of-day window of an authorization: ISO weekdays and HH:MM bounds in its time zone. */
export interface StoredTimeWindow {
  days: number[];
  from: string;
  to: string;
}

export interface PermissionAuthorizationsTable {
  id: string;
  company_id: string;
  app_id: string;
  subject_type: 'user' | 'role' | 'department';
  subject_user_id: string | null;
  subject_role_id: string | null;
  subject_department_id: string | null;
  effect: 'allow' | 'reject';
  resource_scope: 'all' | 'specific';
  action_scope: 'all' | 'specific';
  actions: ColumnType<string[], string | undefined, string>;
  valid_from: NullableTimestamp;
  valid_until: NullableTimestamp;
  time_windows: ColumnType<StoredTimeWindow[], string | undefined, string>;
  time_zone: string;
  /** Canonical CIDR ranges (JSON array of strings). */
  ip_ranges: ColumnType<string[], string | undefined, string>;
  description: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PermissionAuthorizationResourcesTable {
  authorization_id: string;
  company_id: string;
  resource_id: string;
}

export interface PermissionTables {
  console_roles: ConsoleRolesTable;
  permission_resources: PermissionResourcesTable;
  permission_roles: PermissionRolesTable;
  permission_role_members: PermissionRoleMembersTable;
  permission_authorizations: PermissionAuthorizationsTable;
  permission_authorization_resources: PermissionAuthorizationResourcesTable;
}
