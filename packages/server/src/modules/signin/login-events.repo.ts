import type { Db } from '../../db/database.ts';
import { newId } from '../../lib/ids.ts';

export type LoginFailureCause =
  | 'unknown_account'
  | 'wrong_password'
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
  | 'certificate_invalid';

export interface LoginEvent {
  companyId: string | null;
  accountId: string | null;
  identifier: string;
  clientId: string | null;
  ip: string | null;
  userAgent: string | null;
  result: 'success' | 'failure';
  failureCause: LoginFailureCause | null;
  /** A RADIUS request: the NAS-IP-Address (or NAS-IPv6-Address) and Calling-Station-Id it carried. */
  nas?: { ip: string | null; callingStationId: string | null } | null;
}

/** The statement that writes a login event (to run alone, or inside another statement). */
export const loginEventInsert = (db: Db, event: LoginEvent) =>
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
    nas_ip: event.nas?.ip?.slice(0, 64) ?? null,
    calling_station_id: event.nas?.callingStationId?.slice(0, 253) ?? null,
  });

export async function insertLoginEvent(db: Db, event: LoginEvent): Promise<void> {
  await loginEventInsert(db, event).execute();
}
