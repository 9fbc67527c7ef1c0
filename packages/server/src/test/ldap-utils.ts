import { execFile } from 'node:child_process';

/**
 * Debian's ldap-utils (ldapsearch, ldapwhoami): OpenLDAP's own clients, the peer the LDAP
 * server is tested against. Tests skip without them, except under CI=true.
 */
export const hasLdapUtils = await new Promise<boolean>((resolve) =>
  execFile('ldapsearch', ['-VV'], (error) =>
    resolve(!error || (error as { code?: unknown }).code !== 'ENOENT'),
  ),
);
const ci = process.env.CI === 'true' || process.env.CI === '1';
if (!hasLdapUtils && ci) throw new Error('ldapsearch (ldap-utils) is not installed');

export interface LdapToolResult {
  /** The exit status: the LDAP result code for ldapsearch and ldapwhoami (0 success, 49 invalid credentials, …). */
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs an ldap-utils command; `env` adds LDAPTLS_* and the like. The machine's ldap.conf and
 * ~/.ldaprc are kept out (LDAPNOINIT would also ignore the LDAPTLS_* variables).
 */
export function ldapTool(
  command: 'ldapsearch' | 'ldapwhoami',
  args: string[],
  env: Record<string, string> = {},
) {
  return new Promise<LdapToolResult>((resolve) => {
    execFile(
      command,
      args,
      {
        env: { ...process.env, LDAPCONF: '/dev/null', LDAPRC: '.tessera-test-no-ldaprc', ...env },
        timeout: 60_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (error as { code?: unknown }).code : 0;
        resolve({ status: typeof code === 'number' ? code : -1, stdout, stderr });
      },
    );
  });
}

/** The DNs of the entries in ldapsearch's LDIF output (-LLL), in order. */
export const dnsOf = (ldif: string) =>
  ldif
    .replace(/\n /g, '')
    .split('\n')
    .filter((line) => line.startsWith('dn: ') || line.startsWith('dn:: '))
    .map((line) =>
      line.startsWith('dn:: ') ? Buffer.from(line.slice(5), 'base64').toString('utf8') : line.slice(4),
    );

/** The values of one attribute in ldapsearch's LDIF output. */
export const valuesOf = (ldif: string, attribute: string) =>
  ldif
    .replace(/\n /g, '')
    .split('\n')
    .filter((line) => line.toLowerCase().startsWith(`${attribute.toLowerCase()}: `))
    .map((line) => line.slice(attribute.length + 2));
