import { describe, expect, it } from 'vitest';
import { timeAgo } from './time-ago.ts';

const now = Date.UTC(2024, 10, 23, 12, 0, 0);
const ago = (seconds: number) => new Date(now - seconds * 1000);

describe('timeAgo (spec §9)', () => {
  it('counts minutes under 3600 seconds, with a plural s', () => {
    expect(timeAgo(ago(0), now)).toBe('0 minutes');
    expect(timeAgo(ago(59), now)).toBe('0 minutes');
    expect(timeAgo(ago(60), now)).toBe('1 minute');
    expect(timeAgo(ago(119), now)).toBe('1 minute');
    expect(timeAgo(ago(300), now)).toBe('5 minutes');
    expect(timeAgo(ago(3599), now)).toBe('59 minutes');
  });

  it('counts hours from 3600 up to 86400 seconds', () => {
    expect(timeAgo(ago(3600), now)).toBe('1 hour');
    expect(timeAgo(ago(7200), now)).toBe('2 hours');
    expect(timeAgo(ago(86399), now)).toBe('23 hours');
  });

  it('counts days from 86400 seconds', () => {
    expect(timeAgo(ago(86400), now)).toBe('1 day');
    expect(timeAgo(ago(3 * 86400 + 5), now)).toBe('3 days');
  });

  it('takes ten-digit timestamps as seconds', () => {
    expect(timeAgo(Math.floor(now / 1000) - 7200, now)).toBe('2 hours');
  });

  it('treats times in the future as now, and invalid times as nothing', () => {
    expect(timeAgo(new Date(now + 60_000), now)).toBe('0 minutes');
    expect(timeAgo('garbage', now)).toBe('');
  });
});
