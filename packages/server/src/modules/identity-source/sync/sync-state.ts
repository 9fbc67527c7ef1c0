import type { MemberRole } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import { fullyManagedColumn } from '../../user/user-authority.ts';

/**
 * What the sync plan compares a directory with: the company's departments, the source's links
 * and the linked people as they are now. Read in a few set-based queries (tens of thousands of
 * people), never per person.
 */

export interface CompanyDepartment {
  id: string;
  parentId: string | null;
  name: string;
}

export interface LinkedPerson {
  accountId: string;
  externalId: string;
  externalDn: string | null;
  externalName: string | null;
  disabledBySync: boolean;
  username: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  /** The record's status in the company. */
  recordStatus: 'enabled' | 'disabled' | 'locked';
  role: MemberRole;
  fullyManaged: boolean;
  /** The departments of the source the person is in now. */
  sourceDepartmentIds: string[];
}

export interface SyncState {
  rootDepartmentId: string | null;
  departments: Map<string, CompanyDepartment>;
  /** The source's departments by external id. */
  sourceDepartments: Map<string, string>;
  /** Departments another source maintains (never adopted). */
  otherSourceDepartments: Set<string>;
  /** Members of each department now (anyone, linked or not). */
  memberCounts: Map<string, number>;
  links: Map<string, LinkedPerson>;
}

export async function loadSyncState(db: Db, companyId: string, sourceId: string): Promise<SyncState> {
  const [departments, sourceDepartments, counts, people, memberships] = await Promise.all([
    db
      .selectFrom('departments')
      .select(['id', 'parent_id', 'name'])
      .where('company_id', '=', companyId)
      .execute(),
    db
      .selectFrom('identity_source_departments as s')
      .innerJoin('departments as d', 'd.id', 's.department_id')
      .select(['s.source_id', 's.external_id', 's.department_id'])
      .where('d.company_id', '=', companyId)
      .execute(),
    db
      .selectFrom('department_members')
      .select(['department_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('company_id', '=', companyId)
      .groupBy('department_id')
      .execute(),
    db
      .selectFrom('identity_links as l')
      .innerJoin('company_members as m', (join) =>
        join.onRef('m.company_id', '=', 'l.company_id').onRef('m.account_id', '=', 'l.account_id'),
      )
      .innerJoin('accounts as a', 'a.id', 'l.account_id')
      .select([
        'l.account_id',
        'l.external_id',
        'l.external_dn',
        'l.external_name',
        'l.disabled_by_sync',
        'a.username',
        'a.display_name',
        'a.email',
        'a.phone',
        'm.status',
        'm.role',
        fullyManagedColumn.as('fully_managed'),
      ])
      .where('l.source_id', '=', sourceId)
      .where('l.company_id', '=', companyId)
      .execute(),
    db
      .selectFrom('department_members as dm')
      .innerJoin('identity_source_departments as s', 's.department_id', 'dm.department_id')
      .innerJoin('identity_links as l', (join) =>
        join.onRef('l.account_id', '=', 'dm.account_id').on('l.source_id', '=', sourceId),
      )
      .select(['dm.account_id', 'dm.department_id'])
      .where('s.source_id', '=', sourceId)
      .where('dm.company_id', '=', companyId)
      .execute(),
  ]);
  const byAccount = new Map<string, string[]>();
  for (const row of memberships)
    byAccount.set(row.account_id, [...(byAccount.get(row.account_id) ?? []), row.department_id]);
  const root = departments.find((d) => d.parent_id === null);
  return {
    rootDepartmentId: root?.id ?? null,
    departments: new Map(departments.map((d) => [d.id, { id: d.id, parentId: d.parent_id, name: d.name }])),
    sourceDepartments: new Map(
      sourceDepartments
        .filter((row) => row.source_id === sourceId)
        .map((row) => [row.external_id, row.department_id]),
    ),
    otherSourceDepartments: new Set(
      sourceDepartments.filter((row) => row.source_id !== sourceId).map((row) => row.department_id),
    ),
    memberCounts: new Map(counts.map((row) => [row.department_id, Number(row.n)])),
    links: new Map(
      people.map((row) => [
        row.external_id,
        {
          accountId: row.account_id,
          externalId: row.external_id,
          externalDn: row.external_dn,
          externalName: row.external_name,
          disabledBySync: row.disabled_by_sync,
          username: row.username,
          name: row.display_name,
          email: row.email,
          phone: row.phone,
          recordStatus: row.status,
          role: row.role,
          fullyManaged: row.fully_managed,
          sourceDepartmentIds: byAccount.get(row.account_id) ?? [],
        },
      ]),
    ),
  };
}

export interface IdentifierOwner {
  id: string;
  username: string;
  email: string | null;
  phone: string | null;
  /** A user of the company (the company may be told which row collides). */
  inCompany: boolean;
}

/**
 * Whether the owner has `value` as a username or an email (case-insensitively): people sign in
 * with either, so a username may not be another account's email, nor an email another's username.
 */
export const ownsSignInName = (owner: Pick<IdentifierOwner, 'username' | 'email'>, value: string | null) =>
  Boolean(value) &&
  (owner.username.toLowerCase() === value?.toLowerCase() ||
    owner.email?.toLowerCase() === value?.toLowerCase());

/**
 * The accounts that already have any of these usernames, emails (both case-insensitively, and
 * each as the other: ownsSignInName) or phones.
 */
export async function findIdentifierOwners(
  db: Db,
  companyId: string,
  values: { usernames: string[]; emails: string[]; phones: string[] },
): Promise<IdentifierOwner[]> {
  const { usernames, emails, phones } = values;
  if (!usernames.length && !emails.length && !phones.length) return [];
  const { rows } = await sql<IdentifierOwner>`
    select a.id, a.username, a.email, a.phone,
      exists (select 1 from company_members m where m.account_id = a.id and m.company_id = ${companyId}) as "inCompany"
    from accounts a
    where lower(a.username) = any(${[...usernames, ...emails].map((u) => u.toLowerCase())}::text[])
      or lower(a.email) = any(${[...emails, ...usernames.filter((u) => u.includes('@'))].map((e) => e.toLowerCase())}::text[])
      or a.phone = any(${phones}::text[])`.execute(db);
  return rows;
}

/** The entries already counted to the company as colliding outside it, with their identifiers' fingerprint. */
export async function findToldConflicts(db: Db, sourceId: string): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('identity_source_conflicts')
    .select(['external_id', 'fingerprint'])
    .where('source_id', '=', sourceId)
    .execute();
  return new Map(rows.map((row) => [row.external_id, row.fingerprint]));
}

/** Remembers the outside collisions the company was told of (only these; the rest are forgotten). */
export async function replaceToldConflicts(
  db: Db,
  sourceId: string,
  told: Map<string, string>,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('identity_source_conflicts').where('source_id', '=', sourceId).execute();
    const rows = [...told].map(([external_id, fingerprint]) => ({
      source_id: sourceId,
      external_id,
      fingerprint,
    }));
    for (let i = 0; i < rows.length; i += 1000)
      await trx
        .insertInto('identity_source_conflicts')
        .values(rows.slice(i, i + 1000))
        .execute();
  });
}
