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

/** A person's standing in one company (spec §3 User status). */
export const userStatuses = ['enabled', 'disabled', 'locked'] as const;
export type UserStatus = (typeof userStatuses)[number];

/** Sortable columns of the user list. */
export const userSortFields = ['createdAt', 'username', 'name', 'lastLoginAt', 'loginCount'] as const;
export type UserSortField = (typeof userSortFields)[number];

/** Field limits of a user record. */
export const userLimits = {
  usernameMax: 64,
  nameMax: 64,
  nicknameMax: 64,
  emailMax: 254,
  phoneMax: 20,
  passwordMax: 128,
  keywordMax: 100,
  /** Users one call can add to or remove from a department. */
  batchMax: 500,
} as const;

/** The built-in password rule until a company configures its own. */
export const defaultPasswordPolicy = {
  minLength: 8,
  /** Character classes a password must contain: lower, upper, digit, symbol. */
  classes: ['letter', 'digit'] as readonly PasswordClass[],
  forbidUsername: true,
} as const;
export const passwordClasses = ['letter', 'lower', 'upper', 'digit', 'symbol'] as const;
export type PasswordClass = (typeof passwordClasses)[number];

export const departmentLimits = { nameMax: 64, maxDepth: 15 } as const;

/** Safety (spec §3 Security, §5, §9): how people sign in and what a password must be. */
export const loginMethods = ['password', 'passkey'] as const;
export type LoginMethod = (typeof loginMethods)[number];
export const safetyLimits = {
  /** Spec §5: the password length setting is between 6 and 30. */
  passwordMinLength: { min: 6, max: 30 },
  /** Spec §5: 0 means unlimited, otherwise at least 30 days. */
  changeCycleDays: { min: 30, max: 3650 },
  lockoutFailures: { min: 3, max: 20 },
  lockoutMinutes: { min: 1, max: 1440 },
} as const;
/** MFA (spec §3 MFA types). This platform builds fido2, otp and otp_sm3; the UKEY and soft-lock kinds come with the CA. */
export const mfaTypes = [
  'fido2',
  'otp',
  'otp_sm3',
  'ukey_keyid',
  'ukey_pubkey',
  'ukey_cert',
  'soft_lock',
] as const;
export type MfaType = (typeof mfaTypes)[number];
export const availableMfaTypes: readonly MfaType[] = ['fido2', 'otp', 'otp_sm3'];
/** When a second factor is asked for: never, when the person has one, always, or for administrators. */
export const mfaModes = ['off', 'optional', 'required', 'admins'] as const;
export type MfaMode = (typeof mfaModes)[number];
export const defaultSafetySettings = {
  loginMethods: ['password'] as LoginMethod[],
  password: {
    minLength: defaultPasswordPolicy.minLength,
    classes: [...defaultPasswordPolicy.classes],
    forbidUsername: true,
    forbidCommon: true,
    changeCycleDays: 0,
  },
  lockout: { maxFailures: 5, lockMinutes: 15 },
  mfa: {
    mode: 'off' as MfaMode,
    types: ['otp', 'otp_sm3', 'fido2'] as MfaType[],
    lockout: { maxFailures: 5, lockMinutes: 15 },
  },
};
export type SafetySettings = typeof defaultSafetySettings;
export const RECOVERY_CODE_COUNT = 10;

/** User import (spec §5): .xlsx only. */
export const importLimits = {
  fileBytes: 10 * 1024 * 1024,
  maxRows: 50_000,
  xlsxType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const;
export const importTaskStatuses = ['importing', 'success', 'failed'] as const;
export type ImportTaskStatus = (typeof importTaskStatuses)[number];

export const photoLimits = { bytes: 2 * 1024 * 1024 } as const;
/** Image types a user photo may have (checked by the bytes on the server). */
export const photoTypes = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/** A sign-in link sent by email is single-use and lives this long. */
export const SIGN_IN_LINK_TTL_SECONDS = 24 * 3600;

/**
 * Rules the console's forms check before a call, without zod (the console does not ship it).
 * The calls' schemas hold the same rules; packages/console/src/api/contract-rules.test.ts keeps
 * the two in step.
 */
/** A username: a letter or digit first, then letters, digits, dots, underscores and hyphens. */
export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** Image types a company logo may have. */
export const companyIconTypes = ['image/png', 'image/jpeg', 'image/svg+xml', 'image/webp'] as const;
/** The multipart field an upload call reads its file from. */
export const UPLOAD_FILE_FIELD = 'file';
