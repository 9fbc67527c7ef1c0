import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { AppTables } from './schema-app.ts';
import type { CaTables } from './schema-ca.ts';
import type { CasTables } from './schema-cas.ts';
import type { Json, NullableTimestamp, Timestamp } from './schema-columns.ts';
import type { ExchangeTables } from './schema-exchange.ts';
import type { IdentitySourceTables } from './schema-identity-source.ts';
import type { LdapServerTables } from './schema-ldap-server.ts';
import type { LogTables } from './schema-log.ts';
import type { MfaTables } from './schema-mfa.ts';
import type { PermissionTables } from './schema-permission.ts';
import type { ProvisioningTables } from './schema-provisioning.ts';
import type { RadiusTables } from './schema-radius.ts';
import type { SamlTables } from './schema-saml.ts';
import type { SamlSourceTables } from './schema-saml-source.ts';
import type { ScimTables } from './schema-scim.ts';
import type { SmsTables } from './schema-sms.ts';
import type { UpstreamTables } from './schema-upstream.ts';
import type { UpstreamLogoutTables } from './schema-upstream-logout.ts';

export type * from './schema-app.ts';
export type * from './schema-ca.ts';
export type * from './schema-exchange.ts';
export type * from './schema-identity-source.ts';
export type * from './schema-log.ts';
export type * from './schema-mfa.ts';
export type * from './schema-permission.ts';
export type * from './schema-radius.ts';
export type * from './schema-upstream.ts';
export type * from './schema-upstream-logout.ts';

export interface AccountsTable {
  id: string;
  username: string;
  email: string | null;
  phone: string | null;
  display_name: string | null;
  password_hash: string;
  status: 'enabled' | 'disabled';
  is_platform_admin: Generated<boolean>;
  failed_count: Generated<number>;
  last_failed_at: NullableTimestamp;
  locked_until: NullableTimestamp;
  login_count: Generated<number>;
  last_login_at: NullableTimestamp;
  password_changed_at: Timestamp;
  /** Raised by every password change; sessions of an older version are dead. */
  credential_version: Generated<number>;
  nickname: ColumnType<string | null, string | null | undefined, string | null>;
  photo_file_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The sign-in page makes the person choose a new password before anything else. */
  must_change_password: Generated<boolean>;
  /** The company that created the account and manages its profile and password; null for developer accounts. */
  home_company_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Generated: lowercase username, name, email and phone, what the user list's keyword search reads. */
  search_text: ColumnType<string, never, never>;
  /** Wrong second-factor codes since the last good one, and the lock they caused. */
  mfa_failed_count: Generated<number>;
  /** Set by a trigger whenever credential_version rises: single sign-on sessions from before it end. */
  credentials_changed_at: ColumnType<Date | null, never, never>;
  mfa_locked_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** When the person proved the address theirs with a code; cleared when it changes. */
  email_verified_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  phone_verified_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
}

export interface CompaniesTable {
  id: string;
  name: string;
  client_key: string;
  /** The short code in the user centre's address (/portal/c/<code>/); given once, never changed. */
  code: Generated<string>;
  icon_file_id: string | null;
  default_language: 'en' | 'zh';
  owner_account_id: string;
  created_at: Timestamp;
}

