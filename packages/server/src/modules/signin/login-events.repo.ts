import type { Db } from '../../db/database.ts';
import { newId } from '../../lib/ids.ts';
import { executeHot } from '../../lib/prepared.ts';
import { type Place, placeOf } from '../log/geo-ip.ts';
import { marksOf, type PreviousPlace, rememberPlaceQuery, signInMarks } from '../log/sign-in-marks.ts';
import { parseUserAgent } from '../log/user-agent.ts';

export type LoginFailureCause =
  | 'unknown_account'
  | 'wrong_password'
  // A wrong code of a forgotten-password reset (modules/password-reset): counted like a wrong password.
  | 'reset_code_wrong'
  | 'account_disabled'
  | 'account_locked'
  | 'throttled'
  | 'not_platform_admin'
  | 'missing_credentials'
  // Second factor (modules/mfa): a wrong or replayed code, or the MFA lock in force.
  | 'mfa_failed'
  | 'mfa_locked'
  // A refused new password at the password_expired step (sign-in-steps.ts).
  | 'password_expired'
  // Passkeys (modules/mfa/fido2.service.ts): an assertion refused, a counter that went back
  // (a cloned authenticator), or passkey sign-in not allowed by the account's company.
  | 'passkey_failed'
  | 'passkey_cloned'
  | 'passkey_not_allowed'
  // Applications (modules/app/app-access.ts): the app is not opened, the person is not assigned
  // to it (or not a user of its company), or the assignment has expired.
  | 'app_disabled'
  | 'app_not_assigned'
  | 'app_assignment_expired'
  // Identity sources (modules/identity-source): the company's directory did not answer, the
  // person's source is disabled, a directory person could not be added (a quota, a taken
  // username), a scan sign-in failed at the provider, or the scanned account is nobody's.
  | 'directory_unavailable'
  | 'source_disabled'
  | 'directory_conflict'
  | 'scan_failed'
  | 'scan_not_linked'
  // Upstream identity providers (identity-source/saml-source): a response that was refused, or
  // a person of the upstream nobody of the company is linked to.
  | 'upstream_failed'
  | 'upstream_not_linked'
  // RADIUS (modules/radius): the person may not use the client (not a user of its company, or
  // not in its departments), has no second factor bound or none usable over RADIUS, or answered
  // an Access-Challenge whose State had expired or was used.
  | 'radius_not_allowed'
  | 'mfa_not_bound'
  | 'mfa_unavailable'
  | 'challenge_expired'
  // UKEY and soft-lock factors (modules/mfa/signature-factors): a signature that does not verify,
  // or a certificate revoked, expired or not of the company's CAs at the moment of use.
  | 'signature_failed'
  | 'certificate_invalid'
  // Codes by email or SMS (oidc/code-sign-in.routes.ts, sign-in-code-factor.ts): a wrong code,
  // or one that expired, was used or ran out of tries; a code method the company does not offer.
  | 'code_failed'
  | 'code_expired'
  | 'code_not_allowed';

/**
 * The Exchange agent's causes (modules/exchange/agent.service.ts): a device registered or
 * waiting, its password wrong or not yet entered, the person's device limit, a disabled or
 * blocked device, sending refused to a receive-only device, the company's agent off or without
 * an Exchange sign-in. The agent uses the person causes above too (unknown, disabled, throttled).
 */
export type AgentFailureCause =
  | 'device_registered'
  | 'device_to_be_activated'
  | 'device_password_pending'
  | 'device_unknown'
  | 'device_password_wrong'
  | 'device_limit'
  | 'device_disabled'
  | 'device_blocked_by_policy'
  | 'device_command_not_allowed'
  | 'exchange_disabled'
  | 'exchange_credentials_missing';

export interface LoginEvent {
  companyId: string | null;
  accountId: string | null;
  identifier: string;
  clientId: string | null;
  ip: string | null;
  userAgent: string | null;
  result: 'success' | 'failure';
  failureCause: LoginFailureCause | AgentFailureCause | null;
  /** The Exchange device the event is about. */
  deviceId?: string | null;
  /** A RADIUS request: the NAS-IP-Address (or NAS-IPv6-Address) and Calling-Station-Id it carried. */
  nas?: { ip: string | null; callingStationId: string | null } | null;
  /** How the person proved who they were (a login method, or a second factor's kind), when known. */
  method?: string | null;
}

/** What is added to an event when it is written: its place, browser and, for a success, its marks. */
export interface LoginEventDetails {
  place: Place | null;
  browser: string | null;
  os: string | null;
  marks: string[] | null;
}

/**
 * The details of an event. A failure costs no query (the same for known and unknown accounts); a
 * success from a known place is compared with where the account signed in before.
 */
export async function describeLoginEvent(db: Db, event: LoginEvent): Promise<LoginEventDetails> {
  const place = await placeOf(event.ip);
  const { browser, os } = parseUserAgent(event.userAgent);
  const marks =
    event.result === 'success' && event.accountId && place
      ? await signInMarks(db, event.accountId, place, new Date())
      : null;
  return { place, browser, os, marks: marks?.length ? marks : null };
}

/**
 * The details of a success whose account's previous place was read already (with the account,
 * signin-attempt.ts): no query. `rememberPlace` records this sign-in's place for the next one's
 * marks; the caller writes it with the event.
 */
export async function describeSuccess(db: Db, event: LoginEvent, previous: PreviousPlace | null) {
  const place = await placeOf(event.ip);
  const { browser, os } = parseUserAgent(event.userAgent);
  if (!place || !event.accountId) return { details: { place, browser, os, marks: null } };
  const at = new Date();
  const marks = marksOf(previous, place, at);
  return {
    details: { place, browser, os, marks: marks.length ? marks : null },
    rememberPlace: rememberPlaceQuery(db, event.accountId, previous, place, at),
  };
}

/** The statement that writes a login event (to run alone, or inside another statement). */
export const loginEventInsert = (db: Db, event: LoginEvent, details?: LoginEventDetails) =>
  db.insertInto('login_events').values({
    id: newId(),
    company_id: event.companyId,
    account_id: event.accountId,
    identifier: event.identifier.slice(0, 254),
    client_id: event.clientId,
    ip: event.ip,
    user_agent: event.userAgent?.slice(0, 512) ?? null,
    result: event.result,
    failure_cause: event.failureCause,
    device_id: event.deviceId ?? null,
    country: details?.place?.country ?? null,
    region: details?.place?.region?.slice(0, 100) ?? null,
    city: details?.place?.city?.slice(0, 100) ?? null,
    latitude: details?.place?.latitude ?? null,
    longitude: details?.place?.longitude ?? null,
    browser: details?.browser ?? null,
    os: details?.os ?? null,
    marks: details?.marks ?? null,
    nas_ip: event.nas?.ip?.slice(0, 64) ?? null,
    calling_station_id: event.nas?.callingStationId?.slice(0, 253) ?? null,
    method: event.method ?? null,
  });

export async function insertLoginEvent(db: Db, event: LoginEvent): Promise<void> {
  await executeHot(db, loginEventInsert(db, event, await describeLoginEvent(db, event)));
}
