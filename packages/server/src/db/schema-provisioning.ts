import type {
  ProvisioningAttribute,
  ProvisioningLifecycle,
  ProvisioningLossAction,
  ProvisioningRunStatus,
  ProvisioningRunTrigger,
  ProvisioningUserNameSource,
} from '@tessera/contract';
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { NullableTimestamp, Timestamp } from './schema-columns.ts';

type JsonColumn<T> = ColumnType<T, string | undefined, string>;

/** An application's SCIM target (modules/provisioning); the bearer token sealed. */
export interface AppProvisioningTargetsTable {
  app_id: string;
  company_id: string;
  base_url: string;
  token_sealed: string;
  user_name_from: ProvisioningUserNameSource;
  attributes: JsonColumn<ProvisioningAttribute[]>;
  lifecycle: ProvisioningLifecycle;
  on_loss: ProvisioningLossAction;
  enabled: boolean;
  /** Something that decides access or a SCIM User changed since the last run was queued (set by triggers). */
  changed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  updated_at: Timestamp;
}

/** A person sent to an application's target: the remote id and what was sent last. */
export interface AppProvisionedPeopleTable {
  app_id: string;
  account_id: string;
  remote_id: string;
  user_name: string;
  sent: JsonColumn<Record<string, unknown>>;
  sent_hash: string;
  active: boolean;
  updated_at: Timestamp;
}

export interface ProvisioningStoredError {
  reason: string;
  params: Record<string, string | number>;
  username: string | null;
}

/** A provisioning run (one job of its application). */
export interface AppProvisioningRunsTable {
  id: string;
  app_id: string;
  company_id: string;
  trigger: ProvisioningRunTrigger;
  requested_by: string | null;
  status: Generated<ProvisioningRunStatus>;
  attempts: Generated<number>;
  counts: ColumnType<Record<string, number> | null, string | null | undefined, string | null>;
  errors: ColumnType<ProvisioningStoredError[], string | undefined, string>;
  created_at: Timestamp;
  started_at: NullableTimestamp;
  finished_at: NullableTimestamp;
}

export type ProvisioningTarget = Selectable<AppProvisioningTargetsTable>;
export type ProvisionedPerson = Selectable<AppProvisionedPeopleTable>;
export type ProvisioningRunRow = Selectable<AppProvisioningRunsTable>;

export interface ProvisioningTables {
  app_provisioning_targets: AppProvisioningTargetsTable;
  app_provisioned_people: AppProvisionedPeopleTable;
  app_provisioning_runs: AppProvisioningRunsTable;
}
