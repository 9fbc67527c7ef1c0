import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/errors.ts';
import { assertPasswordAllowed, checkPassword, describeClasses } from './password-policy.ts';

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
      assertPasswordAllowed('abcdefgh', { lang: 'zh', field: 'newPassword' });
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
});
