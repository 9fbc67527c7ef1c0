/** Applications (modules/app): apps, who may use them, their access accounts, form-fill settings and consents. */
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Timestamp } from './schema-columns.ts';

export interface AppsTable {
  id: string;
  company_id: string;
  name: string;
  description: string | null;
  type: 'self_built' | 'third_party';
  protocol: 'oidc' | 'form' | 'saml' | 'cas' | 'ldap';
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
  /** OIDC Back-Channel Logout 1.0: where the provider posts a logout token. */
  backchannel_logout_uri: string | null;
  /** OIDC Front-Channel Logout 1.0: loaded in a frame of the sign-out page. */
  frontchannel_logout_uri: string | null;
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
  /** Whether each person is asked for consent (an application run by another organisation). */
  ask_consent: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** What a person allowed a third-party application (its consent page), per person and app. */
export interface AppConsentsTable {
  app_id: string;
  account_id: string;
  /** JSON arrays of strings (written as JSON text). */
  scopes: ColumnType<string[], string, string>;
  claims: ColumnType<string[], string, string>;
  updated_at: Timestamp;
}

export interface AppAssignmentsTable {
  app_id: string;
  account_id: string;
  expires_at: Date | null;
  created_at: Timestamp;
}

/** An application assigned to a department, its sub departments included (migration 25). */
export interface AppDepartmentAssignmentsTable {
  app_id: string;
  department_id: string;
  company_id: string;
  expires_at: Date | null;
  created_at: Timestamp;
}

/** An application assigned to the members of a permission role (migration 25). */
export interface AppRoleAssignmentsTable {
  app_id: string;
  role_id: string;
  company_id: string;
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

export interface AppTables {
  apps: AppsTable;
  app_consents: AppConsentsTable;
  app_assignments: AppAssignmentsTable;
  app_department_assignments: AppDepartmentAssignmentsTable;
  app_role_assignments: AppRoleAssignmentsTable;
  app_api_accounts: AppApiAccountsTable;
  app_form_configs: AppFormConfigsTable;
  app_form_credentials: AppFormCredentialsTable;
}

export type App = Selectable<AppsTable>;
export type AppApiAccount = Selectable<AppApiAccountsTable>;
export type AppFormConfig = Selectable<AppFormConfigsTable>;
