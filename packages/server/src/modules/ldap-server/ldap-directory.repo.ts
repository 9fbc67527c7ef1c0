import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { App } from '../../db/schema.ts';
import type { AppLdapConfig } from '../../db/schema-ldap-server.ts';
import { type AttributeSource, type Condition, filterToSql } from './ldap-filter-sql.ts';
import type { LdapNames } from './ldap-names.ts';
import type { LdapFilter } from './ldap-wire.ts';

/**
 * SQL of the LDAP server: who a bound connection may see, and the people and groups of a
 * company matching a filter, a page at a time in id order (the paging cookie is the last id).
 */

/** Whom a bound connection sees: an application's service account its people; a person themselves. */
export type View = (
  | { kind: 'app'; companyId: string; code: string; appId: string; allowAll: boolean }
  | { kind: 'person'; companyId: string; code: string; accountId: string }
) & {
  /** The application serves people as posixAccount and groups as posixGroup. */
  posix: boolean;
};

export interface PersonRow {
  id: string;
  username: string;
  display_name: string | null;
  email: string | null;
  phone: string | null;
  /** uidNumber (and the gidNumber of the person's private group); null unless the view is posix. */
  posix_number: number | null;
}
export interface GroupRow {
  id: string;
  name: string;
  kind: 'department' | 'role';
  /** gidNumber; null unless the view is posix. */
  posix_number: number | null;
}

export const PERSON_CLASSES = ['top', 'person', 'organizationalPerson', 'inetOrgPerson'] as const;
export const GROUP_CLASSES = ['top', 'groupOfNames'] as const;
export const personClasses = (view: View): string[] =>
  view.posix ? [...PERSON_CLASSES, 'posixAccount'] : [...PERSON_CLASSES];
export const groupClasses = (view: View): string[] =>
  view.posix ? [...GROUP_CLASSES, 'posixGroup'] : [...GROUP_CLASSES];

/** What a bind needs of an LDAP application's settings. */
export type LdapSettings = Pick<AppLdapConfig, 'secret_hash' | 'allow_password_with_mfa' | 'posix'>;

export interface CompanyLdapApps {
  company: { id: string; code: string } | undefined;
  /** Oldest first (the same order on every instance). */
  apps: { app: App; config: LdapSettings | undefined }[];
}

/**
 * A company (by its code) with, in the same statement, its LDAP application `appId` (whatever its
 * status), or without `appId` its opened LDAP applications, each with its LDAP settings.
 */
export async function companyLdapApps(db: Db, code: string, appId?: string): Promise<CompanyLdapApps> {
  if (appId !== undefined && !/^[0-9a-f-]{36}$/.test(appId)) return { company: undefined, apps: [] };
  const rows = await db
    .selectFrom('companies as co')
    .leftJoin('apps as a', (join) =>
      join
        .onRef('a.company_id', '=', 'co.id')
        .on('a.protocol', '=', 'ldap')
        .on((eb) => (appId === undefined ? eb('a.status', '=', 'opened') : eb('a.id', '=', appId))),
    )
    .leftJoin('app_ldap_configs as c', 'c.app_id', 'a.id')
    .selectAll('a')
    .select([
      'co.id as ldap_company_id',
      'co.code as ldap_company_code',
      'c.app_id as ldap_config_app_id',
      'c.secret_hash as ldap_secret_hash',
      'c.allow_password_with_mfa as ldap_allow_password_with_mfa',
      'c.posix as ldap_posix',
    ])
    .where('co.code', '=', code)
    .orderBy('a.created_at')
    .orderBy('a.id')
    .execute();
  const first = rows[0];
  if (!first) return { company: undefined, apps: [] };
  return {
    company: { id: first.ldap_company_id, code: first.ldap_company_code },
    apps: rows
      .filter((row) => row.id !== null)
      .map((row) => {
        const {
          ldap_company_id: _company,
          ldap_company_code: _code,
          ldap_config_app_id: configAppId,
          ldap_secret_hash: secretHash,
          ldap_allow_password_with_mfa: allowPasswordWithMfa,
          ldap_posix: posix,
          ...app
        } = row;
        return {
          app: app as App,
          config:
            configAppId === null
              ? undefined
              : {
                  secret_hash: secretHash,
                  allow_password_with_mfa: allowPasswordWithMfa ?? false,
                  posix: posix ?? false,
                },
        };
      }),
  };
}

const live = (alias: string) => sql.raw(`coalesce(${alias}.expires_at, 'infinity'::timestamptz) > now()`);

/**
 * The statement's head: the departments an application is given, with those below them (the one
 * access rule of modules/app/app-access.ts, walked down once for the whole search).
 */
