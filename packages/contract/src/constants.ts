import type { SamlTemplateSettings } from './saml.ts';
import { samlAppTemplates } from './saml-templates.ts';

export * from './saml.ts';

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
/** A username: a letter or digit first, then letters, digits, dots, underscores and hyphens. */
export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** Image types a company logo may have. */
export const companyIconTypes = ['image/png', 'image/jpeg', 'image/svg+xml', 'image/webp'] as const;
/** The multipart field an upload call reads its file from. */
export const UPLOAD_FILE_FIELD = 'file';

/** Applications (spec §3 Application, §4 states). */
export const appTypes = ['self_built', 'third_party'] as const;
export type AppType = (typeof appTypes)[number];
/** How an application is signed in to: as an OIDC client, a SAML 2.0 service provider, or by filling its login form. */
export const appProtocols = ['oidc', 'form', 'saml'] as const;
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

export const appTemplates: readonly AppTemplate[] = [
  {
    key: 'gitlab',
    name: 'GitLab',
    protocol: 'oidc',
    redirectPath: '/users/auth/openid_connect/callback',
    logoutPath: null,
    backchannelLogoutPath: null,
    frontchannelLogoutPath: null,
    initiateLoginPath: '/users/auth/openid_connect',
    // The documented example: client_auth_method "query" (the secret in the form body) and pkce: true.
    tokenAuthMethod: 'client_secret_post',
    signingAlg: 'RS256',
    pkce: true,
    scopes: ['openid', 'profile', 'email'],
    docsUrl: 'https://docs.gitlab.com/administration/auth/oidc/',
  },
  {
    key: 'grafana',
    name: 'Grafana',
    protocol: 'oidc',
    redirectPath: '/login/generic_oauth',
    logoutPath: '/login',
    backchannelLogoutPath: null,
    frontchannelLogoutPath: null,
    initiateLoginPath: '/login/generic_oauth',
    tokenAuthMethod: 'client_secret_post',
    signingAlg: 'RS256',
    pkce: true,
    scopes: ['openid', 'profile', 'email', 'offline_access'],
    docsUrl:
      'https://grafana.com/docs/grafana/latest/setup-grafana/configure-security/configure-authentication/generic-oauth/',
  },
  {
    key: 'jenkins',
    name: 'Jenkins',
    protocol: 'oidc',
    redirectPath: '/securityRealm/finishLogin',
    logoutPath: '/OicLogout',
    backchannelLogoutPath: null,
    frontchannelLogoutPath: null,
    initiateLoginPath: '/securityRealm/commenceLogin',
    tokenAuthMethod: 'client_secret_post',
    signingAlg: 'RS256',
    pkce: true,
    scopes: ['openid', 'profile', 'email'],
    docsUrl: 'https://plugins.jenkins.io/oic-auth/',
  },
  {
    key: 'nextcloud',
    name: 'Nextcloud',
    protocol: 'oidc',
    redirectPath: '/apps/user_oidc/code',
    logoutPath: '/',
    // user_oidc's route /backchannel-logout/{providerIdentifier}: the provider is named Tessera there.
    backchannelLogoutPath: '/apps/user_oidc/backchannel-logout/Tessera',
    frontchannelLogoutPath: null,
    initiateLoginPath: '/apps/user_oidc/login/1',
    tokenAuthMethod: 'client_secret_post',
    signingAlg: 'RS256',
    pkce: true,
    scopes: ['openid', 'profile', 'email'],
    docsUrl: 'https://github.com/nextcloud/user_oidc',
  },
  {
    key: 'harbor',
    name: 'Harbor',
    protocol: 'oidc',
    redirectPath: '/c/oidc/callback',
    logoutPath: null,
    backchannelLogoutPath: null,
    frontchannelLogoutPath: null,
    initiateLoginPath: '/c/oidc/login',
    tokenAuthMethod: 'client_secret_basic',
    signingAlg: 'RS256',
    pkce: false,
    scopes: ['openid', 'profile', 'email', 'offline_access'],
    docsUrl: 'https://goharbor.io/docs/main/administration/configure-authentication/oidc-auth/',
  },
  {
    key: 'legacy_form',
    name: 'Web form login',
    protocol: 'form',
    redirectPath: '',
    logoutPath: null,
    backchannelLogoutPath: null,
    frontchannelLogoutPath: null,
    initiateLoginPath: null,
    tokenAuthMethod: 'client_secret_basic',
    signingAlg: 'ES256',
    pkce: false,
    scopes: [],
    docsUrl: '',
  },
  ...samlAppTemplates,
];

