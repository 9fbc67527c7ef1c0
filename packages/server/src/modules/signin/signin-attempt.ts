import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { ACCOUNT_COLUMNS, type Account } from '../../db/schema.ts';
import { preparedStatement } from '../../lib/prepared.ts';
import { mergeSafety } from '../safety/safety.repo.ts';
import {
  type AttemptSubject,
  BUDGET_KEY,
  KNOWN_DEVICE_DAYS,
  type Lockout,
  normaliseIdentifier,
  type ThrottlePolicy,
} from './signin-throttle.ts';

/** Where the account signed in last (account_sign_in_places), for the marks of a success. */
export interface PreviousPlace {
  countries: string[];
  last_latitude: number | null;
  last_longitude: number | null;
  last_at: Date | null;
}

export interface BegunAttempt {
  subject: AttemptSubject;
  /** The subject's lock-out, while it lasts: then nothing was reserved and no password is checked. */
  lockedUntil: Date | null;
  /** Whether one attempt was taken from every budget (all or none). */
  reserved: boolean;
  /** The status of the account's user record in the company the sign-in is for (see refusalAfterFirstFactor). */
  recordStatus: 'enabled' | 'disabled' | 'locked' | null;
  previousPlace: PreviousPlace | null;
  /** What the caller's `prefetch` selected for the account. */
  prefetched: unknown;
}

/**
 * An expression of the account's columns and its home company's safety settings (company_safety,
 * null parts and no row meaning the defaults), selected along with it: see SignInAttempt.prefetch.
 */
export type Prefetch = (account: {
  id: RawBuilder<string>;
  homeCompanyId: RawBuilder<string | null>;
  homeSafety: { general: RawBuilder<unknown>; mfa: RawBuilder<unknown> };
}) => RawBuilder<unknown>;

/**
 * The account an identifier names (username, email or phone), with what the attempt needs to
 * know about it: its home company's lock-out settings, whether the browser is known to it, the
 * directory that checks its password, its record in the company of the sign-in, its last place.
 */
function subjectQuery(db: Db, input: AttemptParams, prefetch: Prefetch | undefined) {
  const { lower } = input;
  return (
    db
      .selectFrom('accounts as a')
      .leftJoin('company_safety as s', 's.company_id', 'a.home_company_id')
      .leftJoin('sign_in_devices as d', (join) =>
        join
          .onRef('d.account_id', '=', 'a.id')
          .on('d.device_id', '=', input.deviceId)
          .on('d.last_success_at', '>', sql<Date>`now() - make_interval(days => ${KNOWN_DEVICE_DAYS})`),
      )
      .select(ACCOUNT_COLUMNS.map((column) => `a.${column}` as const))
      .select(['s.general as safety_general', 'd.device_id as known_device'])
      .select('d.locked_until as device_locked_until')
      // The LDAP source whose directory checks the account's password, if any (identity sources).
      .select(
        sql<
          string | null
        >`(select l.source_id from identity_links l join identity_sources i on i.id = l.source_id
        where l.account_id = a.id and i.type = 'ldap' order by l.created_at limit 1)`.as(
          'directory_source_id',
        ),
      )
      // The record of the company the sign-in is for; without one, a disabled account's home
      // record says whether its company disabled or locked it.
      .select(
        sql<BegunAttempt['recordStatus']>`(select m.status from company_members m
        where m.account_id = a.id
          and m.company_id = coalesce(${input.companyId}::text, case when a.status <> 'enabled' then a.home_company_id end))`.as(
          'record_status',
        ),
      )
      .select(
        sql<PreviousPlace | null>`(select row_to_json(p) from account_sign_in_places p where p.account_id = a.id)`.as(
          'previous_place',
        ),
      )
      .select(
        (
          prefetch?.({
            id: sql<string>`a.id`,
            homeCompanyId: sql<string | null>`a.home_company_id`,
            homeSafety: { general: sql<unknown>`s.general`, mfa: sql<unknown>`s.mfa` },
          }) ?? sql<unknown>`null`
        ).as('prefetched'),
      )
      .where((eb) =>
        eb.or([
          eb(sql<string>`lower(a.username)`, '=', lower),
          eb(sql<string>`lower(a.email)`, '=', lower),
          eb('a.phone', '=', input.identifier),
        ]),
      )
      .orderBy(sql`lower(a.username) = ${lower}`, 'desc')
      .limit(1)
  );
}

type SubjectRow = Account & {
  safety_general: unknown;
  known_device: string | null;
  device_locked_until: Date | null;
  directory_source_id: string | null;
  record_status: BegunAttempt['recordStatus'];
  previous_place: (Omit<PreviousPlace, 'last_at'> & { last_at: string | null }) | null;
  prefetched: unknown;
};

/** The values of the attempt's statement (see preparedStatement). */
interface AttemptParams extends Record<string, unknown> {
  lower: string;
  identifier: string;
  deviceId: string;
  companyId: string | null;
  unknownIdentifier: string;
  deviceKeySuffix: string;
  unknownKey: string;
  addressKey: string;
  accountLimit: number;
  addressLimit: number;
}

type AttemptRow = Partial<SubjectRow> & {
  subject_locked_until: Date | null;
  now: Date;
  reserved: boolean | null;
};

