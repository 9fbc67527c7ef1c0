export { DEFAULT_DATE_PATTERN, formatDate, type TimeInput, toDate } from './date.ts';
export { formatNumberSuffix, formatThousands } from './number.ts';
export { relativeTimeZh } from './relative-time.ts';
export { timeAgo } from './time-ago.ts';
