import type { DirectoryQueries, GroupRow, PersonRow, View } from './ldap-directory.repo.ts';
import { groupClasses, LOGIN_SHELL, personClasses } from './ldap-directory.repo.ts';
import { filterMatches } from './ldap-filter-sql.ts';
import type { LdapNames, Named } from './ldap-names.ts';
import type { LdapFilter } from './ldap-wire.ts';

/**
 * Searches below a company's base: the fixed entries (the company, ou=people, ou=groups) matched
 * in memory, then people, then groups, each from SQL in id order. A position in that order is
 * what a paging cookie holds, so the next page starts where the last ended whatever changed.
 */

export type Entry = { dn: string; attributes: Record<string, string[]> };

export const SCOPE = { base: 0, one: 1, sub: 2 } as const;

type Phase = 'fixed' | 'people' | 'groups';
const PHASES: Phase[] = ['fixed', 'people', 'groups'];

export interface Position {
  phase: Phase;
  /** The last key given in that phase ('' before the first). */
  after: string;
}

export type Plan =
  | { found: false }
  | {
      found: true;
      fixed: Entry[];
      people: false | { username?: string };
      groups: false | { id?: string };
    };

const fixedEntry = (dn: string, attributes: Record<string, string[]>): Entry => ({ dn, attributes });

