import {
  type CodeChannel,
  consoleMemberRoles,
  type MfaType,
  type SignatureMfaType,
  signatureMfaTypes,
} from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import type { Account } from '../../db/schema.ts';
import { getSafetySettings, type MfaSafety } from '../safety/safety.repo.ts';
import * as repo from './mfa.repo.ts';

/** The kinds that answer with a code (an authenticator app's TOTP, or SM3 OTP of GM/T 0021). */
export const OTP_TYPES = ['otp', 'otp_sm3'] as const satisfies readonly MfaType[];
export type OtpType = (typeof OTP_TYPES)[number];
export const isOtpType = (type: string): type is OtpType => (OTP_TYPES as readonly string[]).includes(type);
/** The kinds whose code is sent to the person's verified email address or phone (nothing bound). */
export const SENT_CODE_TYPES = ['email', 'sms'] as const satisfies readonly (MfaType & CodeChannel)[];
const sentCodeKinds = (types: readonly MfaType[]) => SENT_CODE_TYPES.filter((t) => types.includes(t));

/** Roles that mode `admins` asks a second factor of: everyone who reaches the console. */
const ADMIN_ROLES = new Set<string>(consoleMemberRoles);

export interface MfaLockout {
  maxFailures: number;
  lockMinutes: number;
}

/**
 * What the policies of a person's companies ask of them at sign-in. A session reaches every
 * company the person belongs to, so the strictest applies: `required` when any company
 * requires it of them (mode required, or mode admins and they administer that company),
 * `optional` when any company has MFA on at all (then a person with a bound factor is asked),
 * else `off`. `types` are the code kinds allowed (by every requiring company when they agree,
 * else by any of them); `lockout` is the strictest of those companies.
 */
export interface MfaRequirement {
  mode: 'required' | 'optional' | 'off';
  types: OtpType[];
  lockout: MfaLockout;
  /** A passkey (FIDO2) is an allowed kind too (fido2.service.ts). */
  fido2: boolean;
  /** The UKEY and soft-lock kinds allowed (signature-factors.service.ts). */
  signature: SignatureMfaType[];
  /** Codes sent to a verified email address or phone, when allowed (oidc/sign-in-code-factor.ts). */
  sentCodes: CodeChannel[];
  /**
   * No requiring company allows a code kind: `types` are OTP standing in, so that a person
   * without a factor has something to bind (unless passkeys or keys are allowed: see
   * oidc/sign-in-binding.ts).
   */
  otpStandsIn?: boolean;
}

function strictest(lockouts: MfaLockout[]): MfaLockout {
  return {
    maxFailures: Math.min(...lockouts.map((l) => l.maxFailures)),
    lockMinutes: Math.max(...lockouts.map((l) => l.lockMinutes)),
  };
}

const OFF: MfaRequirement = {
  mode: 'off',
  types: [],
  lockout: { maxFailures: 5, lockMinutes: 15 },
  fido2: false,
  signature: [],
  sentCodes: [],
};

/**
 * What one company's MFA settings ask of a person with `role` there (undefined: no user of it),
 * as `requirementIn` answers it, for callers that read the settings and the role themselves.
 */
export function requirementOfCompany(mfa: MfaSafety, role: string | undefined): MfaRequirement {
  if (mfa.mode === 'off') return OFF;
  const required = mfa.mode === 'required' || (mfa.mode === 'admins' && ADMIN_ROLES.has(role ?? ''));
  return {
    mode: required ? 'required' : 'optional',
    types: OTP_TYPES.filter((t) => mfa.types.includes(t)),
    lockout: mfa.lockout,
    fido2: mfa.types.includes('fido2'),
    signature: signatureMfaTypes.filter((t) => mfa.types.includes(t)),
    sentCodes: sentCodeKinds(mfa.types),
  };
}

/** A company's MFA settings (company_safety, merged over the defaults) and the person's role there. */
export interface CompanyMfaPolicy {
  role: string;
  mfa: MfaSafety;
}

