import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/errors.ts';
import {
  assertPasswordAllowed,
  checkPassword,
  defaultPasswordPolicy,
  describeClasses,
  isCommonPassword,
} from './password-policy.ts';

describe('password policy (built-in rules)', () => {
  it('accepts a password that meets every rule', () => {
    expect(checkPassword('correct horse 42', { username: 'alice' })).toBeUndefined();
  });

  it('names the first broken rule', () => {
    expect(checkPassword('a1', {})).toEqual({ reason: 'password.too_short', min: 8 });
    expect(checkPassword('onlyletters', {})).toEqual({
      reason: 'password.missing_classes',
      classes: ['digit'],
    });
    expect(checkPassword('12345678', {})).toEqual({
      reason: 'password.missing_classes',
      classes: ['letter'],
    });
    expect(checkPassword(`${'x'.repeat(128)}1`, {})).toEqual({ reason: 'password.too_long', max: 128 });
    expect(checkPassword('Alice2026!', { username: 'alice' })).toEqual({
      reason: 'password.contains_username',
    });
  });

  it('counts characters, not UTF-16 units, and knows letters of every script', () => {
    expect(checkPassword('密码密码密码密1', {})).toBeUndefined();
  });

  it('throws a localised error that marks the field', () => {
    try {
      assertPasswordAllowed('abcdefgh', { lang: 'zh', field: 'newPassword' }, defaultPasswordPolicy);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      const appError = error as AppError;
      expect(appError.reason).toBe('password.missing_classes');
      expect(appError.localisedMessage).toBe('密码必须包含数字');
      expect(appError.fields).toEqual([{ field: 'newPassword', message: '密码必须包含数字' }]);
    }
  });

  it('writes class lists in both languages', () => {
    expect(describeClasses(['letter', 'digit', 'symbol'], 'en')).toBe('a letter, a digit and a symbol');
    expect(describeClasses(['letter', 'digit', 'symbol'], 'zh')).toBe('字母、数字和特殊符号');
  });

  it('refuses the most common passwords, ignoring case, when the policy says so', () => {
    expect(checkPassword('password1', {})).toEqual({ reason: 'password.too_common' });
    expect(checkPassword('qwerty123', {})).toEqual({ reason: 'password.too_common' });
    expect(checkPassword('QWERTY123', {})).toEqual({ reason: 'password.too_common' });
    expect(checkPassword('Tr7#vellum-Orbit', {})).toBeUndefined();
    expect(checkPassword('password1', {}, { ...defaultPasswordPolicy, forbidCommon: false })).toBeUndefined();
    expect(isCommonPassword('123456')).toBe(true);
    expect(isCommonPassword('Tr7#vellum-Orbit')).toBe(false);
    for (const [lang, message] of [
      ['en', 'The password is one of the most common passwords; choose a less predictable one'],
      ['zh', '密码过于常见，请换一个不易猜到的密码'],
    ] as const) {
      expect(() => assertPasswordAllowed('Password1', { lang }, defaultPasswordPolicy)).toThrow(
        expect.objectContaining({ reason: 'password.too_common', localisedMessage: message }),
      );
    }
  });

  it('bundles at least 10 000 common passwords', async () => {
    const { readFile } = await import('node:fs/promises');
    const text = await readFile(new URL('./common-passwords.txt', import.meta.url), 'utf8');
    const entries = text.split('\n').filter((line) => line && !line.startsWith('#'));
    expect(entries.length).toBeGreaterThanOrEqual(10_000);
  });
});
