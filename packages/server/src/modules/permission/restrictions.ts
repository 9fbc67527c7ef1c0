import {
  type IpAddress,
  type IpRange,
  ipInRange,
  parseIpRange,
  type RestrictionMiss,
} from '@tessera/contract';
import type { StoredTimeWindow } from '../../db/schema.ts';

/**
 * The restrictions of an authorization (spec §3): a validity period, time-of-day windows in a
 * time zone, client address ranges. A rule applies only while all of them hold.
 */
export interface CompiledRestrictions {
  /** Epoch milliseconds; the end is exclusive. */
  validFrom: number | null;
  validUntil: number | null;
  /** Weekday bit mask (bit 1 Monday … bit 7 Sunday) and minutes of the day, `from` inclusive, `to` exclusive. */
  windows: readonly { days: number; from: number; to: number }[];
  timeZone: string;
  ranges: readonly IpRange[];
}

/** What a decision is asked in. `ip` undefined: the client address is not known. */
export interface DecisionContext {
  at: Date;
  ip: IpAddress | undefined;
  /**
   * Possible access (previews): a rule limited to hours or addresses counts as able to allow and
   * as not bound to reject; the validity period still counts, at `at`.
   */
  possible?: boolean;
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

export function compileRestrictions(row: {
  valid_from: Date | null;
  valid_until: Date | null;
  time_windows: StoredTimeWindow[];
  time_zone: string;
  ip_ranges: string[];
}): CompiledRestrictions {
  return {
    validFrom: row.valid_from ? row.valid_from.getTime() : null,
    validUntil: row.valid_until ? row.valid_until.getTime() : null,
    windows: row.time_windows.map((w) => ({
      days: w.days.reduce((mask, day) => mask | (1 << day), 0),
      from: minutesOf(w.from),
      to: minutesOf(w.to),
    })),
    timeZone: row.time_zone,
    ranges: row.ip_ranges
      .map((text) => parseIpRange(text))
      .filter((range): range is IpRange => range !== null),
  };
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const weekdays: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };

/** The ISO weekday and the minute of the day of a moment in a time zone. */
export function localTime(at: Date, timeZone: string): { day: number; minute: number } {
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
  let day = 0;
  let hour = 0;
  let minute = 0;
  for (const part of format.formatToParts(at)) {
    if (part.type === 'weekday') day = weekdays[part.value] ?? 0;
    else if (part.type === 'hour') hour = Number(part.value);
    else if (part.type === 'minute') minute = Number(part.value);
  }
  return { day, minute: hour * 60 + minute };
}

/**
 * Whether the restrictions hold now: `null` when they do, else the first that does not, in
 * the order validity, hours, address (an unknown address last, as it is the only one that is
 * not known to fail). `local` caches the local time per time zone within one decision.
 */
export function restrictionMiss(
  r: CompiledRestrictions,
  ctx: DecisionContext,
  local: Map<string, { day: number; minute: number }>,
): RestrictionMiss | null {
  const at = ctx.at.getTime();
  if (r.validFrom !== null && at < r.validFrom) return 'not_yet_valid';
  if (r.validUntil !== null && at >= r.validUntil) return 'expired';
  if (ctx.possible) return null;
  if (r.windows.length > 0) {
    let now = local.get(r.timeZone);
    if (!now) {
      now = localTime(ctx.at, r.timeZone);
      local.set(r.timeZone, now);
    }
    const { day, minute } = now;
    if (!r.windows.some((w) => (w.days & (1 << day)) !== 0 && minute >= w.from && minute < w.to))
      return 'outside_hours';
  }
  if (r.ranges.length > 0) {
    if (!ctx.ip) return 'address_unknown';
    const ip = ctx.ip;
    if (!r.ranges.some((range) => ipInRange(ip, range))) return 'address_outside';
  }
  return null;
}

/**
 * Whether a rule takes part in the decision, and the restriction that did not hold. A restriction
 * that does not hold keeps a rule out, with one exception: a reject whose only open question is
 * the client address applies (an application that does not send the address is not let around
 * a rejection by address).
 */
export function outcome(
  effect: 'allow' | 'reject',
  r: CompiledRestrictions,
  ctx: DecisionContext,
  local: Map<string, { day: number; minute: number }>,
): { applied: boolean; miss: RestrictionMiss | null } {
  const miss = restrictionMiss(r, ctx, local);
  if (ctx.possible && miss === null && (r.windows.length > 0 || r.ranges.length > 0))
    return { applied: effect === 'allow', miss: null };
  return { applied: miss === null || (effect === 'reject' && miss === 'address_unknown'), miss };
}