/** What the policies of a person's companies ask of them (see MfaRequirement). */
export function requirementOfPolicies(policies: readonly CompanyMfaPolicy[]): MfaRequirement {
  const requiring: { types: MfaType[]; lockout: MfaLockout }[] = [];
  const enabled: { types: MfaType[]; lockout: MfaLockout }[] = [];
  for (const { role, mfa } of policies) {
    if (mfa.mode === 'off') continue;
    enabled.push(mfa);
    if (mfa.mode === 'required' || (mfa.mode === 'admins' && ADMIN_ROLES.has(role))) requiring.push(mfa);
  }
  const checkable = (types: MfaType[]) => OTP_TYPES.filter((t) => types.includes(t));
  const signatureKinds = (types: MfaType[]) => signatureMfaTypes.filter((t) => types.includes(t));
  if (requiring.length) {
    const agreed = checkable(
      requiring.reduce<MfaType[]>((acc, p) => acc.filter((t) => p.types.includes(t)), [...OTP_TYPES]),
    );
    const any = checkable(requiring.flatMap((p) => p.types));
    // A policy without a code kind would leave people without a factor nothing to bind at
    // sign-in: OTP stands in (a passkey or a key instead, when the policy allows them: see
    // otpStandsIn).
    const types = agreed.length ? agreed : any.length ? any : [...OTP_TYPES];
    // FIDO2 and the signature kinds by the same rule: allowed by every requiring company, or
    // by any when they agree on no kind.
    const allAgreed = requiring.reduce<MfaType[]>(
      (acc, p) => acc.filter((t) => p.types.includes(t)),
      [...OTP_TYPES, 'fido2', ...signatureMfaTypes, ...SENT_CODE_TYPES],
    );
    const fido2 = allAgreed.length
      ? allAgreed.includes('fido2')
      : requiring.some((p) => p.types.includes('fido2'));
    const signature = allAgreed.length
      ? signatureKinds(allAgreed)
      : signatureKinds(requiring.flatMap((p) => p.types));
    const sentCodes = sentCodeKinds(allAgreed.length ? allAgreed : requiring.flatMap((p) => p.types));
    return {
      mode: 'required',
      types,
      lockout: strictest(requiring.map((p) => p.lockout)),
      fido2,
      signature,
      sentCodes,
      ...(any.length ? {} : { otpStandsIn: true }),
    };
  }
  if (enabled.length) {
    return {
      mode: 'optional',
      types: checkable(enabled.flatMap((p) => p.types)),
      lockout: strictest(enabled.map((p) => p.lockout)),
      fido2: enabled.some((p) => p.types.includes('fido2')),
      signature: signatureKinds(enabled.flatMap((p) => p.types)),
      sentCodes: sentCodeKinds(enabled.flatMap((p) => p.types)),
    };
  }
  return OFF;
}

export function createMfaRequirements(db: Db) {
  async function requirementFor(account: Account): Promise<MfaRequirement> {
    const memberships = await repo.listMemberships(db, account.id);
    const roles = new Map(memberships.map((m) => [m.company_id, m.role as string]));
    if (account.home_company_id && !roles.has(account.home_company_id))
      roles.set(account.home_company_id, 'member');
    const policies: CompanyMfaPolicy[] = [];
    for (const [companyId, role] of roles) {
      policies.push({ role, mfa: (await getSafetySettings(db, companyId)).mfa });
    }
    return requirementOfPolicies(policies);
  }

  /**
   * What one company asks of the person (a RADIUS sign-in reaches that company's network only):
   * its own mode and kinds, without OTP standing in for kinds that cannot be given there.
   */
  async function requirementIn(account: Account, companyId: string): Promise<MfaRequirement> {
    const [{ mfa }, role] = await Promise.all([
      getSafetySettings(db, companyId),
      db
        .selectFrom('company_members')
        .select('role')
        .where('company_id', '=', companyId)
        .where('account_id', '=', account.id)
        .executeTakeFirst(),
    ]);
    return requirementOfCompany(mfa, role?.role);
  }

  return { requirementFor, requirementIn };
}
