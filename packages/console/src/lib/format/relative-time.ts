import { formatDate, type TimeInput, toDate } from './date.ts';

/**
 * Spec §9 relative time, in the Chinese wording: under 30 s 刚刚, under an hour N分钟前, under a
 * day N小时前 (rounded up, as the original console did), under two days 1天前; otherwise the
 * date as month, day, hour and minute ('11月23日 14:05'), or in `pattern` when one is given.
 */
export function relativeTimeZh(time: TimeInput, options: { now?: number; pattern?: string } = {}): string {
  const date = toDate(time);
  if (!date) return '';
  const seconds = ((options.now ?? Date.now()) - date.getTime()) / 1000;
  if (seconds < 30) return '刚刚';
  if (seconds < 3600) return `${Math.ceil(seconds / 60)}分钟前`;
  if (seconds < 86400) return `${Math.ceil(seconds / 3600)}小时前`;
  if (seconds < 2 * 86400) return '1天前';
  if (options.pattern) return formatDate(date, options.pattern);
  return `${date.getMonth() + 1}月${date.getDate()}日 ${formatDate(date, 'HH:mm')}`;
}