function grantedDepartments(view: View) {
  if (view.kind !== 'app' || view.allowAll) return sql``;
  return sql`with recursive granted_departments (id) as (
    select ad.department_id from app_department_assignments ad where ad.app_id = ${view.appId} and ${live('ad')}
    union
    select d.id from departments d join granted_departments g on d.parent_id = g.id
  ) `;
}

/** The person (alias) is an enabled user of the company whom the view may see. */
function visible(view: View, alias: string): Condition {
  const a = sql.raw(alias);
  const enabled = sql<boolean>`${a}.status = 'enabled' and exists (
    select 1 from company_members vm where vm.account_id = ${a}.id and vm.company_id = ${view.companyId} and vm.status = 'enabled')`;
  if (view.kind === 'person') return sql<boolean>`(${a}.id = ${view.accountId} and ${enabled})`;
  if (view.allowAll) return enabled;
  return sql<boolean>`(${enabled} and (
    exists (select 1 from app_assignments x where x.app_id = ${view.appId} and x.account_id = ${a}.id and ${live('x')})
    or exists (select 1 from app_role_assignments ar join permission_role_members rm on rm.role_id = ar.role_id
      where ar.app_id = ${view.appId} and rm.account_id = ${a}.id and ${live('ar')})
    or exists (select 1 from department_members dm where dm.account_id = ${a}.id
      and dm.department_id in (select id from granted_departments))))`;
}

/** Memberships of people in groups: departments (direct members) and permission roles. */
const memberships = (companyId: string) => sql`(
  select department_id as group_id, account_id from department_members where company_id = ${companyId}
  union all
  select role_id, account_id from permission_role_members where company_id = ${companyId})`;

/** The POSIX number of the entry whose id is `id` (an SQL expression), or null. */
const posixNumber = (view: View, id: RawBuilder<string>) =>
  view.posix
    ? sql<
        number | null
      >`(select pn.number from ldap_posix_ids pn where pn.company_id = ${view.companyId} and pn.subject_id = ${id})`
    : sql<null>`null::integer`;

/** uidNumber/gidNumber of entries whose id is `id`: comparisons go through the (company, number) index. */
const posixNumberSource = (view: View, id: RawBuilder<string>): AttributeSource => ({
  kind: 'integer',
  present: sql<boolean>`exists (select 1 from ldap_posix_ids pn where pn.company_id = ${view.companyId} and pn.subject_id = ${id})`,
  compare: (op, value) =>
    sql<boolean>`${id} in (select pn.subject_id from ldap_posix_ids pn
      where pn.company_id = ${view.companyId} and pn.number ${sql.raw(op)} ${value})`,
});

/** The posixAccount attributes of a person (alias a); none unless the view is posix. */
function posixPersonAttributes(view: View): Record<string, AttributeSource> {
  if (!view.posix) return {};
  const number = posixNumberSource(view, sql<string>`a.id`);
  return {
    uidnumber: number,
    // The person's user private group: its number is the person's own (sssd: auto_private_groups).
    gidnumber: number,
    homedirectory: { kind: 'text', exprs: [sql<string>`'/home/' || a.username`] },
    loginshell: { kind: 'const', values: [LOGIN_SHELL] },
  };
}

export const LOGIN_SHELL = '/bin/bash';

