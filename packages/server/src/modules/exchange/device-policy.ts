import type { exchange } from '@tessera/contract';
import type { z } from 'zod';

export type DevicePolicy = z.infer<typeof exchange.devicePolicy>;

const formatters = new Map<string, Intl.DateTimeFormat>();
const weekdayNumber: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };

/** The ISO weekday (1 Monday … 7 Sunday) and the minute of the day at `now` in a time zone. */
export function localTime(now: Date, timeZone: string): { day: number; minute: number } {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(now).map((part) => [part.type, part.value]));
  return {
    day: weekdayNumber[parts.weekday ?? ''] ?? 1,
    minute: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

const minuteOf = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

/**
 * Whether a time window holds `at`. A window whose end is before its start runs over midnight:
 * its days are the days it starts on (Friday 22:00-06:00 holds Saturday 03:00).
 */
function windowHolds(window: DevicePolicy['windows'][number], at: { day: number; minute: number }) {
  const start = minuteOf(window.start);
  const end = minuteOf(window.end);
  if (start < end) return window.days.includes(at.day) && at.minute >= start && at.minute < end;
  const previousDay = at.day === 1 ? 7 : at.day - 1;
  return (
    (window.days.includes(at.day) && at.minute >= start) ||
    (window.days.includes(previousDay) && at.minute < end)
  );
}

/**
 * Whether a device's custom policy lets it in at `now`: `allow` only within its windows,
 * `block` never within them. No policy: always.
 */
export function policyAllows(policy: DevicePolicy | null, now: Date = new Date()): boolean {
  if (!policy) return true;
  const at = localTime(now, policy.timeZone);
  const inside = policy.windows.some((window) => windowHolds(window, at));
  return policy.mode === 'allow' ? inside : !inside;
}