/**
 * Exchange agent and devices (spec §3 Device and Security, §4, §5, §6, §9). A phone syncs mail
 * through Tessera's ActiveSync agent with a password generated for that device alone.
 */
export const exchangeDefaults = {
  /** Spec §5, §9: characters in a generated device password. */
  devicePasswordDigits: 16,
  /** Spec §5, §9: days between device password rotations (at most 90). */
  rotationDays: 7,
  /** Spec §5, §9: devices one person may register. */
  userDeviceLimit: 3,
} as const;
export const exchangeLimits = {
  devicePasswordDigits: { min: 8, max: 64 },
  rotationDays: { min: 1, max: 90 },
  userDeviceLimit: { min: 1, max: 50 },
  urlMax: 2000,
  serviceUsernameMax: 256,
  servicePasswordMax: 256,
  deviceNameMax: 100,
  /** Time windows of one device's custom policy. */
  policyWindowsMax: 10,
  keywordMax: 100,
  /** Devices one call can delete. */
  batchMax: 100,
} as const;
/** Spec §4: a device seen for the first time is to be activated; approved, it is active. */
export const deviceActivations = ['to_be_activated', 'active'] as const;
export type DeviceActivation = (typeof deviceActivations)[number];
/** Spec §4: user and device are enabled or disabled. */
export const deviceStatuses = ['enabled', 'disabled'] as const;
export type DeviceStatus = (typeof deviceStatuses)[number];
/** A device's access permission: everything, or receiving only (no sending, replying or forwarding). */
export const deviceAccessPermissions = ['full', 'receive_only'] as const;
export type DeviceAccessPermission = (typeof deviceAccessPermissions)[number];
/**
 * Spec §6: a person's permission on device management. `admin`: they approve, disable and
 * remove their own devices in the user centre; `user`: administrators do that for them.
 */
export const devicePermissions = ['user', 'admin'] as const;
export type DevicePermission = (typeof devicePermissions)[number];
/** How the agent signs in to Exchange: with the company's service account, or with each person's own. */
export const exchangeCredentialModes = ['service', 'personal'] as const;
export type ExchangeCredentialMode = (typeof exchangeCredentialModes)[number];
/** Whether a newly registered device waits for approval or is active at once. */
export const deviceActivationPolicies = ['approval', 'automatic'] as const;
export type DeviceActivationPolicy = (typeof deviceActivationPolicies)[number];
/** A custom policy: the device is allowed only within its time windows, or blocked within them. */
export const devicePolicyModes = ['allow', 'block'] as const;
export type DevicePolicyMode = (typeof devicePolicyModes)[number];
/** ISO weekdays: 1 Monday … 7 Sunday. */
export const weekdays = [1, 2, 3, 4, 5, 6, 7] as const;
/** The path phones reach the agent at (MS-ASHTTP). */
export const ACTIVESYNC_PATH = '/Microsoft-Server-ActiveSync';
/** Logs (spec §9 Log ranges: last month, last three months; plus a custom range). */
export const logRanges = ['month', 'three_months', 'custom'] as const;
export type LogRange = (typeof logRanges)[number];
export const logLimits = {
  /** Rows before a page: deeper pages need a narrower range or filter (keeps every page fast). */
  maxOffset: 10_000,
  /** The total is counted up to this; beyond it the list says "more than". */
  countCap: 10_000,
  /** Longest custom range, days. */
  customRangeDays: 366,
  /** Rows one export may hold. */
  exportRows: 200_000,
  retentionDays: { min: 1, max: 3650, default: 180 },
} as const;
export const logViews = ['signin', 'admin'] as const;
export type LogView = (typeof logViews)[number];
export const exportFormats = ['xlsx', 'csv'] as const;
export type ExportFormat = (typeof exportFormats)[number];
/** Marks of a successful sign-in: the person's first from this country, or faster than 1 000 km/h from the last. */
export const signInMarks = ['new_country', 'impossible_travel'] as const;
export type SignInMark = (typeof signInMarks)[number];