export function createSearch(deps: { queries: DirectoryQueries; names: LdapNames }) {
  const { queries } = deps;
  const { names } = deps.names;

  const companyEntry = (code: string) =>
    fixedEntry(names.base(code), { objectClass: ['top', 'dcObject', 'organization'], dc: [code], o: [code] });
  const unit = (dn: string, ou: string) =>
    fixedEntry(dn, { objectClass: ['top', 'organizationalUnit'], ou: [ou] });

  /** Which entries a search with this base and scope covers; found: false when the base does not exist. */
  async function plan(view: View, base: Named, scope: number): Promise<Plan> {
    const code = view.code;
    const people = unit(names.people(code), 'people');
    const groups = unit(names.groups(code), 'groups');
    const all = { username: undefined };
    switch (base.kind) {
      case 'base':
        if (scope === SCOPE.base)
          return { found: true, fixed: [companyEntry(code)], people: false, groups: false };
        if (scope === SCOPE.one)
          return { found: true, fixed: [people, groups], people: false, groups: false };
        return { found: true, fixed: [companyEntry(code), people, groups], people: all, groups: {} };
      case 'people':
        return {
          found: true,
          fixed: scope === SCOPE.one ? [] : [people],
          people: scope === SCOPE.base ? false : all,
          groups: false,
        };
      case 'groups':
        return {
          found: true,
          fixed: scope === SCOPE.one ? [] : [groups],
          people: false,
          groups: scope === SCOPE.base ? false : {},
        };
      case 'person': {
        const exists = await queries.people(view, MATCH_ALL, {
          after: '',
          limit: 1,
          username: base.username,
        });
        if (!exists.length) return { found: false };
        return {
          found: true,
          fixed: [],
          people: scope === SCOPE.one ? false : { username: base.username },
          groups: false,
        };
      }
      case 'group': {
        const exists = await queries.groups(view, MATCH_ALL, { after: '', limit: 1, id: base.id });
        if (!exists.length) return { found: false };
        return {
          found: true,
          fixed: [],
          people: false,
          groups: scope === SCOPE.one ? false : { id: base.id },
        };
      }
      default:
        return { found: false };
    }
  }

  async function personEntries(view: View, rows: PersonRow[]): Promise<Entry[]> {
    const memberOf = await queries.groupsOfPeople(
      view,
      rows.map((row) => row.id),
    );
    return rows.map((row) => {
      const name = row.display_name ?? row.username;
      const attributes: Record<string, string[]> = {
        objectClass: personClasses(view),
        uid: [row.username],
        cn: [name],
        sn: [name],
        givenName: [name],
        displayName: [name],
        entryUUID: [row.id],
      };
      if (row.email) attributes.mail = [row.email];
      if (row.phone) attributes.telephoneNumber = [row.phone];
      const groups = memberOf.get(row.id);
      if (groups?.length) attributes.memberOf = groups.map((id) => names.group(view.code, id));
      if (row.posix_number !== null) {
        attributes.uidNumber = [String(row.posix_number)];
        attributes.gidNumber = [String(row.posix_number)];
        attributes.homeDirectory = [`/home/${row.username}`];
        attributes.loginShell = [LOGIN_SHELL];
      }
      return { dn: names.person(view.code, row.username), attributes };
    });
  }

  async function groupEntries(view: View, rows: GroupRow[]): Promise<Entry[]> {
    const members = await queries.membersOfGroups(
      view,
      rows.map((row) => row.id),
    );
    return rows.map((row) => {
      const attributes: Record<string, string[]> = {
        objectClass: groupClasses(view),
        cn: [row.id, row.name],
        description: [row.kind === 'department' ? 'department' : 'permission role'],
        entryUUID: [row.id],
      };
      const people = members.get(row.id);
      if (people?.length) attributes.member = people.map((u) => names.person(view.code, u));
      if (row.posix_number !== null) {
        attributes.gidNumber = [String(row.posix_number)];
        if (people?.length) attributes.memberUid = people;
      }
      return { dn: names.group(view.code, row.id), attributes };
    });
  }

  /**
   * Up to `limit` entries from a position on; `next` is where the following page starts (null:
   * nothing follows).
   */
  async function run(
    view: View,
    planned: Extract<Plan, { found: true }>,
    filter: LdapFilter,
    from: Position,
    limit: number,
  ): Promise<{ entries: Entry[]; next: Position | null }> {
    const entries: Entry[] = [];
    for (let index = PHASES.indexOf(from.phase); index < PHASES.length; index++) {
      const phase = PHASES[index] as Phase;
      const after = phase === from.phase ? from.after : '';
      const room = limit - entries.length;
      let got: { entries: Entry[]; keys: string[]; more: boolean };
      if (phase === 'fixed') {
        const matching = planned.fixed
          .map((entry, i) => ({ entry, key: String(i).padStart(2, '0') }))
          .filter(({ entry, key }) => key > after && filterMatches(filter, entry.attributes) === true);
        const taken = matching.slice(0, room);
        got = {
          entries: taken.map((m) => m.entry),
          keys: taken.map((m) => m.key),
          more: matching.length > room,
        };
      } else if (phase === 'people' && planned.people) {
        const rows = await queries.people(view, filter, { after, limit: room + 1, ...planned.people });
        const taken = rows.slice(0, room);
        got = {
          entries: await personEntries(view, taken),
          keys: taken.map((r) => r.id),
          more: rows.length > room,
        };
      } else if (phase === 'groups' && planned.groups) {
        const rows = await queries.groups(view, filter, { after, limit: room + 1, ...planned.groups });
        const taken = rows.slice(0, room);
        got = {
          entries: await groupEntries(view, taken),
          keys: taken.map((r) => r.id),
          more: rows.length > room,
        };
      } else continue;
      entries.push(...got.entries);
      if (got.more) return { entries, next: { phase, after: got.keys.at(-1) ?? after } };
      if (entries.length >= limit) {
        const last = PHASES.indexOf(phase) + 1;
        return { entries, next: last < PHASES.length ? { phase: PHASES[last] as Phase, after: '' } : null };
      }
    }
    return { entries, next: null };
  }

  return { plan, run };
}

/** `(objectClass=*)`, for checking that a base entry exists. */
const MATCH_ALL: LdapFilter = {
  type: 'PresenceFilter',
  attribute: 'objectClass',
  matches: () => true,
};

export type Search = ReturnType<typeof createSearch>;
