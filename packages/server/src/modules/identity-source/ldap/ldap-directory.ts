import type { Entry } from 'ldapts';
import type { LdapSettings } from '../identity-source.repo.ts';
import { SourceFailure } from '../source-failure.ts';
import {
  cleanEmail,
  cleanPhone,
  cleanText,
  type DirectoryDepartment,
  type DirectoryPerson,
  type DirectorySnapshot,
} from '../sync/snapshot.ts';
import { assertFilter, type DirectorySession } from './ldap-client.ts';
import {
  AD_ACCOUNT_DISABLED,
  BINARY_ID_ATTRIBUTES,
  escapeFilterValue,
  guidFromBytes,
  uniqueIdFilter,
} from './ldap-escape.ts';

/**
 * Reading people and departments from an LDAP or Active Directory server with a source's
 * settings: the whole directory for a sync (paged searches, RFC 2696), or one person for a
 * sign-in or the "Test user" button. Departments are the groups under the group root DN (nested
 * through their membership attribute), or, without a group root DN, the organisational units
 * under the user root DN.
 */

const PERSON_ATTRIBUTES = ['cn', 'displayName', 'mail', 'mobile', 'telephoneNumber', 'userAccountControl'];

/** A DN compared the way directories do for our purposes: lower case, no spaces around separators. */
export const normaliseDn = (dn: string) =>
  dn
    .trim()
    .replace(/\s*([,=+])\s*/g, '$1')
    .toLowerCase();

function first(entry: Entry, attribute: string): string | Buffer | undefined {
  const key = Object.keys(entry).find((name) => name.toLowerCase() === attribute.toLowerCase());
  const value = key ? entry[key] : undefined;
  const one = Array.isArray(value) ? value[0] : value;
  return one === undefined ? undefined : (one as string | Buffer);
}

function all(entry: Entry, attribute: string): string[] {
  const key = Object.keys(entry).find((name) => name.toLowerCase() === attribute.toLowerCase());
  const value = key ? entry[key] : undefined;
  const values = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return values.map((v) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v)));
}

const text = (entry: Entry, attribute: string): string | undefined => {
  const value = first(entry, attribute);
  return value === undefined ? undefined : Buffer.isBuffer(value) ? value.toString('utf8') : value;
};

/** The unique identifier of an entry as stored: a GUID string for objectGUID, else the text. */
export function externalIdOf(entry: Entry, attribute: string): string | undefined {
  const value = first(entry, attribute);
  if (value === undefined) return undefined;
  if (BINARY_ID_ATTRIBUTES.has(attribute.toLowerCase()))
    return Buffer.isBuffer(value) ? guidFromBytes(value) : guidFromBytes(Buffer.from(value, 'binary'));
  return (Buffer.isBuffer(value) ? value.toString('utf8') : value).trim() || undefined;
}

const bufferAttributes = (settings: LdapSettings) =>
  BINARY_ID_ATTRIBUTES.has(settings.uniqueIdAttribute.toLowerCase()) ? [settings.uniqueIdAttribute] : [];

const userAttributes = (settings: LdapSettings) => [
  settings.usernameAttribute,
  settings.uniqueIdAttribute,
  ...PERSON_ATTRIBUTES,
];

/** A person as mapped from an entry (departments are filled in by the caller). */
export function personOf(entry: Entry, settings: LdapSettings): DirectoryPerson | undefined {
  const username = text(entry, settings.usernameAttribute)?.trim();
  const externalId = externalIdOf(entry, settings.uniqueIdAttribute);
  if (!username || !externalId) return undefined;
  const control = Number(text(entry, 'userAccountControl') ?? 0);
  return {
    externalId,
    username,
    name: cleanText(text(entry, 'displayName') ?? text(entry, 'cn')),
    email: cleanEmail(text(entry, 'mail')),
    phone: cleanPhone(text(entry, 'mobile') ?? text(entry, 'telephoneNumber')),
    dn: entry.dn,
    departmentExternalIds: [],
    disabled: Number.isFinite(control) && (control & AD_ACCOUNT_DISABLED) !== 0,
  };
}

/** Checks the filters before anything is sent (an invalid one is refused with its own reason). */
export function assertSettingsFilters(settings: LdapSettings): void {
  assertFilter(settings.userFilter);
  if (settings.groupFilter) assertFilter(settings.groupFilter);
}

