import { enAppsErrors } from './en-errors-apps.ts';
import { enPeopleErrors } from './en-errors-people.ts';

/** English server phrases. This object is the type that every other language must satisfy. */
export const en = {
  errors: { ...enPeopleErrors, ...enAppsErrors },
  /** Why a sign-in failed, as the user log shows it (LoginFailureCause of the sign-in service). */
  loginCauses: {
    unknown_account: 'Unknown account',
    wrong_password: 'Wrong password',
    account_disabled: 'Account disabled',
    account_locked: 'Account locked',
    throttled: 'Too many attempts',
    not_platform_admin: 'Not a platform administrator',
    missing_credentials: 'Username or password missing',
    mfa_failed: 'Wrong verification code',
    mfa_locked: 'Verification locked',
    password_expired: 'Password expired',
    passkey_failed: 'Passkey not accepted',
    passkey_cloned: 'Passkey counter went back (possible copy)',
    passkey_not_allowed: 'Passkey sign-in not allowed',
    app_disabled: 'Application not opened or disabled',
    app_not_assigned: 'Not assigned to the application',
    app_assignment_expired: 'Application assignment expired',
    device_registered: 'New device registered',
    device_to_be_activated: 'Device waiting for activation',
    device_password_pending: 'Device password not entered on the device yet',
    device_unknown: 'Device not registered',
    device_password_wrong: 'Wrong device password',
    device_limit: 'Device limit reached',
    device_disabled: 'Device disabled',
    device_blocked_by_policy: "Outside the device's allowed hours",
    device_command_not_allowed: 'Sending not allowed for this device',
    exchange_disabled: 'Exchange agent not enabled',
    exchange_credentials_missing: 'Exchange sign-in not saved in the user centre',
    directory_unavailable: 'Directory did not answer',
    source_disabled: 'Identity source disabled',
    directory_conflict: 'Directory person could not be added',
    scan_failed: 'Scan sign-in failed',
    scan_not_linked: 'Scanned account not bound to a person',
    upstream_failed: 'Sign-in at the upstream identity provider failed',
    upstream_not_linked: 'Upstream account not linked to a person',
    radius_not_allowed: 'Not allowed to use this RADIUS client',
    mfa_not_bound: 'No second factor bound',
    mfa_unavailable: 'No second factor usable here',
    challenge_expired: 'Challenge expired or already used',
    signature_failed: 'Key signature not accepted',
    certificate_invalid: 'Certificate revoked, expired or untrusted',
    reset_code_wrong: 'Wrong password reset code',
    code_failed: 'Wrong sign-in code',
    code_expired: 'Sign-in code expired, used or out of tries',
    code_not_allowed: 'Code sign-in not offered',
  },
  /** RADIUS Reply-Message texts, in the company's default language. */
  radius: {
    challengePrompt: 'Enter the verification code of your authenticator app',
    smsPrompt: 'Enter the verification code sent by SMS to {phone}',
    smsWait: 'A verification code was sent by SMS moments ago: use it, or try again in {seconds} s',
    smsFailed: 'The verification code could not be sent by SMS, please try again later',
    factorNotBound:
      'A second factor is required: bind an authenticator app in the user centre, then sign in again',
    factorCodeNeeded:
      'A passkey or key cannot be given through this device: bind an authenticator app in the user centre as well',
    factorKeysOnly:
      'This device can ask only for an authenticator app’s code, and your company requires a passkey or key: ask your administrator',
  },
  /** Outcomes of the identity sources' test buttons. */
  sourceTests: {
    connectionOk: 'Connected ({tls}) and bound; the user root DN exists',
    connectionOkGroups: 'Connected ({tls}) and bound; the user and group root DNs exist',
    upstreamOk: 'Discovery read: issuer {issuer}, {keys} signing key(s)',
    userOk: 'Found {dn}; the password is right',
    tlsNone: 'no encryption',
  },
  /** Why a row of a directory sync is what it is (sync previews and runs). */
  syncNotes: {
    gone: 'No longer in the directory',
    directory_disabled: 'Disabled in the directory',
    invalid_username:
      'The username "{username}" cannot be used here (letters, digits, dot, underscore and hyphen, at most 64)',
    duplicate_in_directory: 'Another entry of the directory has the same {field}',
    taken_in_company: 'A person of the company who is not linked to this source has the same {field}',
    owner_protected: 'The company owner is never disabled by a sync',
    adopted: 'An existing department with this name is now kept up to date by the directory',
    kept_not_empty: 'Kept as an ordinary department: people or sub departments remain in it',
    renamed_duplicate: 'Named so because a department "{name}" already exists at the same place',
    missing_attribute: 'The entry has no username or no unique identifier',
    duplicate_id: 'Another entry has the same unique identifier',
  },
  syncFields: {
    username: 'username',
    name: 'name',
    email: 'email',
    phone: 'phone',
    departments: 'departments',
    parent: 'superior department',
  },
  /** Permission groups of the console (spec §6) and their levels, as refusals name them. */
  consoleGroups: {
    app: 'Applications',
    identitySource: 'Identity sources',
    user: 'Users',
    department: 'Departments',
    authority: 'Permissions',
    security: 'Security',
    log: 'Logs',
    branding: 'Branding',
    licence: 'Licence',
    companySettings: 'Company settings',
    about: 'About',
  },
  consoleLevels: { read: 'read', manage: 'manage', resetCredentials: 'reset credentials' },
  validation: {
    required: '{field} is required',
    too_long: '{field} must be at most {max} characters',
    too_short: '{field} must be at least {min} characters',
    too_big: '{field} must be at most {max}',
    too_small: '{field} must be at least {min}',
    invalid_type: '{field} has the wrong type',
    invalid_value: '{field} is not one of the allowed values',
    invalid_format: '{field} is not in a valid format',
    unrecognized_keys: 'Unknown field: {field}',
    invalid: '{field} is not valid',
  },
} as const;

type Widen<T> = { [K in keyof T]: T[K] extends string ? string : Widen<T[K]> };
export type ServerPhrases = Widen<typeof en>;
