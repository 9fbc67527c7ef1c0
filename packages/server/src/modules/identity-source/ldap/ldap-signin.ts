import { USERNAME_PATTERN } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import type { Account } from '../../../db/schema.ts';
import type { Sealer } from '../../../lib/crypto.ts';
import type { QuotaService } from '../../license/quota.service.ts';
import type { DirectoryCheck, DirectoryVerifier } from '../../signin/signin.service.ts';
import { isFullyManaged } from '../../user/user-authority.ts';
import * as repo from '../identity-source.repo.ts';
import { SourceFailure } from '../source-failure.ts';
import { secretPurpose } from '../source-settings.ts';
import type { DirectoryPerson } from '../sync/snapshot.ts';
import { createLinkedPeople } from '../sync/sync-apply.ts';
import { findIdentifierOwners, ownsSignInName } from '../sync/sync-state.ts';
import { type DirectoryOptions, type DirectorySession, withDirectory } from './ldap-client.ts';
import { readDepartmentsOfPerson } from './ldap-departments.ts';
import { findPersonByExternalId, findPersonByUsername, readOwnEntry } from './ldap-directory.ts';
import { userDnFromTemplate } from './ldap-escape.ts';
import { ldapConnectionOf } from './ldap-tests.ts';

/**
 * The directory's side of a password sign-in (the verifier hook of signin.service.ts).
 * - A person linked to an LDAP source: their entry is found again by its unique identifier and
 *   the password is checked by binding as it; the local account has no password of its own, so
 *   a directory person is never let in with a stale one. Then name, email, phone and
 *   departments are refreshed from the entry, departments by the sync's own rule
 *   (ldap-departments.ts), so that a sign-in right after a sync changes none of them.
 * - An identifier no account has, signing in to an application of a company: the company's own
 *   enabled LDAP sources are asked, in order, until one knows the username; binding as that
 *   entry creates the person in that company, linked by the unique identifier. No other
 *   company's directory is ever asked, nor given the password.
 * A directory that does not answer is `directory_unavailable`; nothing else is tried then.
 */

/** `departments` undefined: the directory did not say (they are then left as they are). */
type Found = { person: DirectoryPerson; departments: string[] | undefined };

const UNAVAILABLE = new Set([
  'ldap.host_unreachable',
  'ldap.timeout',
  'ldap.tls_failed',
  'ldap.tls_untrusted',
  'ldap.tls_expired',
  'ldap.tls_hostname',
]);

