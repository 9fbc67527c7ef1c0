import type { Entry } from 'ldapts';
import type { LdapSettings } from '../identity-source.repo.ts';
import { cleanText, type DirectoryDepartment, type DirectoryPerson } from '../sync/snapshot.ts';
import type { DirectorySession } from './ldap-client.ts';
import { all, bufferAttributes, externalIdOf, normaliseDn, parentDn, text } from './ldap-entry.ts';
import { escapeFilterValue } from './ldap-escape.ts';

/**
 * A directory person's departments, for the sync and for the refresh at sign-in alike. With a
 * group root DN, they are the groups under it (matching the group filter) that list the person
 * directly in their membership attribute, by DN or, for values that are no DN (memberUid), by
 * username. Without one, it is the organisational unit (or container) holding the person's
 * entry, unless that is the user root DN itself. `departmentsOfPerson` is that rule; the sync
 * applies it to the whole directory, a sign-in to what the directory says about one person.
 */

/** What has been read of the directory's departments: enough to apply the rule to some people. */
export interface DepartmentIndex {
  /** Normalised DN of a unit → its department's external id (units layout). */
  unitByDn: Map<string, string>;
  /** A membership value (see `memberKey`) → the external ids of the groups listing it (groups layout). */
  groupsByMember: Map<string, string[]>;
}

export const UNIT_FILTER = '(|(objectClass=organizationalUnit)(objectClass=container))';

const groupFilterOf = (settings: LdapSettings) =>
  settings.groupFilter ?? '(|(objectClass=groupOfNames)(objectClass=groupOfUniqueNames)(objectClass=group))';
const membershipOf = (settings: LdapSettings) => settings.membershipAttribute ?? 'member';
const groupNameAttribute = (settings: LdapSettings) => settings.groupIdAttribute ?? 'cn';

/** How a membership value is compared: a DN as directories compare DNs, a username without case. */
const memberKey = (value: string) =>
  value.includes('=') ? `dn:${normaliseDn(value)}` : `name:${value.trim().toLowerCase()}`;

const groupIdOf = (entry: Entry, settings: LdapSettings) =>
  externalIdOf(entry, settings.uniqueIdAttribute) ?? normaliseDn(entry.dn);
const groupNameOf = (entry: Entry, settings: LdapSettings, id: string) =>
  cleanText(text(entry, groupNameAttribute(settings))) ?? entry.dn.split(',')[0]?.split('=')[1] ?? id;
const unitIdOf = (entry: Entry, settings: LdapSettings) =>
  externalIdOf(entry, settings.uniqueIdAttribute) ?? normaliseDn(entry.dn);
const unitNameOf = (entry: Entry) => cleanText(text(entry, 'ou') ?? text(entry, 'cn')) ?? entry.dn;

/** The unit whose department holds a person: the entry's parent, never the user root DN. */
function unitDnOf(person: DirectoryPerson, settings: LdapSettings): string | undefined {
  const unit = parentDn(normaliseDn(person.dn ?? ''));
  const root = normaliseDn(settings.userRootDn);
  return unit && unit !== root && unit.endsWith(`,${root}`) ? unit : undefined;
}

/** The one rule: the external ids of the departments that hold `person`, as far as `index` knows them. */
export function departmentsOfPerson(
  person: DirectoryPerson,
  settings: LdapSettings,
  index: DepartmentIndex,
): string[] {
  if (!settings.groupRootDn) {
    const unit = unitDnOf(person, settings);
    const id = unit === undefined ? undefined : index.unitByDn.get(unit);
    return id ? [id] : [];
  }
  const keys = [...(person.dn ? [memberKey(person.dn)] : []), memberKey(person.username)];
  return [...new Set(keys.flatMap((key) => index.groupsByMember.get(key) ?? []))];
}

