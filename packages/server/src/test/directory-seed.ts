/**
 * The test directory that scripts/with-slapd.sh loads into Debian's slapd once per run (an LDIF
 * written by this file at start-up, loaded with slapadd): nested organisational units, nested
 * groups and 1 200 people, so that a sync needs paged searches (the reader account may read
 * 500 entries per search), plus a few Active Directory-like entries (scripts/slapd/ad-compat.schema:
 * objectGUID, sAMAccountName, userPrincipalName, userAccountControl).
 *
 *   node --import tsx packages/server/src/test/directory-seed.ts [--bench] > seed.ldif
 *
 * `--bench` adds ou=bench: 10 000 people in 500 groups (bench/directory-sync.bench.ts).
 * The tree is read-only for tests: a test that changes the directory works in its own OU.
 */
import { createHash, randomBytes } from 'node:crypto';

export const DIRECTORY = {
  baseDn: 'dc=tessera,dc=test',
  peopleDn: 'ou=people,dc=tessera,dc=test',
  groupsDn: 'ou=groups,dc=tessera,dc=test',
  adDn: 'ou=ad,dc=tessera,dc=test',
  adminDn: 'cn=admin,dc=tessera,dc=test',
  adminPassword: 'Slapd-admin-pass-1',
  /** A service account that reads the tree, limited to 500 entries per search without paging. */
  readerDn: 'cn=reader,dc=tessera,dc=test',
  readerPassword: 'Reader-pass-2026',
  /** The password of every generated person (userNNNN). */
  peoplePassword: 'Directory-Pass-1',
  peopleCount: 1200,
  /** Server-side limit of a search without paging (slapd `limits` of the reader). */
  sizeLimit: 500,
  alice: { uid: 'alice', password: 'Alice-Dir-Pass-1', mail: 'alice@tessera.test', name: 'Alice Liddell' },
  bench: { dn: 'ou=bench,dc=tessera,dc=test', users: 10_000, groups: 500 },
} as const;

/** The organisational units under ou=people (parents first) and the groups under ou=groups. */
const units = [
  'Engineering',
  'Backend,Engineering',
  'Frontend,Engineering',
  'Platform,Engineering',
  'SRE,Platform,Engineering',
  'Sales',
  'East,Sales',
  'West,Sales',
  'Support',
] as const;

/** Group name → parent group (nested through `member`), and which unit's people it holds. */
const groups: { cn: string; parent: string | null; unit: string | null }[] = [
  { cn: 'staff', parent: null, unit: null },
  { cn: 'engineering', parent: 'staff', unit: 'Engineering' },
  { cn: 'backend', parent: 'engineering', unit: 'Backend,Engineering' },
  { cn: 'frontend', parent: 'engineering', unit: 'Frontend,Engineering' },
  { cn: 'platform', parent: 'engineering', unit: 'Platform,Engineering' },
  { cn: 'sre', parent: 'platform', unit: 'SRE,Platform,Engineering' },
  { cn: 'sales', parent: 'staff', unit: 'Sales' },
  { cn: 'sales-east', parent: 'sales', unit: 'East,Sales' },
  { cn: 'sales-west', parent: 'sales', unit: 'West,Sales' },
  { cn: 'support', parent: 'staff', unit: 'Support' },
];

const unitDn = (unit: string) =>
  `${unit
    .split(',')
    .map((name) => `ou=${name}`)
    .join(',')},${DIRECTORY.peopleDn}`;

export const personUid = (n: number) => `user${String(n).padStart(4, '0')}`;
/** Where generated person n lives: the units take turns. */
export const personUnit = (n: number) => units[(n - 1) % units.length] as string;
export const personDn = (n: number) => `uid=${personUid(n)},${unitDn(personUnit(n))}`;
export const personPhone = (n: number) => `1380000${String(n).padStart(4, '0')}`;
export const groupDn = (cn: string) => `cn=${cn},${DIRECTORY.groupsDn}`;
/** The group that holds person n directly (the group of its unit). */
export const personGroup = (n: number) => groups.find((g) => g.unit === personUnit(n))?.cn as string;
export const seedGroups = groups;

