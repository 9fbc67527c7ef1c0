import type { Entry } from 'ldapts';
import type { LdapSettings } from '../identity-source.repo.ts';
import { SourceFailure } from '../source-failure.ts';
import {
  cleanEmail,
  cleanPhone,
  cleanText,
  type DirectoryPerson,
  type DirectorySnapshot,
} from '../sync/snapshot.ts';
import { assertFilter, type DirectorySession } from './ldap-client.ts';
import { readDepartments } from './ldap-departments.ts';
import { bufferAttributes, externalIdOf, text } from './ldap-entry.ts';
import { AD_ACCOUNT_DISABLED, escapeFilterValue, uniqueIdFilter } from './ldap-escape.ts';

/**
 * Reading people and departments from an LDAP or Active Directory server with a source's
 * settings: the whole directory for a sync (paged searches, RFC 2696), or one person for a
 * sign-in or the "Test user" button. Departments are decided by ldap-departments.ts.
 */

const PERSON_ATTRIBUTES = ['cn', 'displayName', 'mail', 'mobile', 'telephoneNumber', 'userAccountControl'];

const userAttributes = (settings: LdapSettings) => [
  settings.usernameAttribute,
  settings.uniqueIdAttribute,
  ...PERSON_ATTRIBUTES,
];

/**
 * The profile fields a directory owns (mapped below and kept by every sync and sign-in, even to
 * empty): the person edits only the others (their nickname and photo) in the user centre.
 */
export const DIRECTORY_PROFILE_FIELDS = ['name', 'email', 'phone'] as const;

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
  return { departments: await readDepartments(session, settings, people), people, skipped };
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
