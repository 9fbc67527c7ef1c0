/** Permissions (spec §3 Resource, Role, Authorization): loaded with their screens, not the console's first load. */
/** Resource types (spec §3 Resource): an application's menus, APIs, buttons and data sets. */
export const resourceTypes = ['menu', 'api', 'button', 'data'] as const;
export type ResourceType = (typeof resourceTypes)[number];
export const authorizationSubjectTypes = ['user', 'role', 'department'] as const;
export type AuthorizationSubjectType = (typeof authorizationSubjectTypes)[number];
export const authorizationEffects = ['allow', 'reject'] as const;
export type AuthorizationEffect = (typeof authorizationEffects)[number];
/** Resource scope and operation scope: everything of the application / the resources, or the listed ones. */
export const authorizationScopes = ['all', 'specific'] as const;
export type AuthorizationScope = (typeof authorizationScopes)[number];

export const permissionLimits = {
  nameMax: 64,
  descriptionMax: 200,
  dataMax: 2000,
  actionMax: 64,
  actionsMax: 50,
  resourcesPerAuthorization: 200,
  windowsMax: 10,
  ipRangesMax: 50,
  /** Questions one check-many call may ask. */
  checkManyMax: 200,
  /** People one call can add to or remove from a role. */
  membersMax: 500,
  /** People a preview lists by name (the counts cover everyone). */
  previewListMax: 100,
} as const;

/** An action type: a letter or digit first, then letters, digits, `_ . : -` (for example `read`, `orders:export`). */
export const ACTION_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/;
/** A time of day, `HH:MM` from 00:00 to 24:00. */
export const TIME_OF_DAY_PATTERN = /^(?:[01][0-9]|2[0-3]):[0-5][0-9]$|^24:00$/;

/** Why a decision came out as it did. */
export const decisionReasons = [
  'allowed',
  'rejected',
  'no_match',
  'unknown_person',
  'person_disabled',
  'unknown_resource',
  'unknown_action',
] as const;
export type DecisionReason = (typeof decisionReasons)[number];
/** Why a rule that names the person, resource and action did not apply (its restrictions). */
export const restrictionMisses = [
  'not_yet_valid',
  'expired',
  'outside_hours',
  'address_outside',
  'address_unknown',
] as const;
export type RestrictionMiss = (typeof restrictionMisses)[number];