/** {SSHA} as slapd stores it: SHA-1 of password + salt, then the salt, base64. */
export function ssha(password: string): string {
  const salt = randomBytes(8);
  const digest = createHash('sha1').update(password).update(salt).digest();
  return `{SSHA}${Buffer.concat([digest, salt]).toString('base64')}`;
}

/** The 16 bytes of an AD objectGUID for test entry n (fixed, so tests know them). */
export const adGuid = (n: number) =>
  Buffer.from(`6b2f0c1e-9a4d-4c3b-8e21-${String(n).padStart(12, '0')}`.replace(/-/g, ''), 'hex');

export const AD_PEOPLE = [
  { cn: 'Ada Lovelace', sam: 'ada', upn: 'ada@ad.tessera.test', control: 512, password: 'Ada-Dir-Pass-1' },
  {
    cn: 'Dora Disabled',
    sam: 'dora',
    upn: 'dora@ad.tessera.test',
    control: 514,
    password: 'Dora-Dir-Pass-1',
  },
  {
    cn: 'Carl Computer',
    sam: 'carl$',
    upn: 'carl@ad.tessera.test',
    control: 4096,
    password: 'Carl-Dir-Pass-1',
  },
] as const;

function entry(dn: string, attributes: Record<string, string | readonly string[]>): string {
  const lines = [`dn: ${dn}`];
  for (const [name, value] of Object.entries(attributes))
    for (const v of typeof value === 'string' ? [value] : value) {
      // Values that are not safe LDIF strings (RFC 2849) are written base64.
      const safe = /^[\x20-\x7e]*$/.test(v) && !/^[ :<]/.test(v) && !v.endsWith(' ');
      lines.push(safe ? `${name}: ${v}` : `${name}:: ${Buffer.from(v, 'utf8').toString('base64')}`);
    }
  return `${lines.join('\n')}\n`;
}

function benchEntries(): string[] {
  const { dn, users, groups: groupCount } = DIRECTORY.bench;
  const out = [
    entry(dn, { objectClass: 'organizationalUnit', ou: 'bench' }),
    entry(`ou=users,${dn}`, { objectClass: 'organizationalUnit', ou: 'users' }),
    entry(`ou=groups,${dn}`, { objectClass: 'organizationalUnit', ou: 'groups' }),
  ];
  const hash = ssha(DIRECTORY.peoplePassword);
  const top = 20;
  const leaves = groupCount - top;
  const members = new Map<number, string[]>();
  for (let n = 1; n <= users; n++) {
    const uid = `bench${String(n).padStart(5, '0')}`;
    const personDnText = `uid=${uid},ou=users,${dn}`;
    out.push(
      entry(personDnText, {
        objectClass: 'inetOrgPerson',
        uid,
        cn: `Bench Person ${n}`,
        sn: `Person ${n}`,
        mail: `${uid}@bench.tessera.test`,
        mobile: `1390${String(n).padStart(7, '0')}`,
        userPassword: hash,
      }),
    );
    const leaf = (n - 1) % leaves;
    members.set(leaf, [...(members.get(leaf) ?? []), personDnText]);
  }
  const groupName = (index: number) => `bench-group-${String(index).padStart(3, '0')}`;
  for (let t = 0; t < top; t++) {
    const children = [];
    for (let l = t; l < leaves; l += top) children.push(`cn=${groupName(top + l)},ou=groups,${dn}`);
    out.push(
      entry(`cn=${groupName(t)},ou=groups,${dn}`, {
        objectClass: 'groupOfNames',
        cn: groupName(t),
        member: children,
      }),
    );
  }
  for (let l = 0; l < leaves; l++)
    out.push(
      entry(`cn=${groupName(top + l)},ou=groups,${dn}`, {
        objectClass: 'groupOfNames',
        cn: groupName(top + l),
        member: members.get(l) ?? [DIRECTORY.readerDn],
      }),
    );
  return out;
}