/** Dashboard windows (spec §9): last 7 days, last month, last three days. */
export const dashboardWindows = ['week', 'month', 'three_days'] as const;
export type DashboardWindow = (typeof dashboardWindows)[number];
export const dashboardWindowDays: Record<DashboardWindow, number> = { week: 7, month: 30, three_days: 3 };

/** Failure spikes: this many failures of one cause within the window raise an alert. */
export const failureSpikeThresholds = { account: 50, company: 500, windowMinutes: 10 } as const;

/** Syslog forwarding per company (spec §3 Company syslog settings). */
export const syslogProtocols = ['udp', 'tcp', 'tls'] as const;
export type SyslogProtocol = (typeof syslogProtocols)[number];
export const syslogLimits = {
  hostMax: 253,
  /** RFC 5424 APP-NAME: 1 to 48 printable US-ASCII characters. */
  tagMax: 48,
  tagPattern: /^[!-~]{1,48}$/,
  caPemBytes: 64 * 1024,
  defaultTag: 'tessera',
} as const;

/** Brand of a company's sign-in pages. */
export const brandLimits = {
  titleMax: 60,
  footerTextMax: 200,
  footerLinkMax: 500,
  logoBytes: 512 * 1024,
  backgroundBytes: 2 * 1024 * 1024,
  colorPattern: /^#[0-9a-fA-F]{6}$/,
} as const;
export const brandImageTypes = ['image/png', 'image/jpeg', 'image/svg+xml', 'image/webp'] as const;
/**
 * Identity sources (spec §1, §2 identity-source routes, §3 LDAP fields): an LDAP or Active
 * Directory server, and the scan sign-in of DingTalk, WeChat (Open Platform) and WeCom.
 */
export const identitySourceTypes = ['ldap', 'dingtalk', 'weixin', 'work_weixin'] as const;
export type IdentitySourceType = (typeof identitySourceTypes)[number];
/** The sources whose contacts (people and departments) can be synced into the company. */
export const syncableSourceTypes: readonly IdentitySourceType[] = ['ldap', 'dingtalk', 'work_weixin'];
/** What a scan by someone no person of the company is linked to does. */
export const firstScanModes = ['link_only', 'create'] as const;
export type FirstScanMode = (typeof firstScanModes)[number];
export const identitySourceLimits = {
  nameMax: 64,
  dnMax: 512,
  filterMax: 1024,
  attributeMax: 64,
  urlMax: 512,
  caMax: 16_384,
  credentialMax: 256,
  /** Scheduled syncs: every 15 minutes at the most, once a week at the least; 0: on demand only. */
  syncIntervalMinutes: { min: 15, max: 10_080 },
  /** Connection and user tests a company may run in an hour (each reaches a server it names). */
  testsPerHour: 60,
} as const;
/** How long a directory may take to answer one operation (connect, bind, search page). */
export const DIRECTORY_TIMEOUT_MS = 10_000;
/** Attribute presets of the LDAP screen; every value is a field of the form. */
export const ldapPresets = {
  openldap: {
    usernameAttribute: 'uid',
    uniqueIdAttribute: 'entryUUID',
    userFilter: '(objectClass=inetOrgPerson)',
    groupFilter: '(|(objectClass=groupOfNames)(objectClass=groupOfUniqueNames))',
    groupIdAttribute: 'cn',
    membershipAttribute: 'member',
  },
  active_directory: {
    usernameAttribute: 'sAMAccountName',
    uniqueIdAttribute: 'objectGUID',
    userFilter: '(&(objectClass=user)(!(objectClass=computer)))',
    groupFilter: '(objectClass=group)',
    groupIdAttribute: 'cn',
    membershipAttribute: 'member',
  },
} as const;
export type LdapPreset = keyof typeof ldapPresets;
/** A directory sync: its kind of run, who started it, where it is. */
export const syncRunModes = ['preview', 'apply', 'sync'] as const;
export type SyncRunMode = (typeof syncRunModes)[number];
export const syncRunStatuses = ['queued', 'running', 'succeeded', 'failed'] as const;
export type SyncRunStatus = (typeof syncRunStatuses)[number];
/** What a sync does to one row (a person or a department), as its preview lists it. */
export const syncRowKinds = [
  'department_created',
  'department_updated',
  'department_removed',
  'created',
  'updated',
  'moved',
  'disabled',
  'enabled',
  'conflict',
] as const;
export type SyncRowKind = (typeof syncRowKinds)[number];
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
