/** Outbound provisioning by SCIM 2.0 (calls/app-provisioning.ts): the choices of a target and of its runs. */

/** Where the remote userName comes from. */
export const provisioningUserNameSources = ['username', 'email'] as const;
/** The attributes that may be sent besides userName and active (always sent). */
export const provisioningAttributes = [
  'name',
  'emails',
  'phoneNumbers',
  'department',
  'employeeNumber',
] as const;
/** Create only (nothing changed or deactivated afterwards), or the whole lifecycle. */
export const provisioningLifecycles = ['full', 'create_only'] as const;
/** What losing access does remotely: `active: false` (the default), or deletion when chosen. */
export const provisioningLossActions = ['deactivate', 'delete'] as const;
export const provisioningRunStatuses = ['queued', 'running', 'retrying', 'succeeded', 'failed'] as const;
export const provisioningRunTriggers = ['manual', 'schedule', 'change'] as const;
export const provisioningActions = ['create', 'update', 'deactivate', 'delete'] as const;

export const provisioningLimits = { urlMax: 2000, tokenMax: 4096 } as const;

export type ProvisioningUserNameSource = (typeof provisioningUserNameSources)[number];
export type ProvisioningAttribute = (typeof provisioningAttributes)[number];
export type ProvisioningLifecycle = (typeof provisioningLifecycles)[number];
export type ProvisioningLossAction = (typeof provisioningLossActions)[number];
export type ProvisioningRunStatus = (typeof provisioningRunStatuses)[number];
export type ProvisioningRunTrigger = (typeof provisioningRunTriggers)[number];
export type ProvisioningAction = (typeof provisioningActions)[number];
