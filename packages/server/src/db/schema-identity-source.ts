/** Identity sources and directory sync (modules/identity-source): the tables of migration 17. */
import type { IdentitySourceType } from '@tessera/contract';
import type { ColumnType, Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './schema-columns.ts';

export interface IdentitySourcesTable {
  id: string;
  company_id: string;
  type: IdentitySourceType;
  name: string;
  enabled: Generated<boolean>;
  settings: ColumnType<unknown, string, string>;
  secret_sealed: string | null;
  sync_interval_minutes: Generated<number>;
  next_sync_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface IdentityLinksTable {
  source_id: string;
  company_id: string;
  account_id: string;
  external_id: string;
  external_dn: string | null;
  external_name: string | null;
  disabled_by_sync: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface IdentitySourceDepartmentsTable {
  source_id: string;
  external_id: string;
  department_id: string;
}

export interface IdentitySourceConflictsTable {
  source_id: string;
  external_id: string;
  fingerprint: string;
}

export interface SyncRunsTable {
  id: string;
  source_id: string;
  company_id: string;
  mode: 'preview' | 'apply' | 'sync';
  trigger: 'manual' | 'schedule';
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  requested_by: string | null;
  preview_run_id: string | null;
  counts: ColumnType<unknown, string | null | undefined, string | null>;
  errors: ColumnType<unknown, string | undefined, string>;
  plan_hash: string | null;
  snapshot: ColumnType<unknown, string | null | undefined, string | null>;
  created_at: Timestamp;
  started_at: NullableTimestamp;
  finished_at: NullableTimestamp;
}

export interface SyncRunRowsTable {
  run_id: string;
  kind: string;
  seq: number;
  row: ColumnType<unknown, string, string>;
}

export interface ScanStatesTable {
  id: string;
  source_id: string;
  purpose: 'sign_in' | 'bind';
  interaction_uid: string | null;
  session_id: string | null;
  expires_at: Date;
  used_at: NullableTimestamp;
  created_at: Timestamp;
}

/** A department membership an upstream source gave from the person's groups (migration 42): it may take it away. */
export interface UpstreamGroupMembershipsTable {
  source_id: string;
  department_id: string;
  account_id: string;
  created_at: Timestamp;
}

/** The refreshes of a SAML source's metadata read from its URL (migration 42). */
export interface SamlSourceMetadataRefreshesTable {
  source_id: string;
  next_refresh_at: Date;
  refreshed_at: Date | null;
  failed_at: Date | null;
  error_reason: string | null;
  error_params: ColumnType<Record<string, string> | null, string | null, string | null>;
}

export interface IdentitySourceTables {
  identity_sources: IdentitySourcesTable;
  identity_links: IdentityLinksTable;
  identity_source_departments: IdentitySourceDepartmentsTable;
  identity_source_conflicts: IdentitySourceConflictsTable;
  sync_runs: SyncRunsTable;
  sync_run_rows: SyncRunRowsTable;
  scan_states: ScanStatesTable;
  upstream_group_memberships: UpstreamGroupMembershipsTable;
  saml_source_metadata_refreshes: SamlSourceMetadataRefreshesTable;
}
