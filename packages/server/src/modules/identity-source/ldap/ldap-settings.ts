import { X509Certificate } from 'node:crypto';
import type { Language } from '@tessera/contract';
import type * as repo from '../identity-source.repo.ts';
import { SourceFailure } from '../source-failure.ts';
import { fieldError } from '../source-settings.ts';
import { assertSettingsFilters } from './ldap-directory.ts';

/** What an LDAP source's settings must be beyond their schema (the service and the tests check them). */

/** Checks what zod cannot: the filters' syntax and the pasted CA. */
export function assertLdapSettings(lang: Language, settings: repo.LdapSettings, fieldPrefix = ''): void {
  try {
    assertSettingsFilters(settings);
  } catch (error) {
    if (error instanceof SourceFailure) {
      let field = 'groupFilter';
      try {
        assertSettingsFilters({ ...settings, groupFilter: null });
      } catch {
        field = 'userFilter';
      }
      throw fieldError(lang, `${fieldPrefix}${field}`, 'ldap.invalid_filter');
    }
    throw error;
  }
  if (settings.caCertificate) {
    try {
      if (!settings.caCertificate.includes('-----BEGIN CERTIFICATE-----')) throw new Error('not PEM');
      new X509Certificate(settings.caCertificate);
    } catch {
      throw fieldError(lang, `${fieldPrefix}caCertificate`, 'ldap.ca_invalid');
    }
  }
}

/** The LDAP settings that decide where the bind password is sent: changing them needs the password again. */
export const bindTargetChanged = (before: repo.LdapSettings, after: repo.LdapSettings) =>
  before.url !== after.url || (before.bindDn ?? '') !== (after.bindDn ?? '');
