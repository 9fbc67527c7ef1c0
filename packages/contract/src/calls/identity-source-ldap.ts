import { z } from 'zod';
import { optionalText } from '../call.ts';
import { identitySourceLimits as limits } from '../constants.ts';
import { common, secret, syncIntervalMinutes } from './identity-source-fields.ts';

/** The settings of an LDAP or Active Directory identity source (spec §3 LDAP fields). */

/** An LDAP attribute name (RFC 4512 descr) or numeric OID. */
export const ATTRIBUTE_PATTERN = /^(?:[A-Za-z][A-Za-z0-9-]*|[0-9]+(?:\.[0-9]+)+)$/;
const attribute = z
  .string({ error: 'ldap.attribute_invalid' })
  .trim()
  .max(limits.attributeMax, { error: 'ldap.attribute_invalid' })
  .regex(ATTRIBUTE_PATTERN, { error: 'ldap.attribute_invalid' });
const optionalAttribute = z
  .string()
  .trim()
  .max(limits.attributeMax, { error: 'ldap.attribute_invalid' })
  .refine((value) => value === '' || ATTRIBUTE_PATTERN.test(value), { error: 'ldap.attribute_invalid' })
  .transform((value) => (value === '' ? null : value))
  .nullable()
  .optional();
/** A distinguished name: attribute=value pairs (the directory has the last word on it). */
const dn = z
  .string({ error: 'ldap.dn_invalid' })
  .trim()
  .max(limits.dnMax, { error: 'ldap.dn_invalid' })
  .regex(/^[A-Za-z0-9.-]+=.+$/s, { error: 'ldap.dn_invalid' });
const optionalDn = z
  .string()
  .trim()
  .max(limits.dnMax, { error: 'ldap.dn_invalid' })
  .refine((value) => value === '' || /^[A-Za-z0-9.-]+=.+$/s.test(value), { error: 'ldap.dn_invalid' })
  .transform((value) => (value === '' ? null : value))
  .nullable()
  .optional();
/** An RFC 4515 filter in parentheses (its syntax is checked on the server). */
const filter = z
  .string({ error: 'ldap.invalid_filter' })
  .trim()
  .min(3, { error: 'ldap.invalid_filter' })
  .max(limits.filterMax, { error: 'ldap.invalid_filter' })
  .regex(/^\(.*\)$/s, { error: 'ldap.invalid_filter' });
const optionalFilter = z
  .string()
  .trim()
  .max(limits.filterMax, { error: 'ldap.invalid_filter' })
  .refine((value) => value === '' || /^\(.*\)$/s.test(value), { error: 'ldap.invalid_filter' })
  .transform((value) => (value === '' ? null : value))
  .nullable()
  .optional();

/** ldap:// or ldaps://, a host and an optional port, nothing else. */
export const LDAP_URL_PATTERN = /^ldaps?:\/\/(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::[0-9]{1,5})?\/?$/;

/** Every LDAP field of spec §3 (the test user's password is sent with the test only, never stored). */
export const ldapSettings = z.object({
  ...common,
  /** Connection name is `name`; server URL: */
  url: z
    .string({ error: 'ldap.url_invalid' })
    .trim()
    .max(limits.urlMax, { error: 'ldap.url_invalid' })
    .regex(LDAP_URL_PATTERN, { error: 'ldap.url_invalid' }),
  /** ldap:// upgraded with StartTLS before the bind. */
  startTls: z.boolean().default(false),
  /** Certificate verification flag: on, the server's certificate must chain to a trusted (or the pasted) CA. */
  verifyCertificate: z.boolean().default(true),
  /** A private CA (PEM) that the server's certificate chains to. */
  caCertificate: optionalText(limits.caMax),
  /** Empty: anonymous searches. */
  bindDn: optionalDn,
  bindPassword: secret,
  userRootDn: dn,
  usernameAttribute: attribute,
  /** User distinguished name: a template such as `uid={username},ou=people,dc=example,dc=com` to bind without a search. */
  userDnTemplate: z
    .string()
    .trim()
    .max(limits.dnMax, { error: 'ldap.user_dn_template_invalid' })
    .refine((value) => value === '' || (value.includes('{username}') && value.includes('=')), {
      error: 'ldap.user_dn_template_invalid',
    })
    .transform((value) => (value === '' ? null : value))
    .nullable()
    .optional(),
  /** Unique identifier: entryUUID (OpenLDAP), objectGUID (Active Directory). */
  uniqueIdAttribute: attribute,
  userFilter: filter,
  /** Empty: the organisational units under the user root DN become the departments. */
  groupRootDn: optionalDn,
  groupFilter: optionalFilter,
  groupIdAttribute: optionalAttribute,
  membershipAttribute: optionalAttribute,
  testUsername: optionalText(limits.credentialMax),
  /** People of this source are not asked for a second factor. */
  skipMfa: z.boolean().default(false),
  syncIntervalMinutes: syncIntervalMinutes.default(0),
});
