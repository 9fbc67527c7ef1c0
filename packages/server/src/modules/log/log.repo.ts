import { logLimits, type SignInMark } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

/**
 * The queries of the log screen. Every one takes the company and a time range and reads the
 * newest (or oldest) rows first through an index that starts with the company and ends with the
 * time and id (migration 13): a page is found without reading the rows before its range, and the
 * total is counted only up to logLimits.countCap.
 */
export interface TimeRange {
  from: Date;
  to: Date;
}

export interface SignInFilter {
  accountId?: string;
  /** The client id of the application named in the request (null: it is not the company's). */
  clientId?: string | null;
  result?: 'success' | 'failure';
  cause?: string;
  mark?: SignInMark;
}

export interface AdminFilter {
  actorId?: string;
  action?: string;
}

export type Order = 'asc' | 'desc';

/** Where the previous batch ended (exports read in batches by time and id). */
export interface After {
  time: Date;
  id: string;
}

function signInQuery(db: Db, companyId: string, range: TimeRange, filter: SignInFilter) {
  let query = db
    .selectFrom('login_events as e')
    .where('e.company_id', '=', companyId)
    .where('e.created_at', '>=', range.from)
    .where('e.created_at', '<', range.to);
  if (filter.accountId) query = query.where('e.account_id', '=', filter.accountId);
  if (filter.clientId !== undefined) {
    // An application of another company (or none) matches nothing.
    if (filter.clientId === null) query = query.where(sql<boolean>`false`);
    else query = query.where('e.client_id', '=', filter.clientId);
  }
  if (filter.result) query = query.where('e.result', '=', filter.result);
  if (filter.cause) query = query.where('e.failure_cause', '=', filter.cause);
  if (filter.mark) query = query.where(sql<boolean>`e.marks @> array[${filter.mark}]::text[]`);
  return query;
}

function adminQuery(db: Db, companyId: string, range: TimeRange, filter: AdminFilter) {
  let query = db
    .selectFrom('audit_events as e')
    .where('e.company_id', '=', companyId)
    .where('e.created_at', '>=', range.from)
    .where('e.created_at', '<', range.to);
  if (filter.actorId) query = query.where('e.actor_account_id', '=', filter.actorId);
  if (filter.action) query = query.where('e.action', '=', filter.action);
  return query;
}

/** Rows that match, counted up to the cap (and whether there are more). */
async function cappedCount(
  query: ReturnType<typeof signInQuery> | ReturnType<typeof adminQuery>,
  cap: number,
): Promise<{ total: number; totalCapped: boolean }> {
  const rows = await (query as ReturnType<typeof signInQuery>)
    .select(sql<number>`1`.as('one'))
    .limit(cap + 1)
    .execute();
  return { total: Math.min(rows.length, cap), totalCapped: rows.length > cap };
}

/** The page condition and order: by time and id, after the given row when reading in batches. */
const afterRow = (order: Order, after: After) =>
  order === 'desc'
    ? sql<boolean>`(e.created_at, e.id) < (${after.time}, ${after.id})`
    : sql<boolean>`(e.created_at, e.id) > (${after.time}, ${after.id})`;

/** What a sign-in row shows (login_events e, its person a and its application p): the log and syslog. */
export const signInColumns = [
  'e.id',
  'e.created_at',
  'e.account_id',
  'a.username',
  'e.identifier',
  'p.id as app_id',
  'p.name as app_name',
  'e.client_id',
  'e.result',
  'e.failure_cause',
  'e.ip',
  'e.country',
  'e.region',
  'e.city',
  'e.browser',
  'e.os',
  'e.marks',
  'e.nas_ip',
  'e.calling_station_id',
  'e.method',
] as const;

export function findSignIns(
  db: Db,
  companyId: string,
  range: TimeRange,
  filter: SignInFilter,
  page: { order: Order; limit: number; offset?: number; after?: After },
) {
  let query = signInQuery(db, companyId, range, filter);
  if (page.after) query = query.where(afterRow(page.order, page.after));
  return query
    .orderBy('e.created_at', page.order)
    .orderBy('e.id', page.order)
    .leftJoin('accounts as a', 'a.id', 'e.account_id')
    .leftJoin('apps as p', (join) =>
      join.onRef('p.client_id', '=', 'e.client_id').on('p.company_id', '=', companyId),
    )
    .select(signInColumns)
    .limit(page.limit)
    .offset(page.offset ?? 0)
    .execute();
}
export type SignInRow = Awaited<ReturnType<typeof findSignIns>>[number];

export const countSignIns = (
  db: Db,
  companyId: string,
  range: TimeRange,
  filter: SignInFilter,
  cap: number,
) => cappedCount(signInQuery(db, companyId, range, filter), cap);

export function findAdminEvents(
  db: Db,
  companyId: string,
  range: TimeRange,
  filter: AdminFilter,
  page: { order: Order; limit: number; offset?: number; after?: After },
) {
  let query = adminQuery(db, companyId, range, filter);
  if (page.after) query = query.where(afterRow(page.order, page.after));
  return query
    .orderBy('e.created_at', page.order)
    .orderBy('e.id', page.order)
    .leftJoin('accounts as a', 'a.id', 'e.actor_account_id')
    .select([
      'e.id',
      'e.created_at',
      'e.actor_account_id',
      'a.username as actor_name',
      'e.action',
      'e.target_type',
      'e.target_id',
      'e.before',
      'e.after',
      'e.ip',
    ])
    .limit(page.limit)
    .offset(page.offset ?? 0)
    .execute();
}
export type AdminRow = Awaited<ReturnType<typeof findAdminEvents>>[number];

export const countAdminEvents = (
  db: Db,
  companyId: string,
  range: TimeRange,
  filter: AdminFilter,
  cap: number,
) => cappedCount(adminQuery(db, companyId, range, filter), cap);

/** The distinct actions of a company, read as a loose index scan (one index probe per action). */
export async function findAdminActions(db: Db, companyId: string): Promise<string[]> {
  const result = await sql<{ action: string | null }>`
    with recursive found as (
      (select action from audit_events where company_id = ${companyId} order by action limit 1)
      union all
      select (select e.action from audit_events e
              where e.company_id = ${companyId} and e.action > found.action
              order by e.action limit 1)
      from found where found.action is not null)
    select action from found where action is not null`.execute(db);
  return result.rows.map((row) => row.action as string);
}

export async function findRetentionDays(db: Db, companyId: string): Promise<number> {
  const row = await db
    .selectFrom('company_log_settings')
    .select('retention_days')
    .where('company_id', '=', companyId)
    .executeTakeFirst();
  return row?.retention_days ?? logLimits.retentionDays.default;
}

export async function saveRetentionDays(db: Db, companyId: string, days: number): Promise<void> {
  await db
    .insertInto('company_log_settings')
    .values({ company_id: companyId, retention_days: days, updated_at: sql<Date>`now()` })
    .onConflict((oc) =>
      oc.column('company_id').doUpdateSet({ retention_days: days, updated_at: sql<Date>`now()` }),
    )
    .execute();
}

export const findAppClientId = async (db: Db, companyId: string, appId: string) =>
  (
    await db
      .selectFrom('apps')
      .select('client_id')
      .where('company_id', '=', companyId)
      .where('id', '=', appId)
      .executeTakeFirst()
  )?.client_id ?? null;
