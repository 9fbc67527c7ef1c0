import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Account } from '../../db/schema.ts';
import { type PurgeLimits, purgeBefore } from '../../lib/batched-purge.ts';
import { executeHot } from '../../lib/prepared.ts';
import type { Budget } from '../../lib/rate-windows.ts';
import { describeLoginEvent, type LoginEvent, loginEventInsert } from './login-events.repo.ts';

/**
 * Who a password attempt is counted against, and so who can be locked out by it:
 * - `device`: a browser that signed in to this account before (its signed device cookie):
 *   counted on its own, so an attacker's failures elsewhere never lock the owner out of it;
 * - `account`: the account, from any other browser or client;
 * - `unknown`: an identifier that names no account, counted and locked out exactly like an
 *   account, so that the answers (and their timing) do not tell whether an account exists.
 * Every kind runs the same statements: one that finds the account, reads the lock and reserves
 * the budgets (signin-attempt.ts), one that records the outcome (signin-outcome.ts, or
 * recordFailure below).
 */
export type AttemptSubject =
  | { kind: 'device'; account: Account; deviceId: string; lockout: Lockout; directorySourceId: string | null }
  | { kind: 'account'; account: Account; lockout: Lockout; directorySourceId: string | null }
  | { kind: 'unknown'; identifier: string; lockout: Lockout };

export interface Lockout {
  threshold: number;
  minutes: number;
}

export interface ThrottlePolicy {
  maxAttemptsPerAccountPerHour: number;
  maxAttemptsPerIpPerHour: number;
  lockoutThreshold: number;
  lockoutMinutes: number;
}

/** How long a browser stays known to an account after its last successful sign-in there. */
export const KNOWN_DEVICE_DAYS = 180;

/** How identifiers are compared: what findAccountByIdentifier matches, lowercased. */
export const normaliseIdentifier = (identifier: string) => identifier.trim().toLowerCase();

/**
 * The keys of the budgets (rate_windows): budgetsOf builds them, and so does the statement that
 * reserves them (signin-attempt.ts), from the account it finds.
 */
export const BUDGET_KEY = {
  devicePrefix: 'sign-in:device:',
  accountPrefix: 'sign-in:account:',
  unknown: (identifier: string) => `sign-in:unknown:${identifier}`,
  address: (ip: string | null) => `sign-in:ip:${ip ?? 'unknown'}`,
};

/** The budgets an attempt spends: a known device has its own; anything else the account's and the address's. */
export function budgetsOf(subject: AttemptSubject, ip: string | null, policy: ThrottlePolicy): Budget[] {
  const hour = (key: string, limit: number): Budget => ({ key, limit, minutes: 60 });
  if (subject.kind === 'device')
    return [
      hour(
        `${BUDGET_KEY.devicePrefix}${subject.account.id}:${subject.deviceId}`,
        policy.maxAttemptsPerAccountPerHour,
      ),
    ];
  const who =
    subject.kind === 'account'
      ? `${BUDGET_KEY.accountPrefix}${subject.account.id}`
      : BUDGET_KEY.unknown(subject.identifier);
  return [
    hour(who, policy.maxAttemptsPerAccountPerHour),
    hour(BUDGET_KEY.address(ip), policy.maxAttemptsPerIpPerHour),
  ];
}

/**
 * The next failure count and lock of a subject's row (columns named through `table`, as an
 * upsert needs): a lock that ran out starts the count anew.
 */
function failureSet(table: string, lockout: Lockout) {
  const lockedUntil = sql.ref(`${table}.locked_until`);
  const failedCount = sql.ref(`${table}.failed_count`);
  const count = sql<number>`case when ${lockedUntil} is not null and ${lockedUntil} <= now() then 1 else ${failedCount} + 1 end`;
  return {
    failed_count: count,
    last_failed_at: sql<Date>`now()`,
    locked_until: sql<Date | null>`case
      when ${lockedUntil} is not null and ${lockedUntil} > now() then ${lockedUntil}
      when ${count} >= ${lockout.threshold} then now() + make_interval(mins => ${lockout.minutes})
      else null end`,
  };
}

/** The statement that counts a wrong password against the subject. */
export function failureOf(db: Db, subject: AttemptSubject) {
  switch (subject.kind) {
    case 'device':
      return db
        .updateTable('sign_in_devices')
        .set(failureSet('sign_in_devices', subject.lockout))
        .where('account_id', '=', subject.account.id)
        .where('device_id', '=', subject.deviceId);
    case 'account':
      return db
        .updateTable('accounts')
        .set(failureSet('accounts', subject.lockout))
        .where('id', '=', subject.account.id);
    case 'unknown':
      return db
        .insertInto('sign_in_unknown')
        .values({ identifier: subject.identifier, failed_count: 1, last_failed_at: sql<Date>`now()` })
        .onConflict((oc) =>
          oc.column('identifier').doUpdateSet(failureSet('sign_in_unknown', subject.lockout)),
        );
  }
}

/** Counts a wrong password against the subject and writes the login event, in one statement. */
export async function recordFailure(db: Db, subject: AttemptSubject, event: LoginEvent): Promise<void> {
  // Data-modifying common table expressions run whether or not the outer query reads them.
  const details = await describeLoginEvent(db, event);
  await executeHot(
    db,
    sql`with failure as (${failureOf(db, subject)}), event as (${loginEventInsert(db, event, details)})
    select 1`,
  );
}

/**
 * What a right password clears besides the budgets: a known browser's own failures (an
 * account's are cleared with its success, see signin-outcome.ts); nothing otherwise.
 */
export const rightPasswordReset = (db: Db, subject: AttemptSubject) =>
  subject.kind === 'device'
    ? db
        .updateTable('sign_in_devices')
        .set({ failed_count: 0, locked_until: null })
        .where('account_id', '=', subject.account.id)
        .where('device_id', '=', subject.deviceId)
    : undefined;

/** The statement that remembers that this browser signed in to the account (see rememberDevice). */
export const rememberDeviceQuery = (db: Db, accountId: string, deviceId: string) =>
  db
    .insertInto('sign_in_devices')
    .values({ account_id: accountId, device_id: deviceId })
    .onConflict((oc) =>
      oc.columns(['account_id', 'device_id']).doUpdateSet({
        last_success_at: sql<Date>`now()`,
        failed_count: 0,
        locked_until: null,
      }),
    );

/** Remembers that this browser signed in to the account (a successful first factor of any kind). */
export async function rememberDevice(db: Db, accountId: string, deviceId: string): Promise<void> {
  await rememberDeviceQuery(db, accountId, deviceId).execute();
}

/** Forgets pseudo lock-outs of unknown identifiers that ended a day ago. */
export function purgeUnknownFailures(db: Db, limits?: PurgeLimits): Promise<number> {
  return purgeBefore(db, 'sign_in_unknown', 'last_failed_at', sql<Date>`now() - interval '1 day'`, limits);
}
