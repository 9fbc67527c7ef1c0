import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Account } from '../../db/schema.ts';
import { type Budget, spendBudgets } from '../../lib/rate-windows.ts';
import { mergeSafety } from '../safety/safety.repo.ts';
import { describeLoginEvent, type LoginEvent, loginEventInsert } from './login-events.repo.ts';

/**
 * Who a password attempt is counted against, and so who can be locked out by it:
 * - `device`: a browser that signed in to this account before (its signed device cookie):
 *   counted on its own, so an attacker's failures elsewhere never lock the owner out of it;
 * - `account`: the account, from any other browser or client;
 * - `unknown`: an identifier that names no account, counted and locked out exactly like an
 *   account, so that the answers (and their timing) do not tell whether an account exists.
 * Every kind runs the same statements: one to find the account, one to spend the budgets and
 * read the lock, one to record the outcome.
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
 * Finds the account an identifier names (username, email or phone), with its home company's
 * lock-out settings and whether the browser's device is known to it, in one statement.
 */
export async function findAttemptSubject(
  db: Db,
  identifier: string,
  deviceId: string | null | undefined,
  policy: ThrottlePolicy,
): Promise<AttemptSubject> {
  const lower = identifier.toLowerCase();
  const row = await db
    .selectFrom('accounts as a')
    .leftJoin('company_safety as s', 's.company_id', 'a.home_company_id')
    .leftJoin('sign_in_devices as d', (join) =>
      join
        .onRef('d.account_id', '=', 'a.id')
        .on('d.device_id', '=', deviceId ?? '')
        .on('d.last_success_at', '>', sql<Date>`now() - make_interval(days => ${KNOWN_DEVICE_DAYS})`),
    )
    .selectAll('a')
    .select(['s.general as safety_general', 'd.device_id as known_device'])
    // The LDAP source whose directory checks the account's password, if any (identity sources).
    .select(
      sql<
        string | null
      >`(select l.source_id from identity_links l join identity_sources i on i.id = l.source_id
        where l.account_id = a.id and i.type = 'ldap' order by l.created_at limit 1)`.as(
        'directory_source_id',
      ),
    )
    .where((eb) =>
      eb.or([
        eb(sql<string>`lower(a.username)`, '=', lower),
        eb(sql<string>`lower(a.email)`, '=', lower),
        eb('a.phone', '=', identifier),
      ]),
    )
    .orderBy(sql`lower(a.username) = ${lower}`, 'desc')
    .executeTakeFirst();
  const defaults: Lockout = { threshold: policy.lockoutThreshold, minutes: policy.lockoutMinutes };
  if (!row) return { kind: 'unknown', identifier: normaliseIdentifier(identifier), lockout: defaults };
  const { safety_general, known_device, directory_source_id: directorySourceId, ...account } = row;
  // Accounts without a home company (developers, platform administrators) follow the global policy.
  const lockout: Lockout = account.home_company_id
    ? (({ maxFailures, lockMinutes }) => ({ threshold: maxFailures, minutes: lockMinutes }))(
        mergeSafety(safety_general, null).general.lockout,
      )
    : defaults;
  return known_device && deviceId
    ? { kind: 'device', account, deviceId, lockout, directorySourceId }
    : { kind: 'account', account, lockout, directorySourceId };
}

/** The budgets an attempt spends: a known device has its own; anything else the account's and the address's. */
export function budgetsOf(subject: AttemptSubject, ip: string | null, policy: ThrottlePolicy): Budget[] {
  const hour = (key: string, limit: number): Budget => ({ key, limit, minutes: 60 });
  if (subject.kind === 'device')
    return [
      hour(`sign-in:device:${subject.account.id}:${subject.deviceId}`, policy.maxAttemptsPerAccountPerHour),
    ];
  const who =
    subject.kind === 'account'
      ? `sign-in:account:${subject.account.id}`
      : `sign-in:unknown:${subject.identifier}`;
  return [
    hour(who, policy.maxAttemptsPerAccountPerHour),
    hour(`sign-in:ip:${ip ?? 'unknown'}`, policy.maxAttemptsPerIpPerHour),
  ];
}

/** The subject's lock, as a query of one value (the lock-out's end, or null). */
function lockedUntilOf(db: Db, subject: AttemptSubject) {
  switch (subject.kind) {
    case 'device':
      return db
        .selectFrom('sign_in_devices')
        .select('locked_until')
        .where('account_id', '=', subject.account.id)
        .where('device_id', '=', subject.deviceId);
    case 'account':
      return db.selectFrom('accounts').select('locked_until').where('id', '=', subject.account.id);
    case 'unknown':
      return db
        .selectFrom('sign_in_unknown')
        .select('locked_until')
        .where('identifier', '=', subject.identifier);
  }
}

/**
 * Reserves one attempt from every budget (all or none) and reads the subject's lock, in one
 * statement. A reservation made during a lock-out is given back: no password is checked then.
 */
export async function beginAttempt(db: Db, subject: AttemptSubject, budgets: Budget[]) {
  const { rows } = await sql<{ reserved: boolean; locked_until: Date | null; now: Date }>`
    select rate_hit(${budgets.map((b) => b.key)}::text[], ${budgets.map((b) => b.limit)}::int[],
        ${budgets.map((b) => b.minutes)}::int[], 'reserve') as reserved,
      (${lockedUntilOf(db, subject)}) as locked_until,
      now() as now`.execute(db);
  const row = rows[0];
  if (!row) throw new Error('no answer from rate_hit');
  const lockedUntil = row.locked_until && row.locked_until > row.now ? row.locked_until : null;
  if (lockedUntil && row.reserved) await spendBudgets(db, budgets, 'release');
  return { reserved: row.reserved, lockedUntil };
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
function failureOf(db: Db, subject: AttemptSubject) {
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
  await sql`with failure as (${failureOf(db, subject)}), event as (${loginEventInsert(db, event, details)})
    select 1`.execute(db);
}

/**
 * A right password: the attempt goes back to the budgets, the subject's failures are cleared and
 * the browser becomes (or stays) known to the account.
 */
export async function recordRightPassword(
  db: Db,
  subject: Exclude<AttemptSubject, { kind: 'unknown' }>,
  budgets: Budget[],
): Promise<void> {
  await spendBudgets(db, budgets, 'release');
  if (subject.kind === 'device')
    await db
      .updateTable('sign_in_devices')
      .set({ failed_count: 0, locked_until: null })
      .where('account_id', '=', subject.account.id)
      .where('device_id', '=', subject.deviceId)
      .execute();
}

/** Remembers that this browser signed in to the account (a successful first factor of any kind). */
export async function rememberDevice(db: Db, accountId: string, deviceId: string): Promise<void> {
  await db
    .insertInto('sign_in_devices')
    .values({ account_id: accountId, device_id: deviceId })
    .onConflict((oc) =>
      oc.columns(['account_id', 'device_id']).doUpdateSet({
        last_success_at: sql<Date>`now()`,
        failed_count: 0,
        locked_until: null,
      }),
    )
    .execute();
}

/** Forgets pseudo lock-outs of unknown identifiers that ended a day ago. */
export async function purgeUnknownFailures(db: Db): Promise<void> {
  await db
    .deleteFrom('sign_in_unknown')
    .where('last_failed_at', '<', sql<Date>`now() - interval '1 day'`)
    .execute();
}
