import type { PasswordClass } from '@tessera/contract/constants';

/** What the server's password rules say (user/password-rules). */
export interface PasswordRulesView {
  minLength: number;
  maxLength: number;
  classes: PasswordClass[];
  forbidUsername: boolean;
  forbidCommon: boolean;
}

const sets = {
  lower: 'abcdefghijkmnopqrstuvwxyz',
  upper: 'ABCDEFGHJKLMNPQRSTUVWXYZ',
  digit: '23456789',
  symbol: '!#$%&*+-=?@^_~',
};
/** Long enough to be strong whatever the company's minimum (letters easy to read aloud: no l/1/O/0). */
const GENERATED_LENGTH = 16;

/** A uniformly chosen index below `below` (rejection sampling: no modulo bias). */
function randomIndex(below: number): number {
  const limit = Math.floor(0x1_0000_0000 / below) * below;
  const word = new Uint32Array(1);
  for (;;) {
    crypto.getRandomValues(word);
    if ((word[0] as number) < limit) return (word[0] as number) % below;
  }
}

const pick = (text: string) => text[randomIndex(text.length)] as string;

/**
 * A strong random password that meets any rule of the company: every character kind at least
 * once (so whichever kinds the rules ask for), at least the rules' length, never a common
 * password or one containing a username (16 random characters).
 */
export function generatePassword(
  rules: Pick<PasswordRulesView, 'minLength' | 'maxLength'> | undefined,
): string {
  const length = Math.min(
    Math.max(GENERATED_LENGTH, rules?.minLength ?? 0),
    rules?.maxLength ?? Number.POSITIVE_INFINITY,
  );
  const all = Object.values(sets).join('');
  const chars = [...Object.values(sets).map(pick)];
  while (chars.length < length) chars.push(pick(all));
  // Fisher-Yates, so that the required kinds are not always first.
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomIndex(i + 1);
    [chars[i], chars[j]] = [chars[j] as string, chars[i] as string];
  }
  return chars.join('');
}
