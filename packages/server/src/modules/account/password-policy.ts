import { readFileSync } from 'node:fs';
import { defaultSafetySettings, type Language, type PasswordClass, userLimits } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { translateError } from '../../lib/i18n.ts';
import { type GeneralSafety, getSafetySettings } from '../safety/safety.repo.ts';

/**
 * The rules a new password must meet. Every place that sets a password (create, reset, the
 * forced change at sign-in, self-service change) calls `assertPasswordAllowed`, so a rule is
 * enforced everywhere or nowhere. Each company sets its own rules (safety settings, general
 * part); `passwordPolicyFor` reads them, and accounts without a home company get the defaults.
 */
/** The password part of a company's general safety (contract `passwordRules`), without the change cycle. */
export type PasswordPolicy = Omit<GeneralSafety['password'], 'changeCycleDays'>;

/** The contract's default rules (a company without stored settings, an account without a company). */
export const defaultPasswordPolicy: PasswordPolicy = {
  minLength: defaultSafetySettings.password.minLength,
  classes: defaultSafetySettings.password.classes,
  forbidUsername: defaultSafetySettings.password.forbidUsername,
  forbidCommon: defaultSafetySettings.password.forbidCommon,
};

/** The password rules of a company (its safety settings), or the defaults when there is none. */
export async function passwordPolicyFor(
  db: Db,
  companyId: string | null | undefined,
): Promise<PasswordPolicy> {
  if (!companyId) return defaultPasswordPolicy;
  const { password } = (await getSafetySettings(db, companyId)).general;
  return {
    minLength: password.minLength,
    classes: password.classes,
    forbidUsername: password.forbidUsername,
    forbidCommon: password.forbidCommon,
  };
}

let commonPasswords: Set<string> | undefined;
/** The bundled list (common-passwords.txt, 10 000 most common, lowercase), read once. */
function commonPasswordSet(): Set<string> {
  if (!commonPasswords) {
    const text = readFileSync(new URL('./common-passwords.txt', import.meta.url), 'utf8');
    commonPasswords = new Set(
      text
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line && !line.startsWith('#')),
    );
  }
  return commonPasswords;
}

/** Whether the password is one of the most common ones, ignoring case and surrounding spaces. */
export function isCommonPassword(password: string): boolean {
  return commonPasswordSet().has(password.trim().toLowerCase());
}

const classTests: Record<PasswordClass, RegExp> = {
  letter: /\p{L}/u,
  lower: /\p{Ll}/u,
  upper: /\p{Lu}/u,
  digit: /\p{Nd}/u,
  symbol: /[^\p{L}\p{Nd}\s]/u,
};

const classNames: Record<Language, Record<PasswordClass, string>> = {
  en: {
    letter: 'a letter',
    lower: 'a lowercase letter',
    upper: 'an uppercase letter',
    digit: 'a digit',
    symbol: 'a symbol',
  },
  zh: { letter: '字母', lower: '小写字母', upper: '大写字母', digit: '数字', symbol: '特殊符号' },
};

/** The missing classes, written for the message: "a letter and a digit" / "字母和数字". */
export function describeClasses(classes: readonly PasswordClass[], lang: Language): string {
  const names = classes.map((c) => classNames[lang][c]);
  if (lang === 'zh') return names.join('、').replace(/、([^、]*)$/, '和$1');
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

export type PasswordProblem =
  | { reason: 'password.too_short'; min: number }
  | { reason: 'password.too_long'; max: number }
  | { reason: 'password.missing_classes'; classes: PasswordClass[] }
  | { reason: 'password.contains_username' }
  | { reason: 'password.too_common' };

/** The first rule the password breaks, or undefined when it meets them all. */
export function checkPassword(
  password: string,
  context: { username?: string | null },
  policy: PasswordPolicy = defaultPasswordPolicy,
): PasswordProblem | undefined {
  const length = [...password].length;
  if (length < policy.minLength) return { reason: 'password.too_short', min: policy.minLength };
  if (length > userLimits.passwordMax) return { reason: 'password.too_long', max: userLimits.passwordMax };
  const missing = policy.classes.filter((c) => !classTests[c].test(password));
  if (missing.length) return { reason: 'password.missing_classes', classes: missing };
  const username = context.username?.trim().toLowerCase();
  if (
    policy.forbidUsername &&
    username &&
    username.length >= 3 &&
    password.toLowerCase().includes(username)
  ) {
    return { reason: 'password.contains_username' };
  }
  if (policy.forbidCommon && isCommonPassword(password)) return { reason: 'password.too_common' };
  return undefined;
}

/**
 * Throws the localised error that names the broken rule. `field` is the form field to mark;
 * `policy` is the company's (`passwordPolicyFor`).
 */
export function assertPasswordAllowed(
  password: string,
  context: { username?: string | null; lang: Language; field?: string },
  policy: PasswordPolicy,
): void {
  const problem = checkPassword(password, context, policy);
  if (!problem) return;
  const values: Record<string, string> =
    problem.reason === 'password.too_short'
      ? { min: String(problem.min) }
      : problem.reason === 'password.too_long'
        ? { max: String(problem.max) }
        : problem.reason === 'password.missing_classes'
          ? { classes: describeClasses(problem.classes, context.lang) }
          : {};
  const message = translateError(context.lang, problem.reason, values);
  throw new AppError(problem.reason, values, [{ field: context.field ?? 'password', message }], message);
}
