import { randomBytes } from 'node:crypto';
import { Attribute } from 'ldapts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthorization, submitSignIn } from '../../../test/browser-flow.ts';
import {
  asDirectoryAdmin,
  createLdapSource,
  DIRECTORY,
  NOTHING_TO_DO,
  noDirectory,
  type SyncRun,
  type TestUnit,
  testUnit,
} from '../../../test/directory.ts';
import { adGuid, ssha } from '../../../test/directory-seed.ts';
import { call, ownerWithCompany, startTestApp, type TestContext } from '../../../test/harness.ts';
import { openedApp } from '../../../test/opened-app.ts';

/**
 * Issue 28: a directory person who signs in keeps the departments the sync gave them, whatever
 * the layout (organisational units without a group root DN, or nested groups; OpenLDAP's
 * attributes or Active Directory's objectGUID), and the next preview has nothing to do. Against
 * slapd (scripts/with-slapd.sh), in units of the test's own three levels deep:
 *   ou=people ─ ou=Engineering (pat) ─ ou=Platform ─ ou=SRE (sam)
 *   groups: staff ⊃ engineering (pat) ⊃ sre (sam)
 */

const redirectUri = 'http://localhost:7002/callback';
const password = DIRECTORY.peoplePassword;
let ctx: TestContext;
const units: TestUnit[] = [];

/** Builds the tree above in a unit of its own; `ad`: Active Directory's entries (objectGUID everywhere). */
async function directoryTree(ad: boolean) {
  const tag = randomBytes(4).toString('hex');
  const unit = await testUnit(`d${tag}`);
  units.push(unit);
  let guid = 5000 + Math.floor(Math.random() * 1_000_000) * 10;
  const add = (dn: string, values: Record<string, string | string[]>) =>
    asDirectoryAdmin((client) =>
      client.add(dn, [
        ...Object.entries(values).map(
          ([type, value]) => new Attribute({ type, values: Array.isArray(value) ? value : [value] }),
        ),
        ...(ad ? [new Attribute({ type: 'objectGUID', values: [adGuid(guid++)] })] : []),
      ]),
    );
  const engineering = `ou=Engineering,${unit.peopleDn}`;
  const platform = `ou=Platform,${engineering}`;
  const sre = `ou=SRE,${platform}`;
  for (const dn of [engineering, platform, sre])
    await add(dn, {
      objectClass: ad ? ['organizationalUnit', 'extensibleObject'] : ['organizationalUnit'],
      ou: dn.split(',')[0]?.slice(3) as string,
    });
  const person = (uid: string, at: string) => {
    const dn = ad ? `cn=${uid} Example,${at}` : `uid=${uid},${at}`;
    const values: Record<string, string> = ad
      ? {
          objectClass: 'user',
          cn: `${uid} Example`,
          sn: 'Example',
          sAMAccountName: uid,
          userAccountControl: '512',
          userPassword: ssha(password),
        }
      : { objectClass: 'inetOrgPerson', uid, cn: uid, sn: uid, userPassword: ssha(password) };
    return { dn, values };
  };
  // Usernames are unique on the platform: each tree has people of its own.
  const sam = person(`sam${tag}`, sre);
  const pat = person(`pat${tag}`, engineering);
  for (const entry of [sam, pat]) await add(entry.dn, entry.values);
  const group = (cn: string) => `cn=${cn},${unit.groupsDn}`;
  const groupClass = ad ? 'group' : 'groupOfNames';
  await add(group('sre'), { objectClass: groupClass, cn: 'sre', member: sam.dn });
  await add(group('engineering'), {
    objectClass: groupClass,
    cn: 'engineering',
    member: [group('sre'), pat.dn],
  });
  await add(group('staff'), { objectClass: groupClass, cn: 'staff', member: group('engineering') });
  return { unit, sam: `sam${tag}`, pat: `pat${tag}` };
}

const layouts = [
  {
    name: 'organisational units, no group root DN',
    ad: false,
    groups: false,
    sam: 'SRE',
    pat: 'Engineering',
  },
  { name: 'nested groups', ad: false, groups: true, sam: 'sre', pat: 'engineering' },
  { name: 'Active Directory, organisational units', ad: true, groups: false, sam: 'SRE', pat: 'Engineering' },
  { name: 'Active Directory, nested groups', ad: true, groups: true, sam: 'sre', pat: 'engineering' },
];

describe.skipIf(noDirectory)('departments of a directory person who signs in', () => {
  beforeAll(async () => {
    ctx = await startTestApp({ listen: true });
  });
  afterAll(async () => {
    for (const unit of units) await unit.cleanup();
    await ctx?.close();
  });

  it.each(layouts)('keeps them as the sync gave them: $name', async (layout) => {
    const { unit, sam, pat } = await directoryTree(layout.ad);
    const owner = await ownerWithCompany(ctx, `o${randomBytes(4).toString('hex')}`);
    const admin = <T>(path: string, body: unknown = {}) => call<T>(ctx, path, body, owner);
    const sourceId = await createLdapSource(ctx, owner, {
      userRootDn: unit.peopleDn,
      groupRootDn: layout.groups ? unit.groupsDn : null,
      ...(layout.ad
        ? {
            usernameAttribute: 'sAMAccountName',
            uniqueIdAttribute: 'objectGUID',
            userFilter: '(&(objectClass=user)(!(objectClass=computer)))',
            groupFilter: layout.groups ? '(objectClass=group)' : null,
          }
        : layout.groups
          ? {}
          : { groupFilter: null }),
    });
    const clientId = await openedApp(ctx, owner, redirectUri);
    const run = async (path: string) => {
      const started = await admin<SyncRun>(`/api/v1/manage/identity-source/sync/${path}`, { sourceId });
      expect(started.code).toBe(200);
      await ctx.tessera.jobs.drain();
      const done = await admin<SyncRun>('/api/v1/manage/identity-source/sync/run', {
        sourceId,
        runId: started.data.runId,
      });
      expect(done.data.status, JSON.stringify(done.data.errors)).toBe('succeeded');
      return done.data.counts;
    };
    const departmentsOf = async (username: string) => {
      const found = await admin<{ list: { username: string; departments: { name: string }[] }[] }>(
        '/api/v1/manage/user/list',
        { keyword: username },
      );
      return found.data.list.find((u) => u.username === username)?.departments.map((d) => d.name);
    };

    expect(await run('start')).toMatchObject({ created: 2, departmentsCreated: 3, conflicts: 0 });
    expect(await departmentsOf(sam)).toEqual([layout.sam]);
    expect(await departmentsOf(pat)).toEqual([layout.pat]);

    // Signing in with the directory password on the sign-in page, as the browser posts it.
    for (const username of [sam, pat]) {
      const start = await startAuthorization({ baseUrl: ctx.baseUrl, clientId, redirectUri });
      const posted = await submitSignIn(start.jar, start.location, username, password);
      expect(posted.status, await posted.clone().text()).toBe(303);
    }
    expect(await departmentsOf(sam)).toEqual([layout.sam]);
    expect(await departmentsOf(pat)).toEqual([layout.pat]);

    expect(await run('preview')).toMatchObject({ ...NOTHING_TO_DO, conflicts: 0, unchanged: 2 });
  });
});
