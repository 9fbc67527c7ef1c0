import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Json = ColumnType<unknown, string, string>;

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
  created_at: Timestamp;
}

/** A company's safety settings; null parts follow the contract's defaults. */
export interface CompanySafetyTable {
  company_id: string;
  general: ColumnType<unknown | null, string | null | undefined, string | null>;
  mfa: ColumnType<unknown | null, string | null | undefined, string | null>;
  updated_at: Generated<Date>;
}

export interface MfaFactorsTable {
  id: string;
  account_id: string;
  type: string;
  name: string;
  status: 'bound' | 'unbound';
  /** OTP seed, sealed with the master key. */
  secret_sealed: string | null;
  /** The last accepted OTP time step: a code of that step or an older one is refused. */
  last_used_step: ColumnType<number | null, number | null | undefined, number | null>;
  /** FIDO2: the credential id (base64url), its COSE public key, counter and transports. */
  credential_id: string | null;
  public_key: Buffer | null;
  sign_count: ColumnType<number | null, number | null | undefined, number | null>;
  transports: ColumnType<unknown | null, string | null | undefined, string | null>;
  /** Signature factors: a UKEY's KeyId or a soft lock's container id. */
  key_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Signature factors: the key's algorithm and strength (public_key holds its SubjectPublicKeyInfo). */
  key_algorithm: ColumnType<string | null, string | null | undefined, string | null>;
  key_strength: ColumnType<string | null, string | null | undefined, string | null>;
  /** ukey_cert: the issued certificate, checked (valid, not revoked) at every use. */
  certificate_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Generated<Date>;
  bound_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  last_used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface MfaRecoveryCodesTable {
  account_id: string;
  code_hash: string;
  created_at: Generated<Date>;
  used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** (FIDO2 helper) A WebAuthn challenge, single use (deleted when used). */
export interface WebauthnChallengesTable {
  challenge: string;
  purpose: 'register' | 'second_factor' | 'first_factor';
  subject: string;
  expires_at: Date;
  created_at: Generated<Date>;
}

export interface CompaniesTable {
  id: string;
  name: string;
  client_key: string;
  icon_file_id: string | null;
  default_language: 'en' | 'zh';
  owner_account_id: string;
  created_at: Timestamp;
}

export interface CompanyMembersTable {
  company_id: string;
  account_id: string;
  role: 'owner' | 'admin' | 'external_admin' | 'member';
  /** The person's standing in this company; an automatic lock-out is on the account. */
  status: Generated<'enabled' | 'disabled' | 'locked'>;
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
  nas_ip: ColumnType<string | null, string | null | undefined, string | null>;
  calling_station_id: ColumnType<string | null, string | null | undefined, string | null>;
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

export interface AppsTable {
  id: string;
  company_id: string;
  name: string;
  description: string | null;
  type: 'self_built' | 'third_party';
  protocol: 'oidc' | 'form';
  template: string | null;
  status: Generated<'to_be_configured' | 'opened' | 'disabled'>;
  logo_file_id: string | null;
  client_id: string;
  client_secret_sealed: string;
  /** JSON arrays of strings (written as JSON text). */
  redirect_uris: ColumnType<string[], string | undefined, string>;
  post_logout_redirect_uris: ColumnType<string[], string | undefined, string>;
  initiate_login_uri: string | null;
  home_url: string | null;
  scopes: ColumnType<string[], string | undefined, string>;
  signing_alg: Generated<'ES256' | 'RS256'>;
  token_auth_method: Generated<'client_secret_basic' | 'client_secret_post' | 'none'>;
  /** Whether the authorization code flow must use PKCE (some third-party apps cannot). */
  require_pkce: Generated<boolean>;
  authorization_code_ttl: Generated<number>;
  id_token_ttl: Generated<number>;
  access_token_ttl: Generated<number>;
  refresh_token_ttl: Generated<number>;
  default_access: Generated<'allow_all' | 'prohibit_all'>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AppAssignmentsTable {
  app_id: string;
  account_id: string;
  expires_at: Date | null;
  created_at: Timestamp;
}

export interface AppApiAccountsTable {
  id: string;
  app_id: string;
  company_id: string;
  name: string;
  client_id: string;
  secret_sealed: string;
  expires_at: Date | null;
  last_used_at: Date | null;
  created_at: Timestamp;
}

export interface AppFormConfigsTable {
  app_id: string;
  login_url: string;
  username_field: string;
  password_field: string;
  extra_fields: ColumnType<{ name: string; value: string }[], string | undefined, string>;
  credential_mode: 'user' | 'shared';
  shared_username: string | null;
  shared_password_sealed: string | null;
  updated_at: Timestamp;
}

export interface AppFormCredentialsTable {
  app_id: string;
  account_id: string;
  username: string;
  password_sealed: string;
  updated_at: Timestamp;
}

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
  expires_at: Date;
  created_at: Generated<Date>;
}

export interface CertificateAuthoritiesTable {
  id: string;
  company_id: string;
  name: string;
  algorithm: 'rsa' | 'ecc' | 'sm2';
  strength: string;
  source: 'created' | 'imported';
  subject: string;
  serial_number: string;
  not_before: Date;
  not_after: Date;
  fingerprint: string;
  certificate_der: Uint8Array;
  /** PKCS#8 DER (base64), sealed with the master key. */
  private_key_sealed: string;
  crl_number: ColumnType<string, string | number | undefined, string | number>;
  crl_der: ColumnType<Uint8Array | null, Uint8Array | null | undefined, Uint8Array | null>;
  crl_next_update: NullableTimestamp;
  created_by: string | null;
  created_at: Timestamp;
}

export interface IssuedCertificatesTable {
  id: string;
  company_id: string;
  ca_id: string;
  account_id: string | null;
  subject: string;
  serial_number: string;
  algorithm: 'rsa' | 'ecc' | 'sm2';
  strength: string;
  source: 'csr' | 'generated';
  not_before: Date;
  not_after: Date;
  fingerprint: string;
  certificate_der: Uint8Array;
  revoked_at: NullableTimestamp;
  revocation_reason: string | null;
  created_by: string | null;
  created_at: Timestamp;
}

/** A single-use challenge that a UKEY or soft-lock key signs (hashed). */
export interface SignatureChallengesTable {
  challenge_hash: string;
  account_id: string;
  purpose: 'bind' | 'second_factor';
  /** The portal session (bind) or the OIDC interaction (second factor) it belongs to. */
  subject: string;
  expires_at: Date;
  created_at: Generated<Date>;
}

export interface Database {
  accounts: AccountsTable;
  companies: CompaniesTable;
  company_members: CompanyMembersTable;
  departments: DepartmentsTable;
  department_members: DepartmentMembersTable;
  import_tasks: ImportTasksTable;
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
  installation: InstallationTable;
  licenses: LicensesTable;
  company_quotas: CompanyQuotasTable;
  schema_migrations: SchemaMigrationsTable;
  company_safety: CompanySafetyTable;
  mfa_factors: MfaFactorsTable;
  mfa_recovery_codes: MfaRecoveryCodesTable;
  webauthn_challenges: WebauthnChallengesTable;
  apps: AppsTable;
  app_assignments: AppAssignmentsTable;
  app_api_accounts: AppApiAccountsTable;
  app_form_configs: AppFormConfigsTable;
  app_form_credentials: AppFormCredentialsTable;
  radius_clients: RadiusClientsTable;
  radius_client_departments: RadiusClientDepartmentsTable;
  radius_challenges: RadiusChallengesTable;
  certificate_authorities: CertificateAuthoritiesTable;
  issued_certificates: IssuedCertificatesTable;
  signature_challenges: SignatureChallengesTable;
}

export type Account = Selectable<AccountsTable>;
export type NewAccount = Insertable<AccountsTable>;
export type AccountUpdate = Updateable<AccountsTable>;
export type Company = Selectable<CompaniesTable>;
export type App = Selectable<AppsTable>;
export type AppApiAccount = Selectable<AppApiAccountsTable>;
export type AppFormConfig = Selectable<AppFormConfigsTable>;
export type ConsoleSession = Selectable<ConsoleSessionsTable>;