export interface CompanyMembersTable {
  company_id: string;
  account_id: string;
  role: 'owner' | 'admin' | 'external_admin' | 'delegated_admin' | 'member';
  /** The console role of a delegated administrator (set exactly when the role is delegated_admin). */
  console_role_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The person's standing in this company; an automatic lock-out is on the account. */
  status: Generated<'enabled' | 'disabled' | 'locked'>;
  /** Spec §6: permission on device management (a new record gets the company's default). */
  device_permission: Generated<'user' | 'admin'>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface DepartmentsTable {
  id: string;
  company_id: string;
  /** Null only for the company's root department. */
  parent_id: string | null;
  name: string;
  manager_account_id: string | null;
  sort_order: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface DepartmentMembersTable {
  department_id: string;
  company_id: string;
  account_id: string;
  created_at: Timestamp;
}

export interface ImportTasksTable {
  id: string;
  company_id: string;
  created_by: string | null;
  status: 'importing' | 'success' | 'failed';
  file_name: string | null;
  total: Generated<number>;
  created: Generated<number>;
  errors: ColumnType<unknown, string | null | undefined, string | null>;
  created_at: Timestamp;
  finished_at: NullableTimestamp;
  /** Address the file was uploaded from (for the audit event written when it is imported). */
  created_ip: string | null;
  /** Null while the task waits in the queue. */
  started_at: NullableTimestamp;
  /** The instance running the task, and when it last said so. */
  claimed_by: string | null;
  heartbeat_at: NullableTimestamp;
}

/** The uploaded workbook of an import task, kept until the task ends. */
export interface ImportTaskFilesTable {
  task_id: string;
  content: Uint8Array;
}

export interface SignInLinksTable {
  token_hash: string;
  account_id: string;
  company_id: string | null;
  created_by: string | null;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface FilesTable {
  id: string;
  company_id: string | null;
  content_type: string;
  bytes: Uint8Array;
  created_at: Timestamp;
}

export interface ConsoleSessionsTable {
  id: string;
  token_hash: string;
  account_id: string;
  /** Which client the session belongs to: a console variant or the portal's user centre. */
  variant: 'admin' | 'dev' | 'portal';
  id_token: string | null;
  refresh_token_sealed: string | null;
  /** The account's credential version when the session started. */
  credential_version: Generated<number>;
  created_at: Timestamp;
  last_seen_at: Timestamp;
  idle_expires_at: Timestamp;
  absolute_expires_at: Timestamp;
  revoked_at: NullableTimestamp;
}

export interface LoginEventsTable {
  id: string;
  company_id: string | null;
  account_id: string | null;
  identifier: string;
  client_id: string | null;
  ip: string | null;
  user_agent: string | null;
  result: 'success' | 'failure';
  failure_cause: string | null;
  /** The Exchange device the event is about (modules/exchange), if any. */
  device_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Place of the address (ISO 3166-1 alpha-2, region, city) and city-precision coordinates, at write time. */
  country: ColumnType<string | null, string | null | undefined, string | null>;
  region: ColumnType<string | null, string | null | undefined, string | null>;
  city: ColumnType<string | null, string | null | undefined, string | null>;
  latitude: ColumnType<number | null, number | null | undefined, number | null>;
  longitude: ColumnType<number | null, number | null | undefined, number | null>;
  /** Browser and operating system read from the user agent at write time. */
  browser: ColumnType<string | null, string | null | undefined, string | null>;
  os: ColumnType<string | null, string | null | undefined, string | null>;
  /** `new_country`, `impossible_travel` (successful sign-ins only). */
  marks: ColumnType<string[] | null, string[] | null | undefined, string[] | null>;
  /** A RADIUS request's NAS-IP-Address (or NAS-IPv6-Address) and Calling-Station-Id (modules/radius). */
  nas_ip: ColumnType<string | null, string | null | undefined, string | null>;
  calling_station_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** How the person proved who they were (`password`, `passkey`, `email_code`, `sms_code`...), if recorded. */
  method: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
}

/** A sliding window budget (lib/rate-windows.ts): a count per minute, oldest first. */
export interface RateWindowsTable {
  key: string;
  last_minute: ColumnType<string, number | string, number | string>;
  counts: number[];
  updated_at: Generated<Date>;
}

/** A browser that signed in to the account before (the signed device cookie). */
export interface SignInDevicesTable {
  account_id: string;
  device_id: string;
  created_at: Generated<Date>;
  last_success_at: Generated<Date>;
  failed_count: Generated<number>;
  last_failed_at: NullableTimestamp;
  locked_until: NullableTimestamp;
}

/** Failures of an identifier that names no account (locked out like an account). */
export interface SignInUnknownTable {
  identifier: string;
  failed_count: Generated<number>;
  last_failed_at: Generated<Date>;
  locked_until: NullableTimestamp;
}

/** An address from which a client authenticated with its secret. */
export interface OidcClientAddressesTable {
  client_id: string;
  ip: string;
  last_success_at: Generated<Date>;
}

export interface OidcPayloadsTable {
  model: string;
  id: string;
  payload: Json;
  grant_id: string | null;
  user_code: string | null;
  uid: string | null;
  /** The account the row belongs to (grants, tokens, sessions): revoked together. */
  account_id: string | null;
  expires_at: NullableTimestamp;
  consumed_at: NullableTimestamp;
}

export interface SigningKeysTable {
  kid: string;
  alg: string;
  status: 'active' | 'retired';
  private_jwk_sealed: string;
  created_at: Timestamp;
  retired_at: NullableTimestamp;
}

/** The installation's own settings (one row, migration 25). */
export interface PlatformSettingsTable {
  id: Generated<boolean>;
  company_creation: 'everyone' | 'platform_admins';
  updated_at: Timestamp;
}

export interface AuditEventsTable {
  id: string;
  company_id: string | null;
  actor_account_id: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  before: ColumnType<unknown, string | null, string | null>;
  after: ColumnType<unknown, string | null, string | null>;
  ip: string | null;
  created_at: Timestamp;
}

export interface InstallationTable {
  id: number;
  application_code: string;
  created_at: Timestamp;
}

export interface LicensesTable {
  id: string;
  license_id: string;
  customer: string;
  payload: ColumnType<unknown, string, string>;
  raw: string;
  active: boolean;
  imported_by: string | null;
  imported_at: Timestamp;
}

/** A company's quota of one counted function (users, applications); no row: no limit beyond the licence. */
export interface CompanyQuotasTable {
  company_id: string;
  module: 'user' | 'app';
  /** null: no limit beyond the licence. */
  quota: number | null;
  updated_at: Timestamp;
}

export interface SchemaMigrationsTable {
  id: number;
  name: string;
  applied_at: Timestamp;
}

/** A background job (modules/jobs): claimed by one instance at a time, one running per key. */
export interface JobsTable {
  id: string;
  kind: string;
  key: string | null;
  payload: ColumnType<unknown, string | undefined, string>;
  status: Generated<'queued' | 'running' | 'done' | 'failed'>;
  run_after: Timestamp;
  every_seconds: number | null;
  attempts: Generated<number>;
  max_attempts: number | null;
  locked_by: string | null;
  lease_until: NullableTimestamp;
  last_error: string | null;
  created_at: Timestamp;
  started_at: NullableTimestamp;
  finished_at: NullableTimestamp;
  /** While a job of a kind with a platform-wide limit runs: its place (0 to limit - 1). */
  slot: Generated<number | null>;
}

export interface Database
  extends SamlTables,
    CasTables,
    ProvisioningTables,
    LdapServerTables,
    AppTables,
    LogTables,
    PermissionTables,
    IdentitySourceTables,
    UpstreamTables,
    UpstreamLogoutTables,
    SamlSourceTables,
    ExchangeTables,
    RadiusTables,
    CaTables,
    MfaTables,
    SmsTables,
    ScimTables {
  accounts: AccountsTable;
  companies: CompaniesTable;
  company_members: CompanyMembersTable;
  departments: DepartmentsTable;
  department_members: DepartmentMembersTable;
  import_tasks: ImportTasksTable;
  import_task_files: ImportTaskFilesTable;
  sign_in_links: SignInLinksTable;
  files: FilesTable;
  console_sessions: ConsoleSessionsTable;
  login_events: LoginEventsTable;
  rate_windows: RateWindowsTable;
  sign_in_devices: SignInDevicesTable;
  sign_in_unknown: SignInUnknownTable;
  oidc_client_addresses: OidcClientAddressesTable;
  oidc_payloads: OidcPayloadsTable;
  signing_keys: SigningKeysTable;
  audit_events: AuditEventsTable;
  platform_settings: PlatformSettingsTable;
  installation: InstallationTable;
  licenses: LicensesTable;
  company_quotas: CompanyQuotasTable;
  jobs: JobsTable;
  schema_migrations: SchemaMigrationsTable;
}

export type Account = Selectable<AccountsTable>;

/**
 * Every column of accounts, for hot statements that read whole rows: prepared statements name
 * their columns (db/statement-names.ts), so that a column added later does not change what a
 * statement prepared before it returns.
 */
export const ACCOUNT_COLUMNS = [
  'id',
  'username',
  'email',
  'phone',
  'display_name',
  'password_hash',
  'status',
  'is_platform_admin',
  'failed_count',
  'last_failed_at',
  'locked_until',
  'login_count',
  'last_login_at',
  'password_changed_at',
  'credential_version',
  'nickname',
  'photo_file_id',
  'must_change_password',
  'home_company_id',
  'search_text',
  'mfa_failed_count',
  'credentials_changed_at',
  'mfa_locked_until',
  'email_verified_at',
  'phone_verified_at',
  'created_at',
] as const satisfies readonly (keyof AccountsTable)[];
/** Fails to compile when ACCOUNT_COLUMNS misses a column of AccountsTable. */
type Complete<Missing extends never> = Missing;
export type AccountColumnsComplete = Complete<Exclude<keyof AccountsTable, (typeof ACCOUNT_COLUMNS)[number]>>;
export type NewAccount = Insertable<AccountsTable>;
export type AccountUpdate = Updateable<AccountsTable>;
export type Company = Selectable<CompaniesTable>;
export type ConsoleSession = Selectable<ConsoleSessionsTable>;
export type Job = Selectable<JobsTable>;
