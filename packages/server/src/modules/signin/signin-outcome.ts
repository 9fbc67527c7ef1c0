import { type Compilable, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { ACCOUNT_COLUMNS, type Account } from '../../db/schema.ts';
import { executeHot } from '../../lib/prepared.ts';
import type { Budget } from '../../lib/rate-windows.ts';
import type { PreviousPlace } from '../log/sign-in-marks.ts';
import {
  describeLoginEvent,
  describeSuccess,
  type LoginEvent,
  loginEventInsert,
} from './login-events.repo.ts';

/**
 * Counts a sign-in. Only a right password typed outside a known browser ends the account's
 * lock-out count: a known browser has its own, and a passkey is no password. The count is the
 * users list's "Sign-ins", which must match the company's sign-in log: a sign-in outside any
 * company (the platform console by a person without a home company) is in no company's log, so
 * it is not counted either (`counted` false); its time is still the last sign-in.
 */
export const successUpdate = (db: Db, accountId: string, endsAccountLockout: boolean, counted = true) =>
  db
    .updateTable('accounts')
    .set((eb) => ({
      ...(endsAccountLockout ? { failed_count: 0, locked_until: null } : {}),
      ...(counted ? { login_count: eb('login_count', '+', 1) } : {}),
      last_login_at: sql<Date>`now()`,
    }))
    .where('id', '=', accountId)
    .returning(ACCOUNT_COLUMNS);

export interface Outcome {
  /** Budgets given back: a right password, or an attempt in which no password was judged. */
  release?: readonly Budget[];
  /** Further writes of the outcome (a known browser's failures cleared, the browser remembered). */
  writes?: (Compilable | undefined)[];
  /** A success: the account's update (successUpdate), whose row comes back. */
  success?: ReturnType<typeof successUpdate>;
  event: LoginEvent;
  /**
   * A success: where the account signed in before, if it was read with the attempt; when
   * undefined, it is read before the statement (for the marks of the event).
   */
  previousPlace?: PreviousPlace | null;
}

/**
 * Writes the outcome of an attempt in one statement: the budgets given back, the writes, the
 * account's success and the login event (whose trigger counts it, migration 21). Data-modifying
 * common table expressions run whether or not the outer query reads them; the budgets' function
 * runs in the outer query, which reads it. Answers the account as the success left it.
 */
export async function recordOutcome(db: Db, outcome: Outcome): Promise<Account | undefined> {
  const { event } = outcome;
  const described =
    event.result === 'success' && outcome.previousPlace !== undefined
      ? await describeSuccess(db, event, outcome.previousPlace)
      : { details: await describeLoginEvent(db, event), rememberPlace: undefined };
  const writes = [
    ...(outcome.writes ?? []),
    described.rememberPlace,
    loginEventInsert(db, event, described.details),
  ]
    .filter((write): write is Compilable => write !== undefined)
    .map((write, i) => sql`${sql.id(`write_${i}`)} as (${write})`);
  const release = outcome.release?.length
    ? sql<boolean>`rate_hit(${outcome.release.map((b) => b.key)}::text[],
        ${outcome.release.map((b) => b.limit)}::int[], ${outcome.release.map((b) => b.minutes)}::int[], 'release')`
    : sql<boolean>`null::boolean`;
  if (!outcome.success) {
    await executeHot(db, sql`with ${sql.join(writes)} select ${release} as released`);
    return undefined;
  }
  const { rows } = await executeHot(
    db,
    sql<Account & { released: boolean | null }>`with ${sql.join(writes)},
    signed_in as (${outcome.success})
    select x.released, signed_in.* from (select ${release} as released) as x left join signed_in on true`,
  );
  const { released: _released, ...account } = rows[0] ?? { released: null };
  return 'id' in account && account.id ? (account as Account) : undefined;
}
