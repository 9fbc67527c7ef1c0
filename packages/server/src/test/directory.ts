import { readFileSync } from 'node:fs';
import { Attribute, Change, Client } from 'ldapts';
import { expect } from 'vitest';
import { DIRECTORY, ssha } from './directory-seed.ts';
import { call, type TestContext } from './harness.ts';

/**
 * The test directory of scripts/with-slapd.sh (Debian's slapd, seeded by directory-seed.ts) for
 * tests: where it is, LDAP source settings that point at it, and a throw-away unit for tests
 * that change entries. Without it (no TESSERA_TEST_LDAP_URL) the LDAP tests skip, except under
 * CI=true, where they run and fail.
 */

export const LDAP_URL = process.env.TESSERA_TEST_LDAP_URL;
export const LDAPS_URL = process.env.TESSERA_TEST_LDAPS_URL;
export const LDAP_CA = process.env.TESSERA_TEST_LDAP_CA_FILE
  ? readFileSync(process.env.TESSERA_TEST_LDAP_CA_FILE, 'utf8')
  : undefined;
const isCi = process.env.CI === 'true' || process.env.CI === '1';
/** For `describe.skipIf`: no directory here, and not under CI. */
export const noDirectory = !LDAP_URL && !isCi;
export { DIRECTORY };

/** LDAP source settings (as create/update take them) for the seeded tree, OpenLDAP preset. */
export function ldapSourceSettings(overrides: Record<string, unknown> = {}) {
  return {
    type: 'ldap',
    name: 'Corporate directory',
    url: LDAP_URL ?? 'ldap://127.0.0.1:1',
    startTls: false,
    verifyCertificate: true,
    bindDn: DIRECTORY.readerDn,
    bindPassword: DIRECTORY.readerPassword,
    userRootDn: DIRECTORY.peopleDn,
    usernameAttribute: 'uid',
    uniqueIdAttribute: 'entryUUID',
    userFilter: '(objectClass=inetOrgPerson)',
    groupRootDn: DIRECTORY.groupsDn,
    groupFilter: '(objectClass=groupOfNames)',
    groupIdAttribute: 'cn',
    membershipAttribute: 'member',
    skipMfa: false,
    ...overrides,
  };
}

/** Creates an LDAP source through the API and answers its id. */
export async function createLdapSource(
  ctx: TestContext,
  admin: { token: string; companyId: string },
  overrides: Record<string, unknown> = {},
) {
  const created = await call<{ sourceId: string }>(
    ctx,
    '/api/v1/manage/identity-source/create',
    ldapSourceSettings(overrides),
    admin,
  );
  expect(created.code, created.msg).toBe(200);
  return created.data.sourceId;
}

/** A sync run as `identity-source/sync/run` answers it. */
export interface SyncRun {
  runId: string;
  status: string;
  counts: Record<string, number> | null;
  errors: { reason: string; message: string }[];
}

/** The counts of a sync (or preview) with nothing to do. */
export const NOTHING_TO_DO = {
  created: 0,
  updated: 0,
  moved: 0,
  disabled: 0,
  enabled: 0,
  departmentsCreated: 0,
  departmentsUpdated: 0,
  departmentsRemoved: 0,
} as const;

/** Runs `work` bound as the directory's administrator (tests that add, change or delete entries). */
export async function asDirectoryAdmin<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ url: LDAP_URL as string, timeout: 10_000 });
  try {
    await client.bind(DIRECTORY.adminDn, DIRECTORY.adminPassword);
    return await work(client);
  } finally {
    await client.unbind().catch(() => {});
  }
}

export interface TestUnit {
  dn: string;
  peopleDn: string;
  groupsDn: string;
  personDn(uid: string): string;
  addPerson(
    uid: string,
    options?: { name?: string; password?: string; mail?: string; group?: string },
  ): Promise<void>;
  removePerson(uid: string): Promise<void>;
  /** Moves an entry (same entry, same entryUUID) from one container to another. */
  movePerson(uid: string, from: string, to: string): Promise<void>;
  cleanup(): Promise<void>;
}

/** A unit of the directory of the test's own (ou=<name>), with people and groups under it. */
export async function testUnit(name: string): Promise<TestUnit> {
  const dn = `ou=${name},${DIRECTORY.baseDn}`;
  const peopleDn = `ou=people,${dn}`;
  const groupsDn = `ou=groups,${dn}`;
  await asDirectoryAdmin(async (client) => {
    for (const entry of [dn, peopleDn, groupsDn])
      await client.add(entry, {
        objectClass: 'organizationalUnit',
        ou: entry.split(',')[0]?.slice(3) ?? name,
      });
  });
  const personDn = (uid: string) => `uid=${uid},${peopleDn}`;
  return {
    dn,
    peopleDn,
    groupsDn,
    personDn,
    async addPerson(uid, options = {}) {
      await asDirectoryAdmin(async (client) => {
        await client.add(personDn(uid), {
          objectClass: 'inetOrgPerson',
          uid,
          cn: options.name ?? uid,
          sn: options.name ?? uid,
          mail: options.mail ?? `${uid}@${name}.test`,
          userPassword: ssha(options.password ?? DIRECTORY.peoplePassword),
        });
        if (options.group) {
          const group = `cn=${options.group},${groupsDn}`;
          const exists = await client
            .search(group, { scope: 'base' })
            .then(() => true)
            .catch(() => false);
          if (exists)
            await client
              .modify(group, [
                new Change({
                  operation: 'add',
                  modification: new Attribute({ type: 'member', values: [personDn(uid)] }),
                }),
              ])
              // slapd keeps the member value of a deleted entry (no referential integrity overlay).
              .catch((error: Error) => {
                if (!/already exists/.test(error.message)) throw error;
              });
          else
            await client.add(group, {
              objectClass: 'groupOfNames',
              cn: options.group,
              member: personDn(uid),
            });
        }
      });
    },
    async removePerson(uid) {
      await asDirectoryAdmin((client) => client.del(personDn(uid)));
    },
    async movePerson(uid, from, to) {
      await asDirectoryAdmin((client) => client.modifyDN(`uid=${uid},${from}`, `uid=${uid},${to}`));
    },
    async cleanup() {
      await asDirectoryAdmin(async (client) => {
        const { searchEntries } = await client.search(dn, { scope: 'sub', attributes: ['1.1'] });
        // Deepest first: a DN with more components is below one with fewer.
        const dns = searchEntries.map((e) => e.dn).sort((a, b) => b.split(',').length - a.split(',').length);
        for (const entry of dns) await client.del(entry).catch(() => {});
      });
    },
  };
}
