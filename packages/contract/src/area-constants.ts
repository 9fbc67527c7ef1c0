/**
 * Constants of the areas the console loads with their screens (Exchange and devices, logs,
 * syslog, dashboard, brand, identity sources), apart from constants.ts so that the console's
 * first load does not carry them. Re-exported by constants.ts.
 */
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
 * Directory server, the scan sign-in of DingTalk, WeChat (Open Platform) and WeCom, and an
 * upstream SAML identity provider (Tessera as its service provider, issue 33).
 */
export const identitySourceTypes = ['ldap', 'dingtalk', 'weixin', 'work_weixin', 'oidc', 'saml'] as const;
export type IdentitySourceType = (typeof identitySourceTypes)[number];
/**
 * The upstream identity providers people sign in at (a button on the sign-in page each, and
 * home-realm discovery by email domain): OpenID Connect and SAML.
 */
export const upstreamSourceTypes = ['oidc', 'saml'] as const satisfies readonly IdentitySourceType[];
export type UpstreamSourceType = (typeof upstreamSourceTypes)[number];
/** How Tessera authenticates at an upstream OpenID provider's token endpoint. */
export const oidcClientAuthMethods = [
  'client_secret_basic',
  'client_secret_post',
  'private_key_jwt',
] as const;
/** The ID token signature algorithms Tessera accepts from an upstream provider (never `none` or HMAC). */
export const upstreamIdTokenAlgorithms = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const;
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
  /** An upstream source's email domains (home-realm discovery) and its MFA acr/amr values. */
  emailDomainsMax: 50,
  assertionValuesMax: 20,
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

/** RADIUS (spec §1, §2 /safety-management/radius). */
export const RADIUS_DEFAULT_PORT = 1812;
/** The client of a RADIUS sign-in in the sign-in log: `radius:<RADIUS client id>` (it has no application). */
export const RADIUS_LOG_CLIENT_PREFIX = 'radius:';
/** An Access-Challenge's State is single use and lives this long. */
export const RADIUS_CHALLENGE_SECONDS = 60;
/**
 * How a RADIUS client's people give their second factor: an Access-Challenge asking for the code
 * (State attribute), or the code typed right after the password in the one password field.
 */
export const radiusOtpModes = ['challenge', 'appended'] as const;
export type RadiusOtpMode = (typeof radiusOtpModes)[number];
/** Who may sign in through a RADIUS client: every user of the company, or those of chosen departments. */
export const radiusAccessModes = ['all', 'restricted'] as const;
export type RadiusAccessMode = (typeof radiusAccessModes)[number];
export const radiusLimits = {
  nameMax: 50,
  sourceMax: 64,
  clientsPerCompany: 200,
  departmentsMax: 100,
} as const;

/** Certificate authority (spec §1, §3 Certificate, §5 key strengths). */
export const keyAlgorithms = ['rsa', 'ecc', 'sm2'] as const;
export type KeyAlgorithm = (typeof keyAlgorithms)[number];
export const keyStrengths = {
  rsa: ['2048', '3072', '4096'],
  ecc: ['P-256', 'P-384', 'P-521'],
  sm2: ['SMP256'],
} as const satisfies Record<KeyAlgorithm, readonly string[]>;
export type KeyStrength = (typeof keyStrengths)[KeyAlgorithm][number];
/** Spec §5: SM2 defaults to SMP256; the first strength of each algorithm is its default. */
export const defaultKeyStrength = { rsa: '2048', ecc: 'P-256', sm2: 'SMP256' } as const satisfies Record<
  KeyAlgorithm,
  KeyStrength
>;
export const caLimits = {
  nameMax: 64,
  subjectFieldMax: 64,
  caValidityYears: { min: 1, max: 30, default: 10 },
  certificateValidityDays: { min: 1, max: 3650, default: 365 },
  /** A CA file (PEM or PKCS#12) or a CSR. */
  fileBytes: 64 * 1024,
  csrChars: 16 * 1024,
  passwordMax: 128,
  casPerCompany: 20,
} as const;
/** Spec §5: the CA file is a certificate with its key, as PEM or PKCS#12. */
export const caFileTypes = [
  'application/x-pem-file',
  'application/x-pkcs12',
  'application/pkcs12',
  'application/octet-stream',
  'text/plain',
] as const;
/** RFC 5280 CRLReason values that a revocation may give. */
export const revocationReasons = [
  'unspecified',
  'keyCompromise',
  'caCompromise',
  'affiliationChanged',
  'superseded',
  'cessationOfOperation',
] as const;
export type RevocationReason = (typeof revocationReasons)[number];
export const certificateStatuses = ['valid', 'revoked', 'expired'] as const;
export type CertificateStatus = (typeof certificateStatuses)[number];