export function createDirectorySignIn(deps: {
  db: Db;
  sealer: Sealer;
  quotas: Pick<QuotaService, 'takePlaces'>;
  directory: DirectoryOptions;
}): DirectoryVerifier {
  const { db, sealer } = deps;

  const connectionOf = (source: repo.SourceRow<'ldap'>) =>
    ldapConnectionOf(
      source.settings,
      source.secret_sealed ? sealer.open(source.secret_sealed, secretPurpose(source.id)) : null,
    );

  /** Runs `work` against the source's directory; a directory failure is `directory_unavailable`. */
  async function ask<T>(
    source: repo.SourceRow<'ldap'>,
    asPerson: boolean,
    work: (session: DirectorySession) => Promise<T>,
  ) {
    const connection = connectionOf(source);
    try {
      return await withDirectory(
        asPerson ? { ...connection, bindDn: null } : connection,
        work,
        deps.directory,
      );
    } catch (error) {
      if (
        error instanceof SourceFailure &&
        !UNAVAILABLE.has(error.reason) &&
        error.reason !== 'ldap.invalid_credentials'
      )
        throw error;
      return 'unavailable' as const;
    }
  }

  /** Binds as the entry; the departments are read before (as the service account) or after (as the person). */
  async function bindAndRead(
    session: DirectorySession,
    source: repo.SourceRow<'ldap'>,
    who: { username: string } | { externalId: string },
    password: string,
  ): Promise<Found | 'wrong' | 'unknown'> {
    const settings = source.settings;
    if (settings.userDnTemplate) {
      const username = 'username' in who ? who.username : '';
      if (!username) return 'unknown';
      const dn = userDnFromTemplate(settings.userDnTemplate, username);
      if (!(await session.bindAs(dn, password))) return 'wrong';
      const person = await readOwnEntry(session, settings, dn);
      if (!person) return 'unknown';
      // The person may not be allowed to read their groups or unit: then nothing is known of them.
      const departments = await readDepartmentsOfPerson(session, settings, person).catch(() => undefined);
      return { person, departments: departments?.map((d) => d.externalId) };
    }
    const person =
      'username' in who
        ? (await findPersonByUsername(session, settings, who.username)).person
        : await findPersonByExternalId(session, settings, who.externalId);
    if (!person?.dn) return 'unknown';
    const departments = (await readDepartmentsOfPerson(session, settings, person)).map((d) => d.externalId);
    return (await session.bindAs(person.dn, password)) ? { person, departments } : 'wrong';
  }

  /** The company's departments that the source maintains for these external ids. */
  async function departmentIdsOf(sourceId: string, externalIds: string[]) {
    if (!externalIds.length) return new Map<string, string>();
    const rows = await db
      .selectFrom('identity_source_departments')
      .select(['external_id', 'department_id'])
      .where('source_id', '=', sourceId)
      .where('external_id', 'in', externalIds)
      .execute();
    return new Map(rows.map((row) => [row.external_id, row.department_id]));
  }

  /** The source's departments to give the person and to take from them; none when the directory did not say. */
  async function departmentChanges(accountId: string, link: repo.LinkRow, departments: string[] | undefined) {
    if (!departments) return { add: [], remove: [] };
    const wanted = new Set((await departmentIdsOf(link.source_id, departments)).values());
    const current = await db
      .selectFrom('department_members as dm')
      .innerJoin('identity_source_departments as s', 's.department_id', 'dm.department_id')
      .select('dm.department_id')
      .where('s.source_id', '=', link.source_id)
      .where('dm.account_id', '=', accountId)
      .where('dm.company_id', '=', link.company_id)
      .execute();
    const have = new Set(current.map((row) => row.department_id));
    return {
      add: [...wanted].filter((id) => !have.has(id)),
      remove: [...have].filter((id) => !wanted.has(id)),
    };
  }

  /** Brings the person up to date with their entry: profile (when the company manages it), link, departments. */
  async function refresh(account: Account, link: repo.LinkRow, found: Found) {
    const { person } = found;
    const companyId = link.company_id;
    const set: { display_name?: string | null; email?: string | null; phone?: string | null } = {};
    if ((account.display_name ?? null) !== person.name) set.display_name = person.name;
    const owners = await findIdentifierOwners(db, companyId, {
      usernames: [],
      emails: person.email && person.email !== account.email ? [person.email] : [],
      phones: person.phone && person.phone !== account.phone ? [person.phone] : [],
    });
    // An email or phone someone else has (as their email or username) stays as it was (the sync reports it).
    if (
      (account.email ?? null) !== person.email &&
      !owners.some((o) => o.id !== account.id && ownsSignInName(o, person.email))
    )
      set.email = person.email;
    if ((account.phone ?? null) !== person.phone && !owners.some((o) => o.phone === person.phone))
      set.phone = person.phone;
    const { add, remove } = await departmentChanges(account.id, link, found.departments);
    const relink = link.external_dn !== person.dn || link.external_name !== person.username;
    const managed = Object.keys(set).length > 0 && (await isFullyManaged(db, companyId, account.id));
    if (!managed && !add.length && !remove.length && !relink) return;
    await db.transaction().execute(async (trx) => {
      if (managed) await trx.updateTable('accounts').set(set).where('id', '=', account.id).execute();
      if (remove.length)
        await trx
          .deleteFrom('department_members')
          .where('company_id', '=', companyId)
          .where('account_id', '=', account.id)
          .where('department_id', 'in', remove)
          .execute();
      if (add.length)
        await trx
          .insertInto('department_members')
          .values(
            add.map((departmentId) => ({
              department_id: departmentId,
              company_id: companyId,
              account_id: account.id,
            })),
          )
          .onConflict((oc) => oc.columns(['department_id', 'account_id']).doNothing())
          .execute();
      if (relink)
        await trx
          .updateTable('identity_links')
          .set({ external_dn: person.dn, external_name: person.username, updated_at: sql<Date>`now()` })
          .where('source_id', '=', link.source_id)
          .where('account_id', '=', account.id)
          .execute();
    });
  }

  const verifyLinked: DirectoryVerifier['verifyLinked'] = async (account, sourceId, password) => {
    const source = await repo.findSourceById(db, sourceId);
    const link = source && (await repo.findLinkOfAccount(db, source.id, account.id));
    if (source?.type !== 'ldap' || !link) return { ok: false, cause: 'wrong_password' };
    if (!source.enabled) return { ok: false, cause: 'source_disabled' };
    const who = source.settings.userDnTemplate
      ? { username: link.external_name ?? '' }
      : { externalId: link.external_id };
    const found = await ask(source, Boolean(source.settings.userDnTemplate), (session) =>
      bindAndRead(session, source, who, password),
    );
    if (found === 'unavailable') return { ok: false, cause: 'directory_unavailable' };
    // Gone from the directory (or another entry now has the name): the sync disables them; no sign-in.
    if (found === 'wrong' || found === 'unknown' || found.person.externalId !== link.external_id)
      return { ok: false, cause: 'wrong_password' };
    if (found.person.disabled) return { ok: false, cause: 'account_disabled' };
    await refresh(account, link, found);
    return { ok: true, skipMfa: source.settings.skipMfa };
  };

  /** Creates the person a directory vouched for, in the source's company. */
  async function createPerson(source: repo.SourceRow<'ldap'>, found: Found): Promise<DirectoryCheck> {
    const { person } = found;
    if (!USERNAME_PATTERN.test(person.username) || person.username.length > 64)
      return { ok: false, cause: 'directory_conflict' };
    const owners = await findIdentifierOwners(db, source.company_id, {
      usernames: [person.username],
      emails: person.email ? [person.email] : [],
      phones: person.phone ? [person.phone] : [],
    });
    if (owners.some((o) => ownsSignInName(o, person.username)))
      return { ok: false, cause: 'directory_conflict' };
    const fresh = {
      ...person,
      // Someone else's email or phone is left out rather than refusing the person (the sync reports it).
      email: owners.some((o) => ownsSignInName(o, person.email)) ? null : person.email,
      phone: owners.some((o) => o.phone === person.phone) ? null : person.phone,
      departmentExternalIds: found.departments ?? [],
    };
    try {
      await createLinkedPeople(
        { db, quotas: deps.quotas, companyId: source.company_id, sourceId: source.id },
        [fresh],
        await departmentIdsOf(source.id, found.departments ?? []),
      );
    } catch {
      // A quota that is full, or a parallel sign-in that created the same person: nobody is let in here.
      return { ok: false, cause: 'directory_conflict' };
    }
    const link = await repo.findLinkByExternalId(db, source.id, person.externalId);
    return link
      ? { ok: true, skipMfa: source.settings.skipMfa, accountId: link.account_id }
      : { ok: false, cause: 'directory_conflict' };
  }

  const firstSignIn: DirectoryVerifier['firstSignIn'] = async (companyId, identifier, password) => {
    let unavailable = false;
    for (const source of (await repo.findEnabledSources(db, companyId, [
      'ldap',
    ])) as repo.SourceRow<'ldap'>[]) {
      const found = await ask(source, Boolean(source.settings.userDnTemplate), (session) =>
        bindAndRead(session, source, { username: identifier }, password),
      );
      if (found === 'unavailable') {
        unavailable = true;
        continue;
      }
      if (found === 'unknown') continue;
      // The first directory that knows the username decides; the password goes to no other.
      if (found === 'wrong') return { ok: false, cause: 'wrong_password' };
      if (found.person.disabled) return { ok: false, cause: 'account_disabled' };
      const existing = await repo.findLinkByExternalId(db, source.id, found.person.externalId);
      if (existing) return { ok: true, skipMfa: source.settings.skipMfa, accountId: existing.account_id };
      return createPerson(source, found);
    }
    return unavailable ? { ok: false, cause: 'directory_unavailable' } : undefined;
  };

  return { verifyLinked, firstSignIn };
}
