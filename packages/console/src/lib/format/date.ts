/** A point in time as the server or a table hands it over: a Date, epoch milliseconds or seconds, or a string. */
export type TimeInput = Date | number | string;

const pad = (value: number) => String(value).padStart(2, '0');

/**
 * Spec §9: ten-digit timestamps are seconds (multiplied by 1000); other numbers are milliseconds;
 * strings of digits are numbers, any other string is parsed as a date. Invalid input → undefined.
 */
export function toDate(time: TimeInput | null | undefined): Date | undefined {
  if (time === null || time === undefined || time === '') return undefined;
  let value: Date | number;
  if (time instanceof Date) value = time;
  else if (typeof time === 'number') value = time;
  else value = /^-?\d+$/.test(time.trim()) ? Number(time.trim()) : new Date(time);
  if (typeof value === 'number') {
    value = new Date(String(Math.trunc(Math.abs(value))).length === 10 ? value * 1000 : value);
  }
  return Number.isNaN(value.getTime()) ? undefined : value;
}

export const DEFAULT_DATE_PATTERN = 'YYYY-MM-DD HH:mm:ss';

/**
 * Formats a time in the browser's time zone (spec §9). Tokens: YYYY, MM, DD, HH, mm, ss, all
 * zero padded; any other text is kept. Returns '' for missing or invalid input.
 */
export function formatDate(
  time: TimeInput | null | undefined,
  pattern: string = DEFAULT_DATE_PATTERN,
): string {
  const date = toDate(time);
  if (!date) return '';
  const parts: Record<string, string> = {
    YYYY: String(date.getFullYear()),
    MM: pad(date.getMonth() + 1),
    DD: pad(date.getDate()),
    HH: pad(date.getHours()),
    mm: pad(date.getMinutes()),
    ss: pad(date.getSeconds()),
  };
  return pattern.replace(/YYYY|MM|DD|HH|mm|ss/g, (token) => parts[token] ?? token);
}
