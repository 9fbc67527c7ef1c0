import { z } from 'zod';
import { defineCall, emptyRequest, entityId } from '../call.ts';
import {
  loginMethods,
  mfaModes,
  mfaTypes,
  passwordClasses,
  safetyLimits,
  signatureFactorLimits,
  signatureMfaTypes,
} from '../constants.ts';

/**
 * Safety of a company (spec §2 safety routes, §3 Security and MFA types, §4 MFA factor states,
 * §5, §9): how its people sign in, what a password must be, when they are locked out, when a
 * second factor is asked for and which kinds are allowed; and each person's bound factors.
 */

const id = entityId;
const int = (range: { min: number; max: number }, reason: string) =>
  z
    .number({ error: reason })
    .int({ error: reason })
    .min(range.min, { error: reason })
    .max(range.max, { error: reason });

export const passwordRules = z.object({
  /** Spec §5: between 6 and 30. */
  minLength: int(safetyLimits.passwordMinLength, 'safety.min_length_range'),
  /** Character classes every password must contain. */
  classes: z.array(z.enum(passwordClasses)).max(passwordClasses.length),
  /** A password may not contain the username. */
  forbidUsername: z.boolean(),
  /** A password may not be one of the most common passwords (a bundled list). */
  forbidCommon: z.boolean(),
  /** Spec §5: 0 means unlimited, otherwise at least 30 days. */
  changeCycleDays: z
    .number({ error: 'safety.change_cycle_range' })
    .int({ error: 'safety.change_cycle_range' })
    .refine(
      (days) =>
        days === 0 || (days >= safetyLimits.changeCycleDays.min && days <= safetyLimits.changeCycleDays.max),
      { error: 'safety.change_cycle_range' },
    ),
});

export const lockoutRules = z.object({
  /** Failed attempts in a row that lock the account. */
  maxFailures: int(safetyLimits.lockoutFailures, 'safety.lockout_failures_range'),
  /** How long the lock lasts; an administrator can lift it sooner (user status). */
  lockMinutes: int(safetyLimits.lockoutMinutes, 'safety.lockout_minutes_range'),
});

export const generalSafety = z.object({
  /** The methods the company's sign-in page offers (password always). */
  loginMethods: z
    .array(z.enum(loginMethods))
    .min(1)
    .refine((methods) => methods.includes('password'), { error: 'safety.password_method_required' }),
  password: passwordRules,
  lockout: lockoutRules,
  /**
   * People may reset a forgotten password with a code sent to their email or phone ("Forgot
   * password?" on the sign-in pages). On unless turned off; it works where the platform can send
   * mail or SMS. Left out of an update: unchanged.
   */
  selfServiceReset: z.boolean().optional(),
});

export const mfaSafety = z.object({
  /** off: never; optional: for people who bound a factor; required: everyone; admins: administrators. */
  mode: z.enum(mfaModes),
  /** The factor kinds people may bind and use. */
  types: z.array(z.enum(mfaTypes)),
  /** Wrong second-factor codes in a row that lock the account, and for how long. */
  lockout: lockoutRules,
});

export const getGeneralSafety = defineCall({
  path: '/api/v1/manage/safety/general',
  summary: "The company's login methods, password rules and lock-out",
  tag: 'Safety',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'read' },
  request: emptyRequest,
  response: generalSafety,
});

export const updateGeneralSafety = defineCall({
  path: '/api/v1/manage/safety/general/update',
  summary: "Change the company's login methods, password rules and lock-out",
  tag: 'Safety',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'manage' },
  request: generalSafety,
  response: generalSafety,
});

export const getMfaSafety = defineCall({
  path: '/api/v1/manage/safety/mfa',
  summary: 'When the company asks for a second factor, and which kinds are allowed',
  tag: 'Safety',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'read' },
  request: emptyRequest,
  response: mfaSafety,
});

export const updateMfaSafety = defineCall({
  path: '/api/v1/manage/safety/mfa/update',
  summary: 'Change when the company asks for a second factor and which kinds are allowed',
  tag: 'Safety',
  auth: 'session',
  tenant: true,
  access: { groups: ['security'], level: 'manage' },
  request: mfaSafety,
  response: mfaSafety,
});

export const mfaFactor = z.object({
  factorId: z.string(),
  type: z.enum(mfaTypes),
  /** The name the person gave it (an authenticator app, a security key...). */
  name: z.string(),
  /** Spec §4: bound or unbound (a binding begun and not confirmed). */
  status: z.enum(['bound', 'unbound']),
  boundAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
});

export const userMfaFactors = defineCall({
  path: '/api/v1/manage/mfa/admin/user',
  summary: "A user's MFA factors, with the recovery codes left",
  tag: 'Safety',
  auth: 'session',
  tenant: true,
  access: { groups: ['user'], level: 'read' },
  request: z.object({ userId: id }),
  response: z.object({ list: z.array(mfaFactor), recoveryCodesLeft: z.number().int() }),
});

export const deleteUserMfaFactor = defineCall({
  path: '/api/v1/manage/mfa/admin/user/del',
  summary: "Unbind one of a user's MFA factors (or all of them); the user's sessions end",
  tag: 'Safety',
  auth: 'session',
  tenant: true,
  access: { groups: ['user'], level: 'manage', ability: 'resetCredentials' },
  request: z.object({ userId: id, factorId: id.optional() }),
  response: z.object({ removed: z.number().int() }),
});

/**
 * What binds a UKEY or soft-lock factor: its kind, a name, and the key it signs with: a public
 * key (PEM; for `ukey_keyid` with the key's KeyId, for `soft_lock` with the container id), or
 * for `ukey_cert` a certificate of the company's CAs (PEM, or one issued here by its id).
 */
export const signatureFactorInput = {
  type: z.enum(signatureMfaTypes, { error: 'mfa.type_invalid' }),
  name: z.string().trim().max(signatureFactorLimits.nameMax, { error: 'mfa.name_too_long' }).default(''),
  keyId: z.string().trim().max(signatureFactorLimits.keyIdMax, { error: 'mfa.key_id_invalid' }).optional(),
  publicKey: z
    .string()
    .trim()
    .max(signatureFactorLimits.pemMax, { error: 'mfa.public_key_invalid' })
    .optional(),
  certificate: z
    .string()
    .trim()
    .max(signatureFactorLimits.pemMax, { error: 'mfa.certificate_invalid' })
    .optional(),
  certificateId: id.optional(),
};

export const bindUserSignatureFactor = defineCall({
  path: '/api/v1/manage/mfa/admin/user/bind',
  summary:
    'Bind a UKEY (KeyId, public key or certificate) or soft-lock factor to a user; the key proves itself at its first use',
  tag: 'Safety',
  auth: 'session',
  tenant: true,
  access: { groups: ['user'], level: 'manage' },
  request: z.object({ userId: id, ...signatureFactorInput }),
  response: mfaFactor,
});
