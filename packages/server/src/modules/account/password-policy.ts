import { defaultPasswordPolicy, type Language, type PasswordClass, userLimits } from '@tessera/contract';
import { AppError } from '../../lib/errors.ts';
import { translateError } from '../../lib/i18n.ts';

/**
 * The rules a new password must meet. Every place that sets a password (create, reset, the
 * forced change at sign-in, self-service change) calls `assertPasswordAllowed`, so a rule is
 * enforced everywhere or nowhere. Until companies configure their own rules, the built-in
 * policy applies.
 */
export interface PasswordPolicy {
  minLength: number;
  classes: readonly PasswordClass[];
  forbidUsername: boolean;
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
  | { reason: 'password.contains_username' };

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
  return undefined;
}

/** Throws the localised error that names the broken rule. `field` is the form field to mark. */
export function assertPasswordAllowed(
  password: string,
  context: { username?: string | null; lang: Language; field?: string },
  policy: PasswordPolicy = defaultPasswordPolicy,
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