/** Every group under the group root DN as a department (nested through membership), and who they list. */
async function readGroups(session: DirectorySession, settings: LdapSettings) {
  const membership = membershipOf(settings);
  const entries = await session.search(settings.groupRootDn as string, {
    scope: 'sub',
    filter: groupFilterOf(settings),
    attributes: [groupNameAttribute(settings), membership, settings.uniqueIdAttribute],
    explicitBufferAttributes: bufferAttributes(settings),
    paged: true,
  });
  const index: DepartmentIndex = { unitByDn: new Map(), groupsByMember: new Map() };
  const groupIdByDn = new Map<string, string>();
  for (const entry of entries) groupIdByDn.set(normaliseDn(entry.dn), groupIdOf(entry, settings));
  const parents = new Map<string, string>();
  // Sorted by DN, so that a group listed by two groups gets the same parent on every run.
  for (const entry of [...entries].sort((a, b) => normaliseDn(a.dn).localeCompare(normaliseDn(b.dn)))) {
    const groupId = groupIdByDn.get(normaliseDn(entry.dn)) as string;
    for (const value of all(entry, membership)) {
      const child = value.includes('=') ? groupIdByDn.get(normaliseDn(value)) : undefined;
      if (child && child !== groupId && !parents.has(child)) parents.set(child, groupId);
      const key = memberKey(value);
      const listed = index.groupsByMember.get(key) ?? [];
      if (!listed.includes(groupId)) index.groupsByMember.set(key, [...listed, groupId]);
    }
  }
  // A membership cycle (a group inside its own member): the cycle is cut where it closes.
  for (const start of parents.keys()) {
    const seen = new Set([start]);
    for (let at = parents.get(start); at; at = parents.get(at)) {
      if (seen.has(at)) {
        parents.delete(at);
        break;
      }
      seen.add(at);
    }
  }
  const departments = entries.map((entry): DirectoryDepartment => {
    const externalId = groupIdByDn.get(normaliseDn(entry.dn)) as string;
    return {
      externalId,
      name: groupNameOf(entry, settings, externalId),
      parentExternalId: parents.get(externalId) ?? null,
    };
  });
  return { departments, index };
}

/** Every organisational unit under the user root DN (not the root itself) as a department. */
async function readUnits(session: DirectorySession, settings: LdapSettings) {
  const entries = await session.search(settings.userRootDn, {
    scope: 'sub',
    filter: UNIT_FILTER,
    attributes: ['ou', 'cn', settings.uniqueIdAttribute],
    explicitBufferAttributes: bufferAttributes(settings),
    paged: true,
  });
  const root = normaliseDn(settings.userRootDn);
  const index: DepartmentIndex = { unitByDn: new Map(), groupsByMember: new Map() };
  const units = entries.filter((entry) => normaliseDn(entry.dn) !== root);
  for (const entry of units) index.unitByDn.set(normaliseDn(entry.dn), unitIdOf(entry, settings));
  const departments = units.map(
    (entry): DirectoryDepartment => ({
      externalId: index.unitByDn.get(normaliseDn(entry.dn)) as string,
      name: unitNameOf(entry),
      parentExternalId: index.unitByDn.get(parentDn(normaliseDn(entry.dn))) ?? null,
    }),
  );
  return { departments, index };
}

/** For a sync: the whole department tree, and each person's departments filled in by the rule. */
export async function readDepartments(
  session: DirectorySession,
  settings: LdapSettings,
  people: DirectoryPerson[],
): Promise<DirectoryDepartment[]> {
  const { departments, index } = settings.groupRootDn
    ? await readGroups(session, settings)
    : await readUnits(session, settings);
  for (const person of people) person.departmentExternalIds = departmentsOfPerson(person, settings, index);
  return departments;
}

/**
 * For a sign-in or the "Test user" button: the departments of one person, reading only the
 * groups that list them (a search on the membership attribute) or the unit holding their entry.
 */
export async function readDepartmentsOfPerson(
  session: DirectorySession,
  settings: LdapSettings,
  person: DirectoryPerson,
): Promise<{ externalId: string; name: string }[]> {
  const index: DepartmentIndex = { unitByDn: new Map(), groupsByMember: new Map() };
  const names = new Map<string, string>();
  if (!settings.groupRootDn) {
    if (!unitDnOf(person, settings)) return [];
    const entries = await session.search(parentDn(person.dn ?? ''), {
      scope: 'base',
      filter: UNIT_FILTER,
      attributes: ['ou', 'cn', settings.uniqueIdAttribute],
      explicitBufferAttributes: bufferAttributes(settings),
    });
    for (const entry of entries) {
      const id = unitIdOf(entry, settings);
      index.unitByDn.set(normaliseDn(entry.dn), id);
      names.set(id, unitNameOf(entry));
    }
  } else {
    const membership = membershipOf(settings);
    // The value a group holds for the person: their username for memberUid, else their DN.
    const value = membership.toLowerCase() === 'memberuid' ? person.username : (person.dn ?? '');
    const entries = await session.search(settings.groupRootDn, {
      scope: 'sub',
      filter: `(&${groupFilterOf(settings)}(${membership}=${escapeFilterValue(value)}))`,
      attributes: [groupNameAttribute(settings), settings.uniqueIdAttribute],
      explicitBufferAttributes: bufferAttributes(settings),
    });
    const ids = entries.map((entry) => {
      const id = groupIdOf(entry, settings);
      names.set(id, groupNameOf(entry, settings, id));
      return id;
    });
    index.groupsByMember.set(memberKey(value), ids);
  }
  return departmentsOfPerson(person, settings, index).map((externalId) => ({
    externalId,
    name: names.get(externalId) ?? externalId,
  }));
}