export function directoryLdif(options: { bench?: boolean } = {}): string {
  const out: string[] = [
    entry(DIRECTORY.baseDn, { objectClass: ['dcObject', 'organization'], dc: 'tessera', o: 'Tessera Test' }),
    entry(DIRECTORY.readerDn, {
      objectClass: ['organizationalRole', 'simpleSecurityObject'],
      cn: 'reader',
      userPassword: ssha(DIRECTORY.readerPassword),
    }),
    entry(DIRECTORY.peopleDn, { objectClass: 'organizationalUnit', ou: 'people' }),
    entry(DIRECTORY.groupsDn, { objectClass: 'organizationalUnit', ou: 'groups' }),
  ];
  for (const unit of units)
    out.push(entry(unitDn(unit), { objectClass: 'organizationalUnit', ou: unit.split(',')[0] as string }));
  const hash = ssha(DIRECTORY.peoplePassword);
  for (let n = 1; n <= DIRECTORY.peopleCount; n++) {
    const uid = personUid(n);
    out.push(
      entry(personDn(n), {
        objectClass: 'inetOrgPerson',
        uid,
        cn: `Person ${n}`,
        sn: `Person ${n}`,
        givenName: `Given${n}`,
        displayName: `Person ${n}`,
        mail: `${uid}@tessera.test`,
        mobile: personPhone(n),
        userPassword: hash,
      }),
    );
  }
  const { alice } = DIRECTORY;
  const aliceDn = `uid=${alice.uid},${unitDn('Backend,Engineering')}`;
  out.push(
    entry(aliceDn, {
      objectClass: 'inetOrgPerson',
      uid: alice.uid,
      cn: alice.name,
      sn: 'Liddell',
      givenName: 'Alice',
      mail: alice.mail,
      userPassword: ssha(alice.password),
    }),
  );
  for (const group of groups) {
    const people = [];
    for (let n = 1; n <= DIRECTORY.peopleCount; n++)
      if (personUnit(n) === group.unit) people.push(personDn(n));
    if (group.cn === 'backend') people.push(aliceDn);
    const children = groups.filter((g) => g.parent === group.cn).map((g) => groupDn(g.cn));
    out.push(
      entry(groupDn(group.cn), {
        objectClass: 'groupOfNames',
        cn: group.cn,
        member: [...children, ...people],
      }),
    );
  }
  out.push(entry(DIRECTORY.adDn, { objectClass: 'organizationalUnit', ou: 'ad' }));
  const adMembers: string[] = [];
  AD_PEOPLE.forEach((person, index) => {
    const dn = `cn=${person.cn},${DIRECTORY.adDn}`;
    const lines = entry(dn, {
      objectClass: person.sam.endsWith('$') ? ['computer'] : ['user'],
      cn: person.cn,
      sn: person.cn.split(' ')[1] as string,
      sAMAccountName: person.sam,
      userPrincipalName: person.upn,
      userAccountControl: String(person.control),
      mail: person.upn,
      userPassword: ssha(person.password),
    });
    out.push(`${lines}objectGUID:: ${adGuid(index + 1).toString('base64')}\n`);
    adMembers.push(dn);
  });
  out.push(
    `${entry(`cn=AD Engineers,${DIRECTORY.adDn}`, { objectClass: 'group', cn: 'AD Engineers', member: adMembers })}objectGUID:: ${adGuid(99).toString('base64')}\n`,
  );
  if (options.bench) out.push(...benchEntries());
  return out.join('\n');
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop() as string)) {
  process.stdout.write(directoryLdif({ bench: process.argv.includes('--bench') }));
}
