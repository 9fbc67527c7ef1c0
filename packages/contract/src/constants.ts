/** Business constants of the console specification (§9) and platform defaults. */
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
} as const;

export const recommendedTokenLifetimes = {
  authorizationCode: 60,
  idToken: 1_209_600,
  accessToken: 1_209_600,
  refreshToken: 2_592_000,
} as const;

export const passwordLength = { min: 6, max: 30 } as const;
export const forcedPasswordChangeMinDays = 30;

/** Console session lifetimes (seconds); overridable by configuration. */
export const consoleSessionDefaults = { idleSeconds: 2 * 3600, absoluteSeconds: 12 * 3600 } as const;

/** Sign-in throttling and lock-out defaults until a company configures its own. */
export const signInDefaults = {
  maxAttemptsPerAccountPerHour: 100,
  maxAttemptsPerIpPerHour: 1_000,
  lockoutThreshold: 5,
  lockoutMinutes: 15,
} as const;

export const uploadLimits = { iconBytes: 1024 * 1024 } as const;

export const languages = ['en', 'zh'] as const;
export type Language = (typeof languages)[number];

export const consoleVariants = ['admin', 'dev'] as const;
export type ConsoleVariant = (typeof consoleVariants)[number];

export const memberRoles = ['owner', 'admin', 'external_admin', 'member'] as const;
export type MemberRole = (typeof memberRoles)[number];
