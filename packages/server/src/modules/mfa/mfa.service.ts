import { type MemberRole, type MfaType, RECOVERY_CODE_COUNT } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import type { Account } from '../../db/schema.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { DEFAULT_SM3_OTP_PERIOD, verifySm3Otp } from '../../lib/otp/sm3-otp.ts';
import { base32Encode, newTotpSecret, otpauthUri, verifyTotp } from '../../lib/otp/totp.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import type { NotifyCredentialChange } from '../mail/credential-notices.ts';
import { type AccountSignOut, withSignOut } from '../oidc/sign-out.ts';
import { insertLoginEvent, type LoginEvent } from '../signin/login-events.repo.ts';
import { assertFullyManaged, assertMayActOn, roleIn } from '../user/user-authority.ts';
import * as repo from './mfa.repo.ts';
import {
  createMfaRequirements,
  isOtpType,
  type MfaLockout,
  type MfaRequirement,
  OTP_TYPES,
  type OtpType,
} from './mfa-requirement.ts';

export type { MfaLockout, MfaRequirement, OtpType };
export { OTP_TYPES };

/** The QR code of an enrolment URI, as SVG; qrcode is loaded on the first enrolment, not at start. */
async function qrCodeSvg(uri: string): Promise<string> {
  const { default: QRCode } = await import('qrcode');
  return QRCode.toString(uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
}

const SEED_PURPOSE = 'mfa-otp-seed';
const RECOVERY_PURPOSE = 'mfa-recovery-code';
const ISSUER = 'Tessera';

export interface OtpBinding {
  factorId: string;
  type: OtpType;
  /** Base32 seed, for typing in by hand. */
  secret: string;
  otpauthUri: string;
  /** The URI as a QR code, an SVG data URI. */
  qrCode: string;
}

type SecondFactorVia = 'otp' | 'recovery_code' | 'passkey' | 'signature' | 'sent_code';
type SecondFactorFailure = 'mfa_failed' | 'mfa_locked' | 'signature_failed' | 'certificate_invalid';
export type SecondFactorResult =
  | { ok: true; via: SecondFactorVia }
  | { ok: false; cause: SecondFactorFailure; lockedUntil: Date | null };

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** Recovery codes as people copy them: 10 characters in two groups, no look-alike letters. */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
function newRecoveryCode() {
  const bytes = newTotpSecret();
  let code = '';
  for (let i = 0; i < 10; i++) code += RECOVERY_ALPHABET[bytes[i]! % RECOVERY_ALPHABET.length];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}
const normaliseRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]/g, '').slice(0, 64);

function sm3OtpauthUri(account: string, secret: Buffer) {
  const label = `${encodeURIComponent(ISSUER)}:${encodeURIComponent(account)}`;
  return `otpauth://totp/${label}?secret=${base32Encode(secret)}&issuer=${ISSUER}&algorithm=SM3&digits=6&period=${DEFAULT_SM3_OTP_PERIOD}`;
}

