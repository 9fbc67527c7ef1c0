import type { LoginMethod, MfaType } from '@tessera/contract/constants';
import { safetyLimits } from '@tessera/contract/constants';
import type { FormRule } from 'antd';
import type { ParseKeys, TFunction } from 'i18next';

/**
 * The number rules of the safety calls (contract calls/safety.ts, spec §5 and §9), checked in
 * the form before a call with the same limits (`safetyLimits`) and the same wording as the
 * server's messages; the server checks them again.
 */
export interface SafetyProblem {
  key: ParseKeys;
  values: { min: number; max: number };
}

const isWhole = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value);
const within = (value: unknown, range: { min: number; max: number }) =>
  isWhole(value) && value >= range.min && value <= range.max;

const checker =
  (accepts: (value: unknown) => boolean, key: ParseKeys, range: { min: number; max: number }) =>
  (value: unknown): SafetyProblem | undefined =>
    accepts(value) ? undefined : { key, values: { min: range.min, max: range.max } };

/** Minimum password length: 6 to 30. */
export const minLengthProblem = checker(
  (value) => within(value, safetyLimits.passwordMinLength),
  'safety.general.minLengthRange',
  safetyLimits.passwordMinLength,
);

/** Forced change cycle: 0 (unlimited), otherwise 30 days or more. */
export const changeCycleProblem = checker(
  (value) => value === 0 || within(value, safetyLimits.changeCycleDays),
  'safety.general.changeCycleRange',
  safetyLimits.changeCycleDays,
);

/** Failed attempts before a lock-out: 3 to 20. */
export const maxFailuresProblem = checker(
  (value) => within(value, safetyLimits.lockoutFailures),
  'safety.lockout.maxFailuresRange',
  safetyLimits.lockoutFailures,
);

/** Length of a lock-out: 1 to 1440 minutes. */
export const lockMinutesProblem = checker(
  (value) => within(value, safetyLimits.lockoutMinutes),
  'safety.lockout.lockMinutesRange',
  safetyLimits.lockoutMinutes,
);

/** An antd rule from a checker: an empty field is refused with the same message. */
export const ruleOf =
  (t: TFunction, problemOf: (value: unknown) => SafetyProblem | undefined): FormRule =>
  () => ({
    validator: async (_rule, value: unknown) => {
      const problem = problemOf(value ?? undefined);
      if (problem) throw new Error(t(problem.key, problem.values) as string);
    },
  });

/**
 * MFA type names as phrase keys (`safety.mfa.type.<key>`): phrase keys are identifiers without
 * underscores, the contract's type names have them.
 */
export const mfaTypeKey: Record<MfaType, string> = {
  fido2: 'fido2',
  otp: 'otp',
  otp_sm3: 'otpSm3',
  ukey_keyid: 'ukeyKeyid',
  ukey_pubkey: 'ukeyPubkey',
  ukey_cert: 'ukeyCert',
  soft_lock: 'softLock',
  email: 'email',
  sms: 'sms',
};

/** Login method names as phrase keys (`safety.general.method.<key>`), as for mfaTypeKey. */
export const loginMethodKey: Record<LoginMethod, string> = {
  password: 'password',
  passkey: 'passkey',
  email_code: 'emailCode',
  sms_code: 'smsCode',
};
