import { z } from 'zod';
import { defineCall } from '../call.ts';
import { appId } from './app-shared.ts';

/**
 * LDAP applications (the read-only LDAP directory Tessera serves): the service account an
 * application binds with, its secret (shown once, rotated), and whether people may bind with
 * their password alone where the company asks them for a second factor.
 */

export const ldapAppSettings = z.object({
  /** The service account's bind DN. */
  bindDn: z.string(),
  /** The company's base DN (people under ou=people, departments and roles under ou=groups). */
  baseDn: z.string(),
  /** Whether a secret was made; it is never shown again. */
  hasSecret: z.boolean(),
  secretRotatedAt: z.string().nullable(),
  allowPasswordWithMfa: z.boolean(),
  /**
   * People are served as posixAccount (uidNumber, gidNumber of their private group, /home/<uid>,
   * /bin/bash) and groups as posixGroup (gidNumber, memberUid), for Linux hosts (sssd, nslcd).
   */
  posix: z.boolean(),
});

export const ldapAppDetail = defineCall({
  path: '/api/v1/manage/app/ldap/detail',
  summary: 'The LDAP settings of an application: its bind DN, the base DN, the second-factor switch',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'read' },
  request: z.object({ appId }),
  response: ldapAppSettings,
});

export const updateLdapApp = defineCall({
  path: '/api/v1/manage/app/ldap/update',
  summary:
    'Change whether people may bind with their password alone where a second factor is asked, and whether POSIX accounts and groups are served',
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  request: z.object({
    appId,
    allowPasswordWithMfa: z.boolean({ error: 'ldap_app.allow_invalid' }).optional(),
    posix: z.boolean({ error: 'ldap_app.posix_invalid' }).optional(),
  }),
  response: ldapAppSettings,
});

export const rotateLdapSecret = defineCall({
  path: '/api/v1/manage/app/ldap/secret/rotate',
  summary: "Make a new secret for the application's service account (the old one stops working); shown once",
  tag: 'Application',
  auth: 'session',
  tenant: true,
  access: { groups: ['app'], level: 'manage' },
  request: z.object({ appId }),
  response: ldapAppSettings.extend({ secret: z.string() }),
});
