import { type identitySource as calls, interpolate, type Language, serverPhrases } from '@tessera/contract';
import type { z } from 'zod';
import type { Db } from '../../../db/database.ts';
import { translateError } from '../../../lib/i18n.ts';
import * as repo from '../identity-source.repo.ts';
import type { IdentitySourceService } from '../identity-source.service.ts';
import { SourceFailure } from '../source-failure.ts';
import { fieldError } from '../source-settings.ts';
import { type DirectoryOptions, type LdapConnection, withDirectory } from './ldap-client.ts';
import { readDepartmentsOfPerson } from './ldap-departments.ts';
import { assertBaseExists, findPersonByUsername, readOwnEntry } from './ldap-directory.ts';
import { userDnFromTemplate } from './ldap-escape.ts';
import { assertLdapSettings, bindTargetChanged } from './ldap-settings.ts';

/**
 * "Test connection" and "Test user" of the LDAP screen, with the form's settings as they are
 * (saved or not). A stored bind password is used only for the server and bind DN it was given
 * for. Each test reaches a server an administrator names, so a company has a budget of them.
 */

type TestInput = z.output<typeof calls.testLdapConnection.request>;

export const ldapConnectionOf = (settings: repo.LdapSettings, password: string | null): LdapConnection => ({
  url: settings.url,
  startTls: settings.startTls,
  verifyCertificate: settings.verifyCertificate,
  caCertificate: settings.caCertificate ?? null,
  bindDn: settings.bindDn ?? null,
  bindPassword: password,
});

const tlsOf = (lang: Language, settings: repo.LdapSettings) =>
  settings.url.startsWith('ldaps:')
    ? 'ldaps'
    : settings.startTls
      ? 'StartTLS'
      : serverPhrases[lang].sourceTests.tlsNone;

export function createLdapTests(deps: {
  db: Db;
  sources: Pick<IdentitySourceService, 'openSecret' | 'spendTest'>;
  directory: DirectoryOptions;
}) {
  const { db } = deps;

  async function prepare(companyId: string, lang: Language, input: TestInput) {
    const { name, enabled, bindPassword, syncIntervalMinutes, ...settings } = input.settings;
    void name;
    void enabled;
    void syncIntervalMinutes;
    assertLdapSettings(lang, settings, 'settings.');
    let password: string | null = bindPassword || null;
    if (!password && settings.bindDn && input.sourceId) {
      const stored = await repo.findSource(db, companyId, input.sourceId);
      if (stored?.type === 'ldap' && !bindTargetChanged(stored.settings, settings))
        password = deps.sources.openSecret(stored);
    }
    if (settings.bindDn && !password)
      throw fieldError(lang, 'settings.bindPassword', 'ldap.bind_password_required');
    await deps.sources.spendTest(companyId);
    return { settings, connection: ldapConnectionOf(settings, password) };
  }

  const failed = (lang: Language, error: unknown) => {
    if (!(error instanceof SourceFailure)) throw error;
    return { ok: false, reason: error.reason, message: translateError(lang, error.reason, error.params) };
  };

  async function testConnection(companyId: string, lang: Language, input: TestInput) {
    const { settings, connection } = await prepare(companyId, lang, input);
    try {
      const groupRootFound = await withDirectory(
        connection,
        async (session) => {
          await assertBaseExists(session, settings.userRootDn);
          if (!settings.groupRootDn) return null;
          await assertBaseExists(session, settings.groupRootDn);
          return true;
        },
        deps.directory,
      );
      const t = serverPhrases[lang].sourceTests;
      const tls = tlsOf(lang, settings);
      return {
        ok: true,
        reason: null,
        message: interpolate(groupRootFound ? t.connectionOkGroups : t.connectionOk, { tls }),
        details: { userRootFound: true, groupRootFound, tls },
      };
    } catch (error) {
      return { ...failed(lang, error), details: null };
    }
  }

  async function testUser(
    companyId: string,
    lang: Language,
    input: TestInput & { testUsername: string; testPassword: string },
  ) {
    const { settings, connection } = await prepare(companyId, lang, input);
    try {
      const person = await withDirectory(
        settings.userDnTemplate ? { ...connection, bindDn: null } : connection,
        async (session) => {
          if (settings.userDnTemplate) {
            const dn = userDnFromTemplate(settings.userDnTemplate, input.testUsername);
            if (!(await session.bindAs(dn, input.testPassword)))
              throw new SourceFailure('ldap.user_password_wrong');
            const found = await readOwnEntry(session, settings, dn);
            if (!found) throw new SourceFailure('ldap.user_not_found');
            return {
              ...found,
              departments: (await readDepartmentsOfPerson(session, settings, found)).map((d) => d.name),
            };
          }
          const { person: found, matches } = await findPersonByUsername(
            session,
            settings,
            input.testUsername,
          );
          if (matches > 1) throw new SourceFailure('ldap.user_ambiguous');
          if (!found) throw new SourceFailure('ldap.user_not_found');
          // Departments are read as the service account, before the bind as the person.
          const departments = (await readDepartmentsOfPerson(session, settings, found)).map((d) => d.name);
          if (!(await session.bindAs(found.dn ?? '', input.testPassword)))
            throw new SourceFailure('ldap.user_password_wrong');
          return { ...found, departments };
        },
        deps.directory,
      );
      return {
        ok: true,
        reason: null,
        message: interpolate(serverPhrases[lang].sourceTests.userOk, { dn: person.dn ?? '' }),
        person: {
          dn: person.dn ?? '',
          externalId: person.externalId,
          username: person.username,
          name: person.name,
          email: person.email,
          phone: person.phone,
          departments: person.departments,
          disabled: person.disabled,
        },
      };
    } catch (error) {
      return { ...failed(lang, error), person: null };
    }
  }

  return { testConnection, testUser };
}

export type LdapTests = ReturnType<typeof createLdapTests>;