export function createDirectoryQueries(db: Db, names: LdapNames) {
  const personAttributes = (view: View) => {
    const name = sql<string>`coalesce(a.display_name, a.username)`;
    const map: Record<string, AttributeSource> = {
      ...posixPersonAttributes(view),
      objectclass: { kind: 'const', values: personClasses(view) },
      uid: { kind: 'text', exprs: [sql<string>`a.username`] },
      cn: { kind: 'text', exprs: [name] },
      sn: { kind: 'text', exprs: [name] },
      givenname: { kind: 'text', exprs: [name] },
      displayname: { kind: 'text', exprs: [name] },
      mail: { kind: 'text', exprs: [sql<string | null>`a.email`] },
      telephonenumber: { kind: 'text', exprs: [sql<string | null>`a.phone`] },
      entryuuid: { kind: 'text', exprs: [sql<string>`a.id`], exact: true },
      memberof: {
        kind: 'dn',
        present: sql<boolean>`exists (select 1 from ${memberships(view.companyId)} ms where ms.account_id = a.id)`,
        equals(dn) {
          const named = names.classify(dn);
          if (named?.kind !== 'group' || named.code !== view.code) return null;
          return sql<boolean>`exists (select 1 from ${memberships(view.companyId)} ms
            where ms.account_id = a.id and ms.group_id = ${named.id})`;
        },
      },
    };
    return (attribute: string) => map[attribute];
  };

  const groupAttributes = (view: View) => {
    const map: Record<string, AttributeSource> = {
      objectclass: { kind: 'const', values: groupClasses(view) },
      cn: { kind: 'text', exprs: [sql<string>`g.id`, sql<string>`g.name`] },
      ...posixGroupAttributes(view),
      entryuuid: { kind: 'text', exprs: [sql<string>`g.id`], exact: true },
      member: {
        kind: 'dn',
        present: sql<boolean>`exists (select 1 from ${memberships(view.companyId)} ms
          join accounts a on a.id = ms.account_id where ms.group_id = g.id and ${visible(view, 'a')})`,
        equals(dn) {
          const named = names.classify(dn);
          if (named?.kind !== 'person' || named.code !== view.code) return null;
          return sql<boolean>`exists (select 1 from ${memberships(view.companyId)} ms
            join accounts a on a.id = ms.account_id
            where ms.group_id = g.id and lower(a.username) = lower(${named.username}) and ${visible(view, 'a')})`;
        },
      },
    };
    return (attribute: string) => map[attribute];
  };

  /** The posixGroup attributes of a group (alias g): gidNumber and its visible members' uids. */
  function posixGroupAttributes(view: View): Record<string, AttributeSource> {
    if (!view.posix) return {};
    const members = sql`${memberships(view.companyId)} ms join accounts a on a.id = ms.account_id`;
    return {
      gidnumber: posixNumberSource(view, sql<string>`g.id`),
      memberuid: {
        kind: 'dn',
        present: sql<boolean>`exists (select 1 from ${members} where ms.group_id = g.id and ${visible(view, 'a')})`,
        equals: (uid) => sql<boolean>`exists (select 1 from ${members}
          where ms.group_id = g.id and lower(a.username) = lower(${uid}) and ${visible(view, 'a')})`,
      },
    };
  }

  /** People the view sees who match the filter, after an id, in id order. */
  async function people(
    view: View,
    filter: LdapFilter,
    page: { after: string; limit: number; username?: string },
  ): Promise<PersonRow[]> {
    const condition = filterToSql(filter, personAttributes(view));
    const one: RawBuilder<unknown> =
      page.username === undefined ? sql`true` : sql`lower(a.username) = lower(${page.username})`;
    const { rows } = await sql<PersonRow>`${grantedDepartments(view)}
      select a.id, a.username, a.display_name, a.email, a.phone, ${posixNumber(view, sql`a.id`)} as posix_number
      from accounts a
      where ${one} and ${visible(view, 'a')} and ${condition} and a.id > ${page.after}
      order by a.id limit ${page.limit}`.execute(db);
    return rows;
  }

  /** The company's groups (departments and roles) that match the filter, after an id, in id order. */
  async function groups(
    view: View,
    filter: LdapFilter,
    page: { after: string; limit: number; id?: string },
  ): Promise<GroupRow[]> {
    const condition = filterToSql(filter, groupAttributes(view));
    const one: RawBuilder<unknown> = page.id === undefined ? sql`true` : sql`g.id = ${page.id}`;
    const { rows } = await sql<GroupRow>`${grantedDepartments(view)}
      select g.id, g.name, g.kind, ${posixNumber(view, sql`g.id`)} as posix_number from (
        select id, name, 'department' as kind from departments where company_id = ${view.companyId}
        union all
        select id, name, 'role' as kind from permission_roles where company_id = ${view.companyId}) g
      where ${one} and ${condition} and g.id > ${page.after}
      order by g.id limit ${page.limit}`.execute(db);
    return rows;
  }

  /** The groups of each of these people. */
  async function groupsOfPeople(view: View, accountIds: string[]): Promise<Map<string, string[]>> {
    const found = new Map<string, string[]>();
    if (!accountIds.length) return found;
    const { rows } = await sql<{ account_id: string; group_id: string }>`
      select ms.account_id, ms.group_id from ${memberships(view.companyId)} ms
      where ms.account_id in (${sql.join(accountIds)}) order by ms.group_id`.execute(db);
    for (const row of rows) found.set(row.account_id, [...(found.get(row.account_id) ?? []), row.group_id]);
    return found;
  }

  /** The members of each of these groups whom the view sees (usernames). */
  async function membersOfGroups(view: View, groupIds: string[]): Promise<Map<string, string[]>> {
    const found = new Map<string, string[]>();
    if (!groupIds.length) return found;
    const { rows } = await sql<{ group_id: string; username: string }>`${grantedDepartments(view)}
      select ms.group_id, a.username from ${memberships(view.companyId)} ms join accounts a on a.id = ms.account_id
      where ms.group_id in (${sql.join(groupIds)}) and ${visible(view, 'a')} order by a.username`.execute(db);
    for (const row of rows) found.set(row.group_id, [...(found.get(row.group_id) ?? []), row.username]);
    return found;
  }

  return { people, groups, groupsOfPeople, membersOfGroups };
}

export type DirectoryQueries = ReturnType<typeof createDirectoryQueries>;
