/** Applications: the LDAP tab of an LDAP application (service account, base DN, second factor). */
export const appsLdap = {
  title: 'LDAP directory',
  intro:
    "The application reads the company's people from Tessera's read-only LDAP directory with the service account below, and people sign in to it with their own user name and password. The service account sees only the people the application is given (the Access tab).",
  bindDn: 'Service account bind DN',
  baseDn: 'Base DN',
  baseDnHint: 'People are under ou=people, departments and permission roles under ou=groups.',
  secret: 'Service account secret',
  secretSet: 'Set {{when}}; it is never shown again.',
  secretNotSet: 'Not made yet: the application cannot bind, nor be enabled, until it has one.',
  makeSecret: 'Make secret',
  rotateSecret: 'Replace secret',
  rotateTitle: 'Replace the service account secret?',
  rotateContent: 'The current secret stops working at once: the application needs the new one.',
  secretTitle: 'Service account secret',
  allowPasswordWithMfa: 'Password binds when a second factor is required',
  allowPasswordWithMfaHint:
    'An LDAP bind cannot carry a second factor. Off: people the company asks for a second factor cannot sign in to this application. On: their password alone is enough here.',
  posix: 'POSIX accounts (Linux hosts)',
  posixHint:
    'On: people are also served as posixAccount (uidNumber, gidNumber of their own private group, home /home/<user name>, shell /bin/bash) and groups as posixGroup (gidNumber, memberUid), for sssd and nslcd. Numbers start at 10000, are given once per person and group, and never change.',
  saved: 'Saved',
  copy: 'Copy',
};
