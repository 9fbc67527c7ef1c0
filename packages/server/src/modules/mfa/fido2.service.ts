import type {
  AuthenticationResponseJSON,
  AuthenticatorTransportFuture,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Account } from '../../db/schema.ts';
import { newId } from '../../lib/ids.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { getSafetySettings } from '../safety/safety.repo.ts';
import { insertLoginEvent } from '../signin/login-events.repo.ts';
import * as repo from './mfa.repo.ts';
import type { MfaService } from './mfa.service.ts';

/** @simplewebauthn/server (about 25 MB with its dependencies), loaded on the first passkey ceremony. */
const webauthn = () => import('@simplewebauthn/server');

/**
 * Passkeys (FIDO2 / WebAuthn) with @simplewebauthn/server: registration in the user centre,
 * the second factor at sign-in, and the first factor (usernameless, discoverable credentials)
 * where a company allows login method `passkey`.
 *
 * - Relying party: rpID = the host of the public URL, origin = its origin.
 * - Challenges live in `webauthn_challenges`, bound to what asked (`purpose` + `subject`: the
 *   user-centre session or the OIDC interaction), for CHALLENGE_TTL_MS; one DELETE … RETURNING
 *   consumes a challenge, so of two answers to one challenge exactly one is checked.
 * - Credentials are `mfa_factors` rows of type `fido2` (credential_id base64url, unique; COSE
 *   public key; sign_count; transports). The counter must grow when either the stored or the new
 *   one is non-zero (WebAuthn §7.2 step 21, as the library checks): otherwise the assertion is
 *   refused as a cloned authenticator, and the new counter is stored with a compare-and-set.
 */
export const CHALLENGE_TTL_MS = 5 * 60_000;
export type ChallengePurpose = 'register' | 'second_factor' | 'first_factor';

export type AssertionResult =
  | { ok: true; accountId: string; factorId: string; userVerified: boolean }
  | { ok: false; cause: 'passkey_failed' | 'passkey_cloned'; accountId: string | null };

const RP_NAME = 'Tessera';
const MAX_RESPONSE_CHARS = 64 * 1024;

/** The challenge a response answers (from its clientDataJSON), or undefined. */
function challengeOf(response: unknown): string | undefined {
  try {
    const clientData = (response as { response?: { clientDataJSON?: unknown } })?.response?.clientDataJSON;
    if (typeof clientData !== 'string' || clientData.length > 8192) return undefined;
    const parsed = JSON.parse(Buffer.from(clientData, 'base64url').toString('utf8'));
    return typeof parsed?.challenge === 'string' && parsed.challenge.length <= 512
      ? parsed.challenge
      : undefined;
  } catch {
    return undefined;
  }
}