export function createMfaService(deps: {
  db: Db;
  sealer: Sealer;
  now?: () => number;
  /** Tells the person of factors an administrator removed (mail/credential-notices.ts). */
  notifyCredentialChange?: NotifyCredentialChange;
  /** Tells the person's applications when removing factors ends their sessions. */
  signOut?: Pick<AccountSignOut, 'prepare'>;
}) {
  const { db, sealer } = deps;
  const now = deps.now ?? Date.now;
  const requirements = createMfaRequirements(db);
  const hashRecoveryCode = (code: string) => sealer.hmac(RECOVERY_PURPOSE, normaliseRecoveryCode(code));
  const seedOf = (factor: repo.FactorRow) =>
    Buffer.from(sealer.open(factor.secret_sealed ?? '', `${SEED_PURPOSE}:${factor.id}`), 'base64');

  /** The matched time step of `code` for an OTP factor, or null. */
  function verifyCode(factor: repo.FactorRow, code: string): number | null {
    if (!factor.secret_sealed || !isOtpType(factor.type)) return null;
    const seed = seedOf(factor);
    return factor.type === 'otp' ? verifyTotp(seed, code, now()) : verifySm3Otp(seed, code, now());
  }

  /** The account's bound factors of the given kinds. */
  async function boundFactors(accountId: string, types: readonly string[]) {
    const factors = await repo.listFactors(db, accountId);
    return factors.filter((f) => f.status === 'bound' && types.includes(f.type));
  }

  /** A new seed, sealed, in an `unbound` factor (replacing a binding begun before and not confirmed). */
  async function startBinding(account: Pick<Account, 'id' | 'username'>, type: OtpType): Promise<OtpBinding> {
    const factorId = newId();
    // 160 bits for both kinds (SM3 OTP wants at least 128).
    const seed = newTotpSecret();
    const uri =
      type === 'otp'
        ? otpauthUri({ issuer: ISSUER, account: account.username.replace(/:/g, '_'), secret: seed })
        : sm3OtpauthUri(account.username, seed);
    await db.transaction().execute(async (trx) => {
      await repo.deleteUnboundFactors(trx, account.id);
      await repo.insertFactor(trx, {
        id: factorId,
        accountId: account.id,
        type,
        name: type === 'otp' ? 'OTP' : 'OTP (SM3)',
        secretSealed: sealer.seal(seed.toString('base64'), `${SEED_PURPOSE}:${factorId}`),
      });
    });
    const svg = await qrCodeSvg(uri);
    return {
      factorId,
      type,
      secret: base32Encode(seed),
      otpauthUri: uri,
      qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`,
    };
  }

  /** The binding begun last and not confirmed yet, with its QR code again (a reloaded page). */
  async function pendingBinding(account: Pick<Account, 'id' | 'username'>): Promise<OtpBinding | undefined> {
    const factors = await repo.listFactors(db, account.id);
    const factor = factors.filter((f) => f.status === 'unbound' && isOtpType(f.type)).at(-1);
    if (!factor || !isOtpType(factor.type)) return undefined;
    const seed = seedOf(factor);
    const uri =
      factor.type === 'otp'
        ? otpauthUri({ issuer: ISSUER, account: account.username.replace(/:/g, '_'), secret: seed })
        : sm3OtpauthUri(account.username, seed);
    const svg = await qrCodeSvg(uri);
    return {
      factorId: factor.id,
      type: factor.type,
      secret: base32Encode(seed),
      otpauthUri: uri,
      qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`,
    };
  }

  /**
   * Confirms a binding with a code from the new authenticator. The first factor a person binds
   * comes with RECOVERY_CODE_COUNT recovery codes, returned this once and stored hashed.
   * Returns null when the code is wrong (or the binding is gone).
   */
  async function confirmBinding(
    account: Pick<Account, 'id' | 'home_company_id'>,
    factorId: string,
    code: string,
    ip: string | null,
  ): Promise<{ recoveryCodes: string[] | null } | null> {
    const factor = await repo.findFactor(db, account.id, factorId);
    if (factor?.status !== 'unbound') return null;
    const step = verifyCode(factor, code);
    if (step === null) return null;
    const recoveryCodes =
      (await repo.countBoundFactors(db, account.id)) === 0
        ? Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode)
        : null;
    return db.transaction().execute(async (trx) => {
      if (!(await repo.markBound(trx, account.id, factorId, step))) return null;
      if (recoveryCodes)
        await repo.replaceRecoveryCodes(trx, account.id, recoveryCodes.map(hashRecoveryCode));
      await insertAuditEvent(trx, {
        companyId: account.home_company_id,
        actorAccountId: account.id,
        action: 'mfa.bind',
        targetType: 'user',
        targetId: account.id,
        after: { factorId, type: factor.type, recoveryCodesIssued: recoveryCodes?.length ?? 0 },
        ip,
      });
      return { recoveryCodes };
    });
  }

  /**
   * The second factor at sign-in: a code of one of the person's bound factors (of an allowed
   * kind; without a factor named, any of them), a recovery code, a passkey assertion or a key's
   * signature (checked by the caller). A code is accepted once; failures count towards the MFA lock.
   */
  async function verifySecondFactor(
    account: Pick<Account, 'id' | 'username' | 'home_company_id'>,
    input: {
      factorId?: string;
      code?: string;
      recoveryCode?: string;
      /** A passkey assertion, checked by the caller (fido2.service.ts): true when it passed. */
      passkey?: () => Promise<boolean>;
      /** A UKEY or soft-lock signature, checked by the caller (signature-factors.service.ts). */
      signature?: () => Promise<
        { ok: true } | { ok: false; cause: 'signature_failed' | 'certificate_invalid' }
      >;
      /** A code sent by email or SMS, checked by the caller (oidc/sign-in-code-factor.ts): true when right. */
      sentCode?: () => Promise<boolean>;
      /**
       * The account's `mfa_locked_until` as the caller read it with the account in this request;
       * without it the lock is read here. Either way a lock that comes in meanwhile still wins:
       * clearing and counting failures only touch an unlocked account.
       */
      lockedUntil?: Date | null;
    },
    requirement: Pick<MfaRequirement, 'types' | 'lockout'>,
    event: {
      ip: string | null;
      userAgent: string | null;
      clientId: string | null;
      companyId?: string | null;
      nas?: LoginEvent['nas'];
    },
  ): Promise<SecondFactorResult> {
    const log = (cause: SecondFactorFailure) =>
      insertLoginEvent(db, {
        companyId: event.companyId ?? account.home_company_id,
        accountId: account.id,
        identifier: account.username,
        clientId: event.clientId,
        ip: event.ip,
        userAgent: event.userAgent,
        result: 'failure',
        failureCause: cause,
        nas: event.nas,
      });
    const locked = async (lockedUntil: Date | null): Promise<SecondFactorResult> => {
      await log('mfa_locked');
      return { ok: false, cause: 'mfa_locked', lockedUntil };
    };
    const lockedUntil =
      input.lockedUntil === undefined
        ? (await repo.findMfaLock(db, account.id)).lockedUntil
        : input.lockedUntil && input.lockedUntil > new Date()
          ? input.lockedUntil
          : null;
    if (lockedUntil) return locked(lockedUntil);

    let passed = false;
    let via: SecondFactorVia = 'otp';
    let failure: SecondFactorFailure = 'mfa_failed';
    if (input.passkey) {
      via = 'passkey';
      passed = await input.passkey();
    } else if (input.signature) {
      via = 'signature';
      const checked = await input.signature();
      passed = checked.ok;
      if (!checked.ok) failure = checked.cause;
    } else if (input.sentCode) {
      via = 'sent_code';
      passed = await input.sentCode();
    } else if (input.recoveryCode?.trim()) {
      via = 'recovery_code';
      passed = await repo.useRecoveryCode(db, account.id, hashRecoveryCode(input.recoveryCode));
    } else if (input.code) {
      const factors = input.factorId
        ? [await repo.findFactor(db, account.id, input.factorId)]
        : await repo.listFactors(db, account.id);
      for (const factor of factors) {
        if (factor?.status !== 'bound' || !(requirement.types as string[]).includes(factor.type)) continue;
        const step = verifyCode(factor, input.code);
        if (step !== null && (await repo.claimStep(db, factor.id, step))) {
          passed = true;
          break;
        }
      }
    }
    if (passed) {
      if (await repo.clearMfaFailures(db, account.id)) return { ok: true, via };
      return locked((await repo.findMfaLock(db, account.id)).lockedUntil);
    }
    const counted = await repo.recordMfaFailure(db, account.id, requirement.lockout);
    if (!counted) return locked((await repo.findMfaLock(db, account.id)).lockedUntil);
    if (counted.lockedUntil) return locked(counted.lockedUntil);
    await log(failure);
    return { ok: false, cause: failure, lockedUntil: null };
  }

  function toFactor(row: repo.FactorRow) {
    return {
      factorId: row.id,
      type: row.type as MfaType,
      name: row.name,
      status: row.status,
      boundAt: iso(row.bound_at),
      lastUsedAt: iso(row.last_used_at),
    };
  }

  async function listOwn(accountId: string) {
    const [factors, recoveryCodesLeft] = await Promise.all([
      repo.listFactors(db, accountId),
      repo.countRecoveryCodesLeft(db, accountId),
    ]);
    return { list: factors.map(toFactor), recoveryCodesLeft };
  }

  /** A user's factors, for an administrator of a company the user belongs to. */
  async function listForUser(companyId: string, userId: string) {
    if (!(await repo.isMember(db, companyId, userId))) throw new AppError('user.not_found');
    return listOwn(userId);
  }

  /**
   * Unbinds one factor (or all): the person's sessions end (credential version), and when no
   * bound factor is left the recovery codes go too (the next binding issues new ones).
   */
  async function unbind(
    actor: { accountId: string; ip: string | null },
    companyId: string | null,
    userId: string,
    factorId?: string,
    options: { endSessions: boolean } = { endSessions: true },
  ) {
    return withSignOut(db, deps.signOut, async (trx, signOutBefore) => {
      const before = await repo.listFactors(trx, userId);
      if (factorId && !before.some((f) => f.id === factorId)) throw new AppError('mfa.factor_not_found');
      const removed = await repo.deleteFactors(trx, userId, factorId);
      if ((await repo.countBoundFactors(trx, userId)) === 0) await repo.deleteRecoveryCodes(trx, userId);
      if (options.endSessions) {
        await signOutBefore(userId);
        await repo.raiseCredentialVersion(trx, userId);
      }
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'mfa.unbind',
        targetType: 'user',
        targetId: userId,
        before: {
          factors: before
            .filter((f) => !factorId || f.id === factorId)
            .map((f) => ({ factorId: f.id, type: f.type, status: f.status })),
        },
        after: { removed, sessionsEnded: options.endSessions },
        ip: actor.ip,
      });
      return { removed };
    });
  }

  /**
   * An administrator removes a user's factors: only of an account the company fully manages,
   * and not of someone whose role is above theirs (user-authority.ts). The person is told by mail.
   */
  async function unbindForUser(
    actor: { accountId: string; ip: string | null; role: MemberRole },
    companyId: string,
    input: { userId: string; factorId?: string },
  ) {
    const role = await roleIn(db, companyId, input.userId);
    if (!role) throw new AppError('user.not_found');
    assertMayActOn(actor.role, role);
    await assertFullyManaged(db, companyId, input.userId);
    const result = await unbind(actor, companyId, input.userId, input.factorId);
    if (result.removed > 0) await deps.notifyCredentialChange?.(input.userId, companyId, 'factors_removed');
    return result;
  }

  /** Recovery codes for a person binding their first factor, or null when one is bound already (FIDO2 binding). */
  async function recoveryCodesForFirstBinding(accountId: string) {
    return (await repo.countBoundFactors(db, accountId)) === 0
      ? Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode)
      : null;
  }
  const storeRecoveryCodes = (trx: Db, accountId: string, codes: string[]) =>
    repo.replaceRecoveryCodes(trx, accountId, codes.map(hashRecoveryCode));

  return {
    requirementFor: requirements.requirementFor,
    requirementIn: requirements.requirementIn,
    recoveryCodesForFirstBinding,
    storeRecoveryCodes,
    boundFactors,
    startBinding,
    pendingBinding,
    confirmBinding,
    verifySecondFactor,
    listOwn,
    listForUser,
    unbind,
    unbindForUser,
  };
}

export type MfaService = ReturnType<typeof createMfaService>;