const groupFilterOf = (settings: LdapSettings) =>
  settings.groupFilter ?? '(|(objectClass=groupOfNames)(objectClass=groupOfUniqueNames)(objectClass=group))';

/** The groups (or units) of the directory as departments, and who is directly in which. */
async function readGroups(
  session: DirectorySession,
  settings: LdapSettings,
  peopleByDn: Map<string, DirectoryPerson>,
) {
  const membership = settings.membershipAttribute ?? 'member';
  const nameAttribute = settings.groupIdAttribute ?? 'cn';
  const entries = await session.search(settings.groupRootDn as string, {
    scope: 'sub',
    filter: groupFilterOf(settings),
    attributes: [nameAttribute, membership, settings.uniqueIdAttribute],
    explicitBufferAttributes: bufferAttributes(settings),
    paged: true,
  });
  const peopleByUsername = new Map([...peopleByDn.values()].map((p) => [p.username.toLowerCase(), p]));
  const groupIdByDn = new Map<string, string>();
  for (const entry of entries)
    groupIdByDn.set(
      normaliseDn(entry.dn),
      externalIdOf(entry, settings.uniqueIdAttribute) ?? normaliseDn(entry.dn),
    );
  const parents = new Map<string, string>();
  // Sorted by DN, so that a group listed by two groups gets the same parent on every run.
  for (const entry of [...entries].sort((a, b) => normaliseDn(a.dn).localeCompare(normaliseDn(b.dn)))) {
    const groupId = groupIdByDn.get(normaliseDn(entry.dn)) as string;
    for (const value of all(entry, membership)) {
      const child = value.includes('=') ? groupIdByDn.get(normaliseDn(value)) : undefined;
      if (child && child !== groupId && !parents.has(child)) parents.set(child, groupId);
      const person = value.includes('=')
        ? peopleByDn.get(normaliseDn(value))
        : peopleByUsername.get(value.trim().toLowerCase());
      if (person && !person.departmentExternalIds.includes(groupId))
        person.departmentExternalIds.push(groupId);
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
  return entries.map((entry): DirectoryDepartment => {
    const externalId = groupIdByDn.get(normaliseDn(entry.dn)) as string;
    return {
      externalId,
      name: cleanText(text(entry, nameAttribute)) ?? entry.dn.split(',')[0]?.split('=')[1] ?? externalId,
      parentExternalId: parents.get(externalId) ?? null,
    };
  });
}

/** Without a group root DN: the organisational units under the user root DN, each person in the unit holding it. */
async function readUnits(session: DirectorySession, settings: LdapSettings, people: DirectoryPerson[]) {
  const entries = await session.search(settings.userRootDn, {
    scope: 'sub',
    filter: '(|(objectClass=organizationalUnit)(objectClass=container))',
    attributes: ['ou', 'cn', settings.uniqueIdAttribute],
    explicitBufferAttributes: bufferAttributes(settings),
    paged: true,
  });
  const root = normaliseDn(settings.userRootDn);
  const idByDn = new Map<string, string>();
  for (const entry of entries) {
    const dn = normaliseDn(entry.dn);
    if (dn !== root) idByDn.set(dn, externalIdOf(entry, settings.uniqueIdAttribute) ?? dn);
  }
  const parentDn = (dn: string) => dn.slice(dn.indexOf(',') + 1);
  for (const person of people) {
    const unit = idByDn.get(parentDn(normaliseDn(person.dn ?? '')));
    if (unit) person.departmentExternalIds.push(unit);
  }
  return entries
    .filter((entry) => idByDn.has(normaliseDn(entry.dn)))
    .map(
      (entry): DirectoryDepartment => ({
        externalId: idByDn.get(normaliseDn(entry.dn)) as string,
        name: cleanText(text(entry, 'ou') ?? text(entry, 'cn')) ?? entry.dn,
        parentExternalId: idByDn.get(parentDn(normaliseDn(entry.dn))) ?? null,
      }),
    );
}

/** Everything a sync needs: the people matching the user filter and the department tree. */
export async function readDirectory(
  session: DirectorySession,
  settings: LdapSettings,
): Promise<DirectorySnapshot> {
  assertSettingsFilters(settings);
  const entries = await session.search(settings.userRootDn, {
    scope: 'sub',
    filter: settings.userFilter,
    attributes: userAttributes(settings),
    explicitBufferAttributes: bufferAttributes(settings),
    paged: true,
  });
  const skipped: DirectorySnapshot['skipped'] = [];
  const people: DirectoryPerson[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const person = personOf(entry, settings);
    if (!person) {
      skipped.push({ externalId: null, label: entry.dn, reason: 'missing_attribute' });
      continue;
    }
    if (seen.has(person.externalId)) {
      skipped.push({ externalId: person.externalId, label: entry.dn, reason: 'duplicate' });
      continue;
    }
    seen.add(person.externalId);
    people.push(person);
  }
  const peopleByDn = new Map(people.map((p) => [normaliseDn(p.dn ?? ''), p]));
  const departments = settings.groupRootDn
    ? await readGroups(session, settings, peopleByDn)
    : await readUnits(session, settings, people);
  return { departments, people, skipped };
}

/** The names of the groups (under the group root DN) that list the person directly. */
export async function groupNamesOf(
  session: DirectorySession,
  settings: LdapSettings,
  person: DirectoryPerson,
) {
  if (!settings.groupRootDn) return [];
  const membership = settings.membershipAttribute ?? 'member';
  const value = membership.toLowerCase() === 'memberuid' ? person.username : (person.dn ?? '');
  const entries = await session.search(settings.groupRootDn, {
    scope: 'sub',
    filter: `(&${groupFilterOf(settings)}(${membership}=${escapeFilterValue(value)}))`,
    attributes: [settings.groupIdAttribute ?? 'cn', settings.uniqueIdAttribute],
    explicitBufferAttributes: bufferAttributes(settings),
  });
  return entries.map((entry) => ({
    externalId: externalIdOf(entry, settings.uniqueIdAttribute) ?? normaliseDn(entry.dn),
    name: text(entry, settings.groupIdAttribute ?? 'cn') ?? entry.dn,
  }));
}

/**
 * The one entry the username names under the user root DN and the user filter (the username is
 * escaped per RFC 4515: an injection finds nobody); undefined when none does, or when several do.
 */
export async function findPersonByUsername(
  session: DirectorySession,
  settings: LdapSettings,
  username: string,
): Promise<{ person?: DirectoryPerson; matches: number }> {
  const entries = await session.search(settings.userRootDn, {
    scope: 'sub',
    filter: `(&${settings.userFilter}(${settings.usernameAttribute}=${escapeFilterValue(username)}))`,
    attributes: userAttributes(settings),
    explicitBufferAttributes: bufferAttributes(settings),
  });
  if (entries.length !== 1) return { matches: entries.length };
  return { person: personOf(entries[0] as Entry, settings), matches: 1 };
}

/** The entry a link names, by its unique identifier (a renamed or moved entry is still found). */
export async function findPersonByExternalId(
  session: DirectorySession,
  settings: LdapSettings,
  externalId: string,
): Promise<DirectoryPerson | undefined> {
  const filter = uniqueIdFilter(settings.userFilter, settings.uniqueIdAttribute, externalId);
  if (!filter) return undefined;
  const entries = await session.search(settings.userRootDn, {
    scope: 'sub',
    filter,
    attributes: userAttributes(settings),
    explicitBufferAttributes: bufferAttributes(settings),
  });
  return entries.length === 1 ? personOf(entries[0] as Entry, settings) : undefined;
}

/** A person's own entry, read right after binding as them (the user DN template). */
export async function readOwnEntry(session: DirectorySession, settings: LdapSettings, dn: string) {
  const entries = await session.search(dn, {
    scope: 'base',
    filter: settings.userFilter,
    attributes: userAttributes(settings),
    explicitBufferAttributes: bufferAttributes(settings),
  });
  return entries.length === 1 ? personOf(entries[0] as Entry, settings) : undefined;
}

/** Checks that a base DN exists (a base-scope read). */
export async function assertBaseExists(session: DirectorySession, dn: string): Promise<void> {
  const entries = await session.search(dn, { scope: 'base', filter: '(objectClass=*)', attributes: ['1.1'] });
  if (!entries.length) throw new SourceFailure('ldap.base_dn_not_found', { dn });
}