/** The submitted JSON of a ceremony, or undefined when it is not an object. */
export function parseCredential(text: string | undefined): Record<string, unknown> | undefined {
  if (!text || text.length > MAX_RESPONSE_CHARS) return undefined;
  try {
    const value = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

const transportsOf = (value: unknown): AuthenticatorTransportFuture[] | undefined =>
  Array.isArray(value)
    ? (value.filter((t) => typeof t === 'string') as AuthenticatorTransportFuture[])
    : undefined;

export function createFido2Service(deps: { db: Db; mfa: MfaService; publicUrl: string }) {
  const { db, mfa } = deps;
  const url = new URL(deps.publicUrl);
  const rpID = url.hostname;
  const origin = url.origin;

  async function storeChallenge(challenge: string, purpose: ChallengePurpose, subject: string) {
    await db.deleteFrom('webauthn_challenges').where('expires_at', '<=', sql<Date>`now()`).execute();
    await db
      .insertInto('webauthn_challenges')
      .values({
        challenge,
        purpose,
        subject,
        expires_at: new Date(Date.now() + CHALLENGE_TTL_MS),
      })
      .execute();
  }

  /** Uses a challenge once: true only for the one request that deletes it, unexpired. */
  async function consumeChallenge(challenge: string | undefined, purpose: ChallengePurpose, subject: string) {
    if (!challenge) return false;
    const row = await db
      .deleteFrom('webauthn_challenges')
      .where('challenge', '=', challenge)
      .returning(['purpose', 'subject', 'expires_at'])
      .executeTakeFirst();
    return !!row && row.purpose === purpose && row.subject === subject && row.expires_at > new Date();
  }

  const fido2Factors = async (accountId: string) =>
    (await db
      .selectFrom('mfa_factors')
      .select(['id', 'credential_id', 'transports'])
      .where('account_id', '=', accountId)
      .where('type', '=', 'fido2')
      .where('status', '=', 'bound')
      .execute()) as { id: string; credential_id: string; transports: unknown }[];

  /** Options for a new passkey of `account`, its challenge bound to `subject` (the user-centre session). */
  async function registrationOptions(
    account: Pick<Account, 'id' | 'username' | 'display_name'>,
    subject: string,
  ) {
    const existing = await fido2Factors(account.id);
    const { generateRegistrationOptions } = await webauthn();
    const options = await generateRegistrationOptions({
      rpName: RP_NAME,
      rpID,
      userName: account.username,
      userDisplayName: account.display_name ?? account.username,
      userID: new TextEncoder().encode(account.id),
      attestationType: 'none',
      timeout: CHALLENGE_TTL_MS,
      excludeCredentials: existing.map((f) => ({
        id: f.credential_id,
        transports: transportsOf(f.transports),
      })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    });
    await storeChallenge(options.challenge, 'register', subject);
    return options;
  }

  /**
   * Checks a new passkey and binds it. The first factor a person binds comes with recovery
   * codes (returned this once). Null when the response is refused.
   */
  async function finishRegistration(
    account: Pick<Account, 'id' | 'home_company_id'>,
    subject: string,
    response: Record<string, unknown>,
    ip: string | null,
  ): Promise<{ factorId: string; recoveryCodes: string[] | null } | null> {
    const challenge = challengeOf(response);
    if (!(await consumeChallenge(challenge, 'register', subject))) return null;
    const { verifyRegistrationResponse } = await webauthn();
    let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verified = await verifyRegistrationResponse({
        response: response as unknown as RegistrationResponseJSON,
        expectedChallenge: challenge!,
        expectedOrigin: origin,
        expectedRPID: rpID,
        requireUserVerification: false,
      });
    } catch {
      return null;
    }
    if (!verified.verified) return null;
    const { credential, userVerified, credentialDeviceType } = verified.registrationInfo;
    const factorId = newId();
    const recoveryCodes = await mfa.recoveryCodesForFirstBinding(account.id);
    try {
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('mfa_factors')
          .values({
            id: factorId,
            account_id: account.id,
            type: 'fido2',
            name: 'Passkey',
            status: 'bound',
            credential_id: credential.id,
            public_key: Buffer.from(credential.publicKey),
            sign_count: credential.counter,
            transports: JSON.stringify(credential.transports ?? []),
            bound_at: new Date(),
          })
          .execute();
        if (recoveryCodes) await mfa.storeRecoveryCodes(trx, account.id, recoveryCodes);
        await insertAuditEvent(trx, {
          companyId: account.home_company_id,
          actorAccountId: account.id,
          action: 'mfa.bind',
          targetType: 'user',
          targetId: account.id,
          after: {
            factorId,
            type: 'fido2',
            userVerified,
            deviceType: credentialDeviceType,
            recoveryCodesIssued: recoveryCodes?.length ?? 0,
          },
          ip,
        });
      });
    } catch {
      // The credential is bound already (credential_id is unique).
      return null;
    }
    return { factorId, recoveryCodes };
  }

  /**
   * Options for an assertion. With an account (second factor): its passkeys; without
   * (first factor): any discoverable credential, the authenticator says whose it is.
   */
  async function authenticationOptions(purpose: ChallengePurpose, subject: string, accountId?: string) {
    const allow = accountId ? await fido2Factors(accountId) : [];
    const { generateAuthenticationOptions } = await webauthn();
    const options = await generateAuthenticationOptions({
      rpID,
      timeout: CHALLENGE_TTL_MS,
      userVerification: 'preferred',
      allowCredentials: allow.map((f) => ({ id: f.credential_id, transports: transportsOf(f.transports) })),
    });
    await storeChallenge(options.challenge, purpose, subject);
    return options;
  }

  /** Checks an assertion against its challenge and the stored credential (of `accountId` when given). */
  async function verifyAssertion(
    response: Record<string, unknown>,
    purpose: ChallengePurpose,
    subject: string,
    accountId?: string,
  ): Promise<AssertionResult> {
    const challenge = challengeOf(response);
    const consumed = await consumeChallenge(challenge, purpose, subject);
    const credentialId = typeof response.id === 'string' ? response.id.slice(0, 1024) : '';
    let query = db
      .selectFrom('mfa_factors')
      .select(['id', 'account_id', 'credential_id', 'public_key', 'sign_count', 'transports'])
      .where('credential_id', '=', credentialId)
      .where('type', '=', 'fido2')
      .where('status', '=', 'bound');
    if (accountId) query = query.where('account_id', '=', accountId);
    const factor = credentialId ? await query.executeTakeFirst() : undefined;
    const failed = (cause: 'passkey_failed' | 'passkey_cloned' = 'passkey_failed'): AssertionResult => ({
      ok: false,
      cause,
      accountId: factor?.account_id ?? accountId ?? null,
    });
    if (!consumed || !factor?.public_key) return failed();
    const storedCount = Number(factor.sign_count ?? 0);
    const { verifyAuthenticationResponse } = await webauthn();
    let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
    try {
      verified = await verifyAuthenticationResponse({
        response: response as unknown as AuthenticationResponseJSON,
        expectedChallenge: challenge!,
        expectedOrigin: origin,
        expectedRPID: rpID,
        credential: {
          id: factor.credential_id!,
          publicKey: new Uint8Array(factor.public_key),
          counter: storedCount,
          transports: transportsOf(factor.transports),
        },
        requireUserVerification: false,
      });
    } catch (error) {
      const cloned = error instanceof Error && /counter/i.test(error.message);
      return failed(cloned ? 'passkey_cloned' : 'passkey_failed');
    }
    if (!verified.verified) return failed();
    const { newCounter, userVerified } = verified.authenticationInfo;
    // Compare-and-set: of two assertions with the same counter, one wins.
    const updated = await db
      .updateTable('mfa_factors')
      .set({ sign_count: newCounter, last_used_at: sql<Date>`now()` })
      .where('id', '=', factor.id)
      .where(sql<boolean>`coalesce(sign_count, 0) = ${storedCount}`)
      .returning('id')
      .executeTakeFirst();
    if (!updated) return failed(newCounter > 0 ? 'passkey_cloned' : 'passkey_failed');
    return { ok: true, accountId: factor.account_id, factorId: factor.id, userVerified };
  }

  /** Whether any company allows login method `passkey` (the shared sign-in page then offers it). */
  async function passkeyLoginOffered() {
    const row = await db
      .selectFrom('company_safety')
      .select('company_id')
      .where(sql<boolean>`general -> 'loginMethods' @> '["passkey"]'::jsonb`)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Whether the account may sign in with a passkey alone: its home company (the company that
   * manages it, as for password rules and lock-out) allows login method `passkey`; an account
   * without one, when any company it is an enabled member of allows it.
   */
  async function passkeyLoginAllowed(account: Pick<Account, 'id' | 'home_company_id'>) {
    const companies = account.home_company_id
      ? [account.home_company_id]
      : (await repo.listMemberships(db, account.id)).map((m) => m.company_id);
    for (const companyId of companies) {
      const { general } = await getSafetySettings(db, companyId);
      if (general.loginMethods.includes('passkey')) return true;
    }
    return false;
  }

  /** Logs a refused passkey (the cloned case always names its cause). */
  const logFailure = (
    account: Pick<Account, 'id' | 'username' | 'home_company_id'> | null,
    cause: 'passkey_failed' | 'passkey_cloned' | 'passkey_not_allowed',
    event: { ip: string | null; userAgent: string | null; clientId: string | null },
  ) =>
    insertLoginEvent(db, {
      companyId: account?.home_company_id ?? null,
      accountId: account?.id ?? null,
      identifier: account?.username ?? '(passkey)',
      clientId: event.clientId,
      ip: event.ip,
      userAgent: event.userAgent,
      result: 'failure',
      failureCause: cause,
    });

  return {
    rpID,
    origin,
    registrationOptions,
    finishRegistration,
    authenticationOptions,
    verifyAssertion,
    passkeyLoginOffered,
    passkeyLoginAllowed,
    logFailure,
  };
}

export type Fido2Service = ReturnType<typeof createFido2Service>;
