import type { SamlTemplateSettings } from './saml.ts';

export * from './cas.ts';
export * from './provisioning.ts';
export * from './saml.ts';

/** Business constants of the console specification (§9) and platform defaults. */
export * from './shell-constants.ts';

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

/**
 * A person's role in a company (spec §6), highest first. `delegated_admin`: a person who reaches
 * the console through a custom console role of the company, for that role's permission groups only.
 */
export const memberRoles = ['owner', 'admin', 'external_admin', 'delegated_admin', 'member'] as const;
export type MemberRole = (typeof memberRoles)[number];
/** The roles that reach the console in a company. */
export const consoleMemberRoles = ['owner', 'admin', 'external_admin', 'delegated_admin'] as const;

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
export const loginMethods = ['password', 'passkey', 'email_code', 'sms_code'] as const;
export type LoginMethod = (typeof loginMethods)[number];
export const safetyLimits = {
  /** Spec §5: the password length setting is between 6 and 30. */
  passwordMinLength: { min: 6, max: 30 },
  /** Spec §5: 0 means unlimited, otherwise at least 30 days. */
  changeCycleDays: { min: 30, max: 3650 },
  lockoutFailures: { min: 3, max: 20 },
  lockoutMinutes: { min: 1, max: 1440 },
} as const;
/**
 * MFA (spec §3 MFA types). The UKEY and soft-lock kinds sign a single-use challenge with a key
 * bound to the person (a public key, a key's KeyId with its public key, a certificate of the
 * company's CA, or a soft-lock container's key). A policy offers only the kinds people can bind
 * and answer today: fido2, otp and otp_sm3. `email` and `sms` are codes sent to the person's
 * verified email address or phone (nothing to bind: the verified address is the factor).
 */
export const mfaTypes = [
  'fido2',
  'otp',
  'otp_sm3',
  'ukey_keyid',
  'ukey_pubkey',
  'ukey_cert',
  'soft_lock',
  'email',
  'sms',
] as const;
export type MfaType = (typeof mfaTypes)[number];
/** The kinds whose factor signs a challenge (UKEY and soft lock). */
export const signatureMfaTypes = ['ukey_keyid', 'ukey_pubkey', 'ukey_cert', 'soft_lock'] as const;
export type SignatureMfaType = (typeof signatureMfaTypes)[number];
/** A signature challenge is single use and lives this long. */
export const SIGNATURE_CHALLENGE_SECONDS = 60;
export const signatureFactorLimits = {
  nameMax: 50,
  /** A UKEY's KeyId (its serial) or a soft-lock container id. */
  keyIdMax: 64,
  /** A public key or certificate in PEM. */
  pemMax: 16 * 1024,
  signatureMax: 2048,
} as const;
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
  /** The sign-in pages offer "Forgot password?" (where mail or SMS can carry the code). */
  selfServiceReset: true,
  mfa: {
    mode: 'off' as MfaMode,
    types: ['otp', 'otp_sm3', 'fido2'] as MfaType[],
    lockout: { maxFailures: 5, lockMinutes: 15 },
  },
};
export type SafetySettings = typeof defaultSafetySettings;
export const RECOVERY_CODE_COUNT = 10;

/**
 * One-time codes sent by email or SMS (sign-in, second factor, forgotten password, confirming an
 * address, RADIUS challenges): 6 digits, single use, at most 5 tries each, a new one no sooner
 * than a minute after the last, and a budget per address and per person each hour.
 */
export const codePurposes = [
  'sign_in',
  'second_factor',
  'password_reset',
  'verify_address',
  'radius',
] as const;
export type CodePurpose = (typeof codePurposes)[number];
export const codeChannels = ['email', 'sms'] as const;
export type CodeChannel = (typeof codeChannels)[number];
export const oneTimeCodeRules = {
  digits: 6,
  /** Seconds a code lives; a password reset's lives 10 minutes. */
  lifetimeSeconds: {
    sign_in: 300,
    second_factor: 300,
    password_reset: 600,
    verify_address: 300,
    radius: 300,
  },
  maxTries: 5,
  resendAfterSeconds: 60,
  /** Codes sent to one address, or to one person, in an hour. */
  perHour: 10,
} as const satisfies {
  digits: number;
  lifetimeSeconds: Record<CodePurpose, number>;
  maxTries: number;
  resendAfterSeconds: number;
  perHour: number;
};

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

/**
 * Licensed functions that count something (users, applications): each has an installation
 * total in the licence and a quota per company set by platform administrators.
 */
export const quantityModules = ['user', 'app'] as const;
export type QuantityModule = (typeof quantityModules)[number];
/** The largest quantity a licence or a company quota can state. */
export const QUANTITY_MAX = 100_000_000;

/** A sign-in link sent by email is single-use and lives this long. */
export const SIGN_IN_LINK_TTL_SECONDS = 24 * 3600;

/**
 * Rules the console's forms check before a call, without zod (the console does not ship it).
 * The calls' schemas hold the same rules; packages/console/src/api/contract-rules.test.ts keeps
 * the two in step.
 */
/**
 * A username: a letter or digit first, then letters, digits, dots, underscores and hyphens;
 * optionally one `@` and a domain-like part (letters, digits, dots and hyphens, a letter or digit
 * at both ends), so that the user principal names and emails identity providers send as the
 * userName (Microsoft Entra ID, Okta) are usernames as they are. No username may be another
 * person's email (user.repo.ts findTakenIdentifiers; migration 39 holds it in the database).
 */
