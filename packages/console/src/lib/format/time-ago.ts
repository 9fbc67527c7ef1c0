import { type TimeInput, toDate } from './date.ts';

const pluralize = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;

/**
 * Spec §9 time-ago: how long ago `time` was, under 3600 s in minutes, under 86400 s in hours,
 * otherwise in days, with a plural s ('1 minute', '5 minutes', '2 days'). Whole units, rounded down.
 */
export function timeAgo(time: TimeInput, now: number = Date.now()): string {
  const date = toDate(time);
  if (!date) return '';
  const seconds = Math.max(0, (now - date.getTime()) / 1000);
  if (seconds < 3600) return pluralize(Math.floor(seconds / 60), 'minute');
  if (seconds < 86400) return pluralize(Math.floor(seconds / 3600), 'hour');
  return pluralize(Math.floor(seconds / 86400), 'day');
}