/** The statement of beginAttempt. */
function attemptQuery(db: Db, p: AttemptParams, prefetch: Prefetch | undefined) {
  const device = sql`subject.known_device is not null`;
  const known = sql`subject.id is not null`;
  const keys = sql<string[]>`case
    when ${device} then array[${BUDGET_KEY.devicePrefix}::text || subject.id || ${p.deviceKeySuffix}::text]
    when ${known} then array[${BUDGET_KEY.accountPrefix}::text || subject.id, ${p.addressKey}::text]
    else array[${p.unknownKey}::text, ${p.addressKey}::text] end`;
  const limits = sql<number[]>`case when ${device} then array[${p.accountLimit}::int]
    else array[${p.accountLimit}::int, ${p.addressLimit}::int] end`;
  const minutes = sql<number[]>`case when ${device} then array[60] else array[60, 60] end`;
  const lock = sql<Date | null>`case when ${device} then subject.device_locked_until when ${known} then subject.locked_until
    else (select u.locked_until from sign_in_unknown u where u.identifier = ${p.unknownIdentifier}) end`;
  return sql<AttemptRow>`with subject as (${subjectQuery(db, p, prefetch)})
    select subject.*, x.subject_locked_until, x.now,
      case when x.subject_locked_until > x.now then null
        else rate_hit(${keys}, ${limits}, ${minutes}, 'reserve') end as reserved
    from (select 1) as one left join subject on true
    cross join lateral (select ${lock} as subject_locked_until, now() as now) as x`;
}

const withoutPrefetch = preparedStatement<AttemptParams, AttemptRow>((db, p) =>
  attemptQuery(db, p, undefined),
);
const withPrefetch = new WeakMap<Prefetch, typeof withoutPrefetch>();

/** The attempt's statement, compiled once for each prefetch. */
function attemptStatement(prefetch: Prefetch | undefined) {
  if (!prefetch) return withoutPrefetch;
  let statement = withPrefetch.get(prefetch);
  if (!statement) {
    statement = preparedStatement<AttemptParams, AttemptRow>((db, p) => attemptQuery(db, p, prefetch));
    withPrefetch.set(prefetch, statement);
  }
  return statement;
}

/**
 * Begins a password attempt in one statement, the same for every identifier: finds the subject
 * (see AttemptSubject), reads its lock and, unless it is locked out, reserves one attempt from
 * every budget of budgetsOf (all or none, atomically: parallel attempts cannot exceed them). The
 * budgets' keys are built here as budgetsOf builds them, from the account the statement finds.
 */
export async function beginAttempt(
  db: Db,
  input: {
    identifier: string;
    deviceId: string | null | undefined;
    /** Whose address budget the attempt spends. */
    address: string | null;
    companyId: string | null;
    policy: ThrottlePolicy;
    prefetch?: Prefetch;
  },
): Promise<BegunAttempt> {
  const { policy } = input;
  const deviceId = input.deviceId ?? '';
  const unknownIdentifier = normaliseIdentifier(input.identifier);
  const params: AttemptParams = {
    lower: input.identifier.toLowerCase(),
    identifier: input.identifier,
    deviceId,
    companyId: input.companyId,
    unknownIdentifier,
    deviceKeySuffix: `:${deviceId}`,
    unknownKey: BUDGET_KEY.unknown(unknownIdentifier),
    addressKey: BUDGET_KEY.address(input.address),
    accountLimit: policy.maxAttemptsPerAccountPerHour,
    addressLimit: policy.maxAttemptsPerIpPerHour,
  };
  const { rows } = await db.executeQuery(attemptStatement(input.prefetch)(db, params));
  const row = rows[0];
  if (!row) throw new Error('no answer from the sign-in attempt');
  const lockedUntil =
    row.subject_locked_until && row.subject_locked_until > row.now ? row.subject_locked_until : null;
  return {
    subject: subjectOf(row, input, policy),
    lockedUntil,
    reserved: row.reserved === true,
    recordStatus: row.record_status ?? null,
    previousPlace: row.previous_place
      ? {
          ...row.previous_place,
          last_at: row.previous_place.last_at ? new Date(row.previous_place.last_at) : null,
        }
      : null,
    prefetched: row.prefetched ?? null,
  };
}

function subjectOf(
  row: Partial<SubjectRow>,
  input: { identifier: string; deviceId: string | null | undefined },
  policy: ThrottlePolicy,
): AttemptSubject {
  const defaults: Lockout = { threshold: policy.lockoutThreshold, minutes: policy.lockoutMinutes };
  if (!row.id)
    return { kind: 'unknown', identifier: normaliseIdentifier(input.identifier), lockout: defaults };
  const {
    safety_general,
    known_device,
    device_locked_until: _deviceLock,
    directory_source_id: directorySourceId = null,
    record_status: _status,
    previous_place: _place,
    prefetched: _prefetched,
    ...account
  } = row as SubjectRow;
  // Accounts without a home company (developers, platform administrators) follow the global policy.
  const lockout: Lockout = account.home_company_id
    ? (({ maxFailures, lockMinutes }) => ({ threshold: maxFailures, minutes: lockMinutes }))(
        mergeSafety(safety_general, null).general.lockout,
      )
    : defaults;
  return known_device && input.deviceId
    ? { kind: 'device', account, deviceId: input.deviceId, lockout, directorySourceId }
    : { kind: 'account', account, lockout, directorySourceId };
}
