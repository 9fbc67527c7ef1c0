import { describe, expect, it } from 'vitest';
import { formatDate, toDate } from './date.ts';

// Local-time constructors keep the expectations independent of the machine's time zone.
const at = new Date(2024, 10, 3, 4, 5, 6, 789);

describe('formatDate (spec §9)', () => {
  it('uses YYYY-MM-DD HH:mm:ss by default, zero padded', () => {
    expect(formatDate(at)).toBe('2024-11-03 04:05:06');
  });

  it('takes a pattern', () => {
    expect(formatDate(at, 'YYYY/MM/DD')).toBe('2024/11/03');
    expect(formatDate(at, 'HH:mm')).toBe('04:05');
    expect(formatDate(at, 'DD.MM.YYYY at HH:mm:ss')).toBe('03.11.2024 at 04:05:06');
  });

  it('treats ten-digit timestamps as seconds and longer ones as milliseconds', () => {
    const seconds = Math.floor(at.getTime() / 1000);
    expect(String(seconds)).toHaveLength(10);
    expect(formatDate(seconds)).toBe('2024-11-03 04:05:06');
    expect(formatDate(String(seconds))).toBe('2024-11-03 04:05:06');
    expect(formatDate(at.getTime())).toBe('2024-11-03 04:05:06');
    expect(formatDate(String(at.getTime()))).toBe('2024-11-03 04:05:06');
  });

  it('parses date strings', () => {
    const iso = at.toISOString();
    expect(formatDate(iso)).toBe('2024-11-03 04:05:06');
  });

  it('pads single-digit months, days, hours, minutes and seconds at the turn of the year', () => {
    expect(formatDate(new Date(2025, 0, 1, 0, 0, 0))).toBe('2025-01-01 00:00:00');
    expect(formatDate(new Date(2024, 11, 31, 23, 59, 59))).toBe('2024-12-31 23:59:59');
  });

  it('returns an empty string for missing or invalid input', () => {
    expect(formatDate(null)).toBe('');
    expect(formatDate(undefined)).toBe('');
    expect(formatDate('')).toBe('');
    expect(formatDate('not a date')).toBe('');
    expect(formatDate(Number.NaN)).toBe('');
  });
});

describe('toDate', () => {
  it('keeps Date objects and converts numbers', () => {
    expect(toDate(at)?.getTime()).toBe(at.getTime());
    expect(toDate(1_700_000_000)?.getTime()).toBe(1_700_000_000_000);
    expect(toDate(0)?.getTime()).toBe(0);
  });
});
