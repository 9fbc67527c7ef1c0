import { describe, expect, it } from 'vitest';
import { formatNumberSuffix, formatThousands } from './number.ts';

describe('formatNumberSuffix (spec §9)', () => {
  it('leaves numbers below 1000 as they are', () => {
    expect(formatNumberSuffix(0)).toBe('0');
    expect(formatNumberSuffix(999)).toBe('999');
    expect(formatNumberSuffix(12.5)).toBe('12.5');
  });

  it('uses k, M, G, T, P and E at powers of 1000', () => {
    expect(formatNumberSuffix(1000)).toBe('1k');
    expect(formatNumberSuffix(1500)).toBe('1.5k');
    expect(formatNumberSuffix(2_000_000)).toBe('2M');
    expect(formatNumberSuffix(3e9)).toBe('3G');
    expect(formatNumberSuffix(4e12)).toBe('4T');
    expect(formatNumberSuffix(5e15)).toBe('5P');
    expect(formatNumberSuffix(6e18)).toBe('6E');
  });

  it('rounds to the given digits and drops trailing zeros', () => {
    expect(formatNumberSuffix(1234, 2)).toBe('1.23k');
    expect(formatNumberSuffix(1205, 2)).toBe('1.21k');
    expect(formatNumberSuffix(1200, 2)).toBe('1.2k');
    expect(formatNumberSuffix(1234, 0)).toBe('1k');
    expect(formatNumberSuffix(999_999, 1)).toBe('1000k');
  });

  it('keeps the sign of negative numbers', () => {
    expect(formatNumberSuffix(-1500)).toBe('-1.5k');
    expect(formatNumberSuffix(-5)).toBe('-5');
  });
});

describe('formatThousands (spec §9)', () => {
  it('separates thousands', () => {
    expect(formatThousands(0)).toBe('0');
    expect(formatThousands(999)).toBe('999');
    expect(formatThousands(1000)).toBe('1,000');
    expect(formatThousands(1234567)).toBe('1,234,567');
  });

  it('keeps decimals and the sign', () => {
    expect(formatThousands(1234567.891)).toBe('1,234,567.891');
    expect(formatThousands(-1234)).toBe('-1,234');
  });

  it('accepts numeric strings and turns anything else into 0', () => {
    expect(formatThousands('98765')).toBe('98,765');
    expect(formatThousands('abc')).toBe('0');
  });
});
