/** The constants the console shell needs before its first screen (kept apart so the first load carries only these). */

export const REQUEST_TIMEOUT_MS = 10_000;
export const SIDEBAR_COLLAPSE_WIDTH_PX = 992;
export const COMPANY_NAME_DISPLAY_LENGTH = 10;
export const COMPANY_NAME_MAX_LENGTH = 50;
export const TOKEN_STORAGE_KEY = 'asp_admin_token';

export const storageKeys = {
  token: TOKEN_STORAGE_KEY,
  name: 'asp_admin_name',
  companyId: 'asp_admin_company_id',
  companyName: 'asp_admin_company_name',
  companyIcon: 'asp_admin_company_icon',
  companyOwner: 'asp_admin_company_owner',
  /** /dev and /admin share one origin: which console the stored token belongs to. */
  tokenVariant: 'asp_admin_token_variant',
  /** When the stored token stops working unless refreshed, and when its session ends (the tabs share it). */
  tokenExpiry: 'asp_admin_token_expiry',
} as const;

export const languages = ['en', 'zh'] as const;
export type Language = (typeof languages)[number];

export const consoleVariants = ['admin', 'dev'] as const;
export type ConsoleVariant = (typeof consoleVariants)[number];

/** The multipart field an upload call reads its file from. */
export const UPLOAD_FILE_FIELD = 'file';

// ---- Permissions (spec §3 Resource, Role, Authorization; §6 permission groups)

/** Spec §6: the permission groups of the console; a console role grants each to read or to manage. */
export const consoleGroups = [
  'app',
  'identitySource',
  'user',
  'department',
  'authority',
  'security',
  'log',
  'branding',
  'licence',
  'companySettings',
  'about',
] as const;
export type ConsoleGroup = (typeof consoleGroups)[number];
export const consoleLevels = ['read', 'manage'] as const;
export type ConsoleLevel = (typeof consoleLevels)[number];
/**
 * Finer abilities a console role may hold without managing their whole group: `resetCredentials`
 * (of the user group): reset a person's password, send a sign-in link, remove second factors
 * (a help desk that reads users and gets people back in).
 */
export const consoleAbilities = ['resetCredentials'] as const;
export type ConsoleAbility = (typeof consoleAbilities)[number];
export const consoleAbilityGroup: Record<ConsoleAbility, ConsoleGroup> = { resetCredentials: 'user' };

/**
 * What a call needs from a custom console role: `console`, anyone who reaches the console in the
 * company; or one of `groups` at `level` (manage includes read), or the `ability`.
 */
export type ConsoleAccess =
  | 'console'
  | { groups: readonly ConsoleGroup[]; level: ConsoleLevel; ability?: ConsoleAbility };

/**
 * Reading the sign-in and audit events of people (the log group): the log screen, and the
 * dashboard's lists of recent sign-ins and failures and its failure alerts, which name people.
 */
export const logReadAccess = { groups: ['log'], level: 'read' } as const satisfies ConsoleAccess;

/** What a person may do in the console of one company. */
export interface ConsoleGrants {
  groups: Partial<Record<ConsoleGroup, ConsoleLevel>>;
  abilities: ConsoleAbility[];
}

/** Owners, administrators and external administrators: every group, to manage. */
export const fullConsoleGrants: ConsoleGrants = {
  groups: Object.fromEntries(consoleGroups.map((group) => [group, 'manage'])) as ConsoleGrants['groups'],
  abilities: [...consoleAbilities],
};

/** Whether grants allow a call's access (the server's check in bind(), and the console's menu). */
export function grantsAllow(grants: ConsoleGrants, access: ConsoleAccess | undefined): boolean {
  if (access === undefined) return false;
  if (access === 'console') return true;
  const held = access.groups.some((group) => {
    const level = grants.groups[group];
    return level === 'manage' || (level === 'read' && access.level === 'read');
  });
  return held || (access.ability !== undefined && grants.abilities.includes(access.ability));
}
