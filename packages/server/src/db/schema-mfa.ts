import type { CodeChannel, CodePurpose } from '@tessera/contract';
import type { ColumnType, Generated } from 'kysely';

// The company's safety settings and people's second factors with their challenges (modules/safety, modules/mfa).

/** A company's safety settings; null parts follow the contract's defaults. */
export interface CompanySafetyTable {
  company_id: string;
  general: ColumnType<unknown | null, string | null | undefined, string | null>;
  mfa: ColumnType<unknown | null, string | null | undefined, string | null>;
  updated_at: Generated<Date>;
}

export interface MfaFactorsTable {
  id: string;
  account_id: string;
  type: string;
  name: string;
  status: 'bound' | 'unbound';
  /** OTP seed, sealed with the master key. */
  secret_sealed: string | null;
  /** The last accepted OTP time step: a code of that step or an older one is refused. */
  last_used_step: ColumnType<number | null, number | null | undefined, number | null>;
  /** FIDO2: the credential id (base64url), its COSE public key, counter and transports. */
  credential_id: string | null;
  public_key: Buffer | null;
  sign_count: ColumnType<number | null, number | null | undefined, number | null>;
  transports: ColumnType<unknown | null, string | null | undefined, string | null>;
  /** Signature factors: a UKEY's KeyId or a soft lock's container id. */
  key_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Signature factors: the key's algorithm and strength (public_key holds its SubjectPublicKeyInfo). */
  key_algorithm: ColumnType<string | null, string | null | undefined, string | null>;
  key_strength: ColumnType<string | null, string | null | undefined, string | null>;
  /** ukey_cert: the issued certificate, checked (valid, not revoked) at every use. */
  certificate_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Generated<Date>;
  bound_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  last_used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface MfaRecoveryCodesTable {
  account_id: string;
  code_hash: string;
  created_at: Generated<Date>;
  used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** (FIDO2 helper) A WebAuthn challenge, single use (deleted when used). */
export interface WebauthnChallengesTable {
  challenge: string;
  purpose: 'register' | 'second_factor' | 'first_factor';
  subject: string;
  expires_at: Date;
  created_at: Generated<Date>;
}

/** A single-use challenge that a UKEY or soft-lock key signs (hashed). */
export interface SignatureChallengesTable {
  challenge_hash: string;
  account_id: string;
  purpose: 'bind' | 'second_factor';
  /** The portal session (bind) or the OIDC interaction (second factor) it belongs to. */
  subject: string;
  expires_at: Date;
  created_at: Generated<Date>;
}

/** A code sent by email or SMS (hashed, bound to its row id); no account: a decoy. */
export interface OneTimeCodesTable {
  id: string;
  company_id: string | null;
  account_id: string | null;
  purpose: CodePurpose;
  channel: CodeChannel;
  address: string;
  code_hash: string;
  tries: Generated<number>;
  expires_at: Date;
  used_at: Date | null;
  created_at: Generated<Date>;
}

export interface MfaTables {
  one_time_codes: OneTimeCodesTable;
  company_safety: CompanySafetyTable;
  mfa_factors: MfaFactorsTable;
  mfa_recovery_codes: MfaRecoveryCodesTable;
  webauthn_challenges: WebauthnChallengesTable;
  signature_challenges: SignatureChallengesTable;
}
