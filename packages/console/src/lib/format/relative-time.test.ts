import { describe, expect, it } from 'vitest';
import { relativeTimeZh } from './relative-time.ts';

const now = new Date(2024, 10, 23, 14, 5, 0).getTime();
const ago = (seconds: number) => now - seconds * 1000;

describe('relativeTimeZh (spec §9)', () => {
  it('says 刚刚 under 30 seconds', () => {
    expect(relativeTimeZh(ago(0), { now })).toBe('刚刚');
    expect(relativeTimeZh(ago(29), { now })).toBe('刚刚');
  });

  it('counts minutes under an hour, rounding up', () => {
    expect(relativeTimeZh(ago(30), { now })).toBe('1分钟前');
    expect(relativeTimeZh(ago(61), { now })).toBe('2分钟前');
    expect(relativeTimeZh(ago(3599), { now })).toBe('60分钟前');
  });

  it('counts hours under a day', () => {
    expect(relativeTimeZh(ago(3600), { now })).toBe('1小时前');
    expect(relativeTimeZh(ago(3601), { now })).toBe('2小时前');
    expect(relativeTimeZh(ago(86399), { now })).toBe('24小时前');
  });

  it('says 1天前 under two days', () => {
    expect(relativeTimeZh(ago(86400), { now })).toBe('1天前');
    expect(relativeTimeZh(ago(2 * 86400 - 1), { now })).toBe('1天前');
  });

  it('gives month, day, hour and minute from two days on, or the given pattern', () => {
    const then = new Date(2024, 10, 21, 9, 7, 0).getTime();
    expect(relativeTimeZh(then, { now })).toBe('11月21日 09:07');
    expect(relativeTimeZh(then, { now, pattern: 'YYYY-MM-DD' })).toBe('2024-11-21');
  });

  it('takes ten-digit timestamps as seconds', () => {
    expect(relativeTimeZh(Math.floor(ago(120) / 1000), { now })).toBe('2分钟前');
  });

  it('returns an empty string for an invalid time', () => {
    expect(relativeTimeZh('soon', { now })).toBe('');
  });
});
