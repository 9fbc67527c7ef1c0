import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { type PurgeLimits, purgeBefore } from './batched-purge.ts';

/**
 * A budget over a sliding window: at most `limit` in any `minutes` minutes, counted per minute
 * (so 100 attempts at 10:59 and 100 more at 11:00 do not both pass, as they would with
 * clock-hour counters). Kept in the database (`rate_windows`, function `rate_hit` of migration
 * 11), so every server instance spends the same budget, and a row lock makes each call atomic:
 * of 120 parallel reservations against a limit of 100, exactly 100 succeed.
 */
export interface Budget {
  key: string;
  limit: number;
  minutes: number;
}

/**
 * - `reserve`: takes one from every budget, or none when any is spent; answers whether it took.
 * - `add`: takes one from every budget regardless; answers whether all had room before.
 * - `release`: gives one back to every budget (an attempt that turned out to be right).
 * - `peek`: answers whether every budget has room, changing nothing.
 */
export type BudgetMode = 'reserve' | 'add' | 'release' | 'peek';

export async function spendBudgets(db: Db, budgets: readonly Budget[], mode: BudgetMode): Promise<boolean> {
  if (!budgets.length) return true;
  const keys = budgets.map((b) => b.key);
  const limits = budgets.map((b) => b.limit);
  const minutes = budgets.map((b) => b.minutes);
  const result = await sql<{ room: boolean }>`
    select rate_hit(${keys}::text[], ${limits}::int[], ${minutes}::int[], ${mode}) as room`.execute(db);
  return result.rows[0]?.room === true;
}

/** Forgets windows nobody touched for a day (every budget's window is shorter). */
export function purgeIdleBudgets(db: Db, limits?: PurgeLimits): Promise<number> {
  return purgeBefore(db, 'rate_windows', 'updated_at', sql<Date>`now() - interval '1 day'`, limits);
}