export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*(?:@[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)?$/;
/** Image types a company logo may have. */
export const companyIconTypes = ['image/png', 'image/jpeg', 'image/svg+xml', 'image/webp'] as const;

/** Applications (spec §3 Application, §4 states). */
export const appTypes = ['self_built', 'third_party'] as const;
export type AppType = (typeof appTypes)[number];
/** How an application is signed in to: as an OIDC client, a SAML 2.0 service provider, a CAS service, or by filling its login form. */
export const appProtocols = ['oidc', 'form', 'saml', 'cas', 'ldap'] as const;
export type AppProtocol = (typeof appProtocols)[number];
/** to_be_configured → opened ↔ disabled (spec §4). */
export const appStatuses = ['to_be_configured', 'opened', 'disabled'] as const;
export type AppStatus = (typeof appStatuses)[number];
export const appDefaultAccess = ['allow_all', 'prohibit_all'] as const;
export type AppDefaultAccess = (typeof appDefaultAccess)[number];
export const appSigningAlgorithms = ['ES256', 'RS256'] as const;
export type AppSigningAlgorithm = (typeof appSigningAlgorithms)[number];
/**
 * How an app authenticates at the token endpoint. `none`: a public client (a single-page or
 * native app that cannot keep a secret), which must use PKCE.
 */
export const appTokenAuthMethods = ['client_secret_basic', 'client_secret_post', 'none'] as const;
export type AppTokenAuthMethod = (typeof appTokenAuthMethods)[number];
/** Who stores the credentials a form-fill app is signed in with. */
export const formCredentialModes = ['user', 'shared'] as const;
export type FormCredentialMode = (typeof formCredentialModes)[number];

export const appLimits = {
  nameMax: 50,
  descriptionMax: 200,
  urlMax: 2000,
  urisMax: 20,
  /** Token lifetimes, seconds: at least 1 s; at most a year (refresh) or 30 days (the rest). */
  lifetimeMin: 1,
  authorizationCodeMax: 600,
  tokenMax: 30 * 86_400,
  refreshTokenMax: 365 * 86_400,
  apiAccountNameMax: 50,
  apiAccountsPerApp: 20,
  fieldNameMax: 100,
  extraFieldsMax: 10,
  credentialMax: 256,
  logoBytes: 512 * 1024,
} as const;

/**
 * Scopes an application may ask for; `openid` is always granted. `groups`: the person's
 * departments in the application's company, as paths (`Sales/East`). `permissions`: what the
 * person may do in the application (its resources and their actions, see the permission model).
 */
export const appScopes = [
  'openid',
  'profile',
  'email',
  'phone',
  'groups',
  'permissions',
  'offline_access',
] as const;

/**
 * Why a redirect or logout URI is refused, or null when it is acceptable. Exact-match URIs
 * only: absolute, no wildcard, no fragment, no user info; https, or http on the loopback host
 * only, or a private-use scheme of a native app (reverse domain name, RFC 8252 §7.1).
 */
export type RedirectUriProblem = 'invalid' | 'wildcard' | 'scheme' | 'http' | 'fragment' | 'userinfo';

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Whether what is sent to an http(s) address is protected on the way: https, or http to the
 * loopback host only (RFC 8252 §7.3). The rule of callback addresses and of form login pages.
 */
export const isProtectedWebUrl = (url: URL) =>
  url.protocol === 'https:' || (url.protocol === 'http:' && loopbackHosts.has(url.hostname.toLowerCase()));

const forbiddenSchemes = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:', 'ftp:']);

export function redirectUriProblem(value: string): RedirectUriProblem | null {
  if (value.includes('*')) return 'wildcard';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'invalid';
  }
  if (value !== value.trim() || /\s/.test(value)) return 'invalid';
  const scheme = url.protocol.toLowerCase();
  if (forbiddenSchemes.has(scheme)) return 'scheme';
  if (scheme === 'http:') {
    if (!isProtectedWebUrl(url)) return 'http';
  } else if (scheme !== 'https:' && !/^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/.test(scheme)) {
    return 'scheme';
  }
  if ((scheme === 'http:' || scheme === 'https:') && !url.hostname) return 'invalid';
  if (url.username || url.password || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(value)) return 'userinfo';
  if (value.includes('#')) return 'fragment';
  return null;
}

/**
 * Why a form-fill app's login address is refused, or null when it is acceptable: a complete
 * http(s) address without user info, and the person's password is posted to it, so it must be
 * protected on the way (`isProtectedWebUrl`: https, http on the loopback host only).
 */
export function formLoginUrlProblem(value: string): 'invalid' | 'http' | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'invalid';
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password)
    return 'invalid';
  return isProtectedWebUrl(url) ? null : 'http';
}

/** A third-party application template of the catalogue at /application/select-app. */
export interface AppTemplate {
  key: string;
  name: string;
  protocol: AppProtocol;
  /** The redirect URI with `{baseUrl}` where the app's own address goes. */
  redirectPath: string;
  /** The app's post-logout return path, likewise. */
  logoutPath: string | null;
  /** Where the app receives OIDC Back-Channel Logout tokens, if it can. */
  backchannelLogoutPath: string | null;
  /** Where the app signs a person out in a frame (OIDC Front-Channel Logout), if it can. */
  frontchannelLogoutPath: string | null;
  /** Where the app starts a sign-in itself (OIDC third-party initiated login), if it can. */
  initiateLoginPath: string | null;
  tokenAuthMethod: AppTokenAuthMethod;
  signingAlg: AppSigningAlgorithm;
  /** Whether the app sends PKCE (RFC 7636) with its authorization requests. */
  pkce: boolean;
  scopes: readonly string[];
  /** Documentation of the app's single sign-on settings. */
  docsUrl: string;
  /** A SAML service provider's known settings (protocol `saml`). */
  saml?: SamlTemplateSettings;
}

export { appTemplates } from './app-templates.ts';

export * from './area-constants.ts';
export * from './permission-constants.ts';
