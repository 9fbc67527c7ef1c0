import { execFile } from 'node:child_process';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anotherInstance,
  call,
  companyMember,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import { dnsOf, hasLdapUtils, ldapTool, valuesOf } from '../../test/ldap-utils.ts';

/**
 * Issue 32, the read-only LDAP directory, against OpenLDAP's own clients (ldapsearch,
 * ldapwhoami): service and person binds, every filter kind, the tenant wall, injection,
 * refused binds and writes, rootDSE and the subschema entry.
 */

let ctx: TestContext;
let url: string;
type Company = Awaited<ReturnType<typeof ownerWithCompany>> & { code: string };
let acme: Company;
let beta: Company;
let acmeApp: { appId: string; bindDn: string; baseDn: string; secret: string };
let betaApp: { appId: string; bindDn: string; baseDn: string; secret: string };
let alice: { id: string; username: string; password: string };
let bob: { id: string; username: string; password: string };
let carol: { id: string; username: string; password: string };

const admin = <T = Record<string, unknown>>(company: Company, path: string, body: unknown) =>
  call<T>(ctx, path, body, { token: company.token, companyId: company.companyId });

async function ldapApp(company: Company, name: string) {
  const created = await admin<{ app: { appId: string } }>(company, '/api/v1/manage/app/create', {
    name,
    protocol: 'ldap',
  });
  expect(created.code, created.msg).toBe(200);
  const { appId } = created.data.app;
  const rotated = await admin<{ bindDn: string; baseDn: string; secret: string }>(
    company,
    '/api/v1/manage/app/ldap/secret/rotate',
    { appId },
  );
  expect(rotated.code, rotated.msg).toBe(200);
  await admin(company, '/api/v1/manage/app/update', { appId, defaultAccess: 'prohibit_all' });
  expect((await admin(company, '/api/v1/manage/app/status', { appId, status: 'opened' })).code).toBe(200);
  return { appId, ...rotated.data };
}

async function withCode(company: Awaited<ReturnType<typeof ownerWithCompany>>): Promise<Company> {
  const row = await ctx.database.db
    .selectFrom('companies')
    .select('code')
    .where('id', '=', company.companyId)
    .executeTakeFirstOrThrow();
  return { ...company, code: row.code };
}

const search = (bindDn: string, secret: string, args: string[]) =>
  ldapTool('ldapsearch', ['-x', '-LLL', '-H', url, '-D', bindDn, '-w', secret, ...args]);
const asAcme = (...args: string[]) => search(acmeApp.bindDn, acmeApp.secret, ['-b', acmeApp.baseDn, ...args]);
const person = (company: Company, username: string) =>
  `uid=${username},ou=people,dc=${company.code},dc=tessera`;

describe.skipIf(!hasLdapUtils)('LDAP server (issue 32) with ldapsearch and ldapwhoami', () => {
  beforeAll(async () => {
    ctx = await startTestApp({ ldap: {} });
    url = `ldap://127.0.0.1:${ctx.tessera.ldap?.port}`;
    acme = await withCode(await ownerWithCompany(ctx, 'ldap-acme-owner', 'Acme Directory'));
    beta = await withCode(await ownerWithCompany(ctx, 'ldap-beta-owner', 'Beta Directory'));
    acmeApp = await ldapApp(acme, 'Jenkins');
    betaApp = await ldapApp(beta, 'Gerrit');
    alice = await companyMember(ctx, acme, 'alice.ldap');
    bob = await companyMember(ctx, acme, 'bob.ldap');
    carol = await companyMember(ctx, acme, 'carol.ldap');
    const betaPerson = await companyMember(ctx, beta, 'dave.ldap');
    const db = ctx.database.db;
    await db
      .updateTable('accounts')
      .set({ email: 'alice@acme.test', display_name: 'Alice Liddell', phone: '+8613800000001' })
      .where('id', '=', alice.id)
      .execute();
    await db
      .updateTable('accounts')
      .set({ email: 'bob@acme.test', display_name: 'Bob (*) Builder' })
      .where('id', '=', bob.id)
      .execute();
    await admin(acme, '/api/v1/manage/app/assignment/add', {
      appId: acmeApp.appId,
      userIds: [alice.id, bob.id],
    });
    await admin(beta, '/api/v1/manage/app/assignment/add', {
      appId: betaApp.appId,
      userIds: [betaPerson.id],
    });
  });
  afterAll(() => ctx?.close());

  it('binds the service account and a person (ldapwhoami), and refuses anonymous and unauthenticated binds', async () => {
    const service = await ldapTool('ldapwhoami', [
      '-x',
      '-H',
      url,
      '-D',
      acmeApp.bindDn,
      '-w',
      acmeApp.secret,
    ]);
    expect(service.status, service.stderr).toBe(0);
    expect(service.stdout.trim().toLowerCase()).toBe(`dn:${acmeApp.bindDn}`.toLowerCase());
    const me = await ldapTool('ldapwhoami', [
      '-x',
      '-H',
      url,
      '-D',
      person(acme, 'alice.ldap'),
      '-w',
      alice.password,
    ]);
    expect(me.status, me.stderr).toBe(0);
    expect(me.stdout.trim()).toBe(`dn:${person(acme, 'alice.ldap')}`);
    const wrongSecret = await ldapTool('ldapwhoami', ['-x', '-H', url, '-D', acmeApp.bindDn, '-w', 'not-it']);
    expect(wrongSecret.status).toBe(49);
    const anonymous = await ldapTool('ldapwhoami', ['-x', '-H', url]);
    expect(anonymous.status).toBe(48);
    const noPassword = await ldapTool('ldapwhoami', [
      '-x',
      '-H',
      url,
      '-D',
      person(acme, 'alice.ldap'),
      '-w',
      '',
    ]);
    expect(noPassword.status).toBe(53);
    const events = await ctx.database.db
      .selectFrom('login_events')
      .select(['result', 'client_id'])
      .where('identifier', '=', 'alice.ldap')
      .execute();
    const app = await ctx.database.db
      .selectFrom('apps')
      .select('client_id')
      .where('id', '=', acmeApp.appId)
      .executeTakeFirstOrThrow();
    expect(events).toContainEqual({ result: 'success', client_id: app.client_id });
  });

  it('answers a SASL bind with authMethodNotSupported and keeps the connection (ldapwhoami -Y, raw BER)', async () => {
    // DIGEST-MD5 starts with an empty bind (EXTERNAL needs TLS: see the TLS tests; PLAIN is refused
    // by the client itself without TLS).
    const sasl = await ldapTool('ldapwhoami', ['-Y', 'DIGEST-MD5', '-U', 'alice.ldap', '-w', 'x', '-H', url]);
    expect(sasl.status, sasl.stderr).toBe(7);
    expect(sasl.stderr).toMatch(/Authentication method not supported/);
    // On one connection: a SASL bind (DIGEST-MD5, no credentials), then a simple bind and a
    // "Who am I?" sent in the same write; all three are answered, in order.
    const tlv = (tag: number, ...content: Buffer[]) => {
      const body = Buffer.concat(content);
      const length =
        body.length < 0x80
          ? Buffer.from([body.length])
          : Buffer.from([0x82, body.length >> 8, body.length & 0xff]);
      return Buffer.concat([Buffer.from([tag]), length, body]);
    };
    const text = (tag: number, value: string) => tlv(tag, Buffer.from(value, 'utf8'));
    const id = (n: number) => tlv(0x02, Buffer.from([n]));
    const message = (n: number, op: Buffer) => tlv(0x30, id(n), op);
    const saslBind = message(1, tlv(0x60, id(3), text(0x04, ''), tlv(0xa3, text(0x04, 'DIGEST-MD5'))));
    const simpleBind = message(2, tlv(0x60, id(3), text(0x04, acmeApp.bindDn), text(0x80, acmeApp.secret)));
    const whoAmI = message(3, tlv(0x77, text(0x80, '1.3.6.1.4.1.4203.1.11.3')));
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
    const received: Buffer[] = [];
    const answers = new Promise<Buffer>((resolve, reject) => {
      socket.on('data', (data) => {
        received.push(data);
        const all = Buffer.concat(received);
        if (all.includes(Buffer.from(`dn:${acmeApp.bindDn}`))) resolve(all);
      });
      socket.on('error', reject);
      socket.on('close', () => reject(new Error(`closed after ${Buffer.concat(received).toString('hex')}`)));
    });
    socket.write(saslBind);
    socket.write(Buffer.concat([simpleBind, whoAmI]));
    const all = await answers;
    socket.destroy();
    // Each response: SEQUENCE { messageID, [APPLICATION n] { resultCode ENUMERATED, … } }.
    const responses: { messageId: number; op: number; resultCode: number }[] = [];
    for (let at = 0; at < all.length; ) {
      const length = all[at + 1] as number;
      const [header, size] =
        length < 0x80 ? [2, length] : [2 + (length & 0x7f), all.readUIntBE(at + 2, length & 0x7f)];
      const frame = all.subarray(at, at + header + size);
      const op = frame[header + 3] as number;
      const opLength = frame[header + 4] as number;
      const opHeader = opLength < 0x80 ? 2 : 2 + (opLength & 0x7f);
      responses.push({
        messageId: frame[header + 2] as number,
        op,
        resultCode: frame[header + 3 + opHeader + 2] as number,
      });
      at += header + size;
    }
    expect(responses).toEqual([
      { messageId: 1, op: 0x61, resultCode: 7 },
      { messageId: 2, op: 0x61, resultCode: 0 },
      { messageId: 3, op: 0x78, resultCode: 0 },
    ]);
  });

  it('refuses an unassigned person, a wrong password, a disabled person', async () => {
    const unassigned = await ldapTool('ldapwhoami', [
      '-x',
      '-H',
      url,
      '-D',
      person(acme, 'carol.ldap'),
      '-w',
      carol.password,
    ]);
    expect(unassigned.status).toBe(49);
    const wrong = await ldapTool('ldapwhoami', [
      '-x',
      '-H',
      url,
      '-D',
      person(acme, 'bob.ldap'),
      '-w',
      'Wrong-Password-1',
    ]);
    expect(wrong.status).toBe(49);
    await ctx.database.db
      .updateTable('company_members')
      .set({ status: 'disabled' })
      .where('account_id', '=', bob.id)
      .execute();
    const disabled = await ldapTool('ldapwhoami', [
      '-x',
      '-H',
      url,
      '-D',
      person(acme, 'bob.ldap'),
      '-w',
      bob.password,
    ]);
    expect(disabled.status).toBe(49);
    const gone = await asAcme('(uid=bob.ldap)', 'uid');
    expect(dnsOf(gone.stdout)).toEqual([]);
    await ctx.database.db
      .updateTable('company_members')
      .set({ status: 'enabled' })
      .where('account_id', '=', bob.id)
      .execute();
    const causes = await ctx.database.db
      .selectFrom('login_events')
      .select(['identifier', 'failure_cause'])
      .where('identifier', 'in', ['carol.ldap', 'bob.ldap'])
      .where('result', '=', 'failure')
      .execute();
    expect(causes).toEqual(
      expect.arrayContaining([
        { identifier: 'carol.ldap', failure_cause: 'app_not_assigned' },
        { identifier: 'bob.ldap', failure_cause: 'wrong_password' },
        { identifier: 'bob.ldap', failure_cause: 'account_disabled' },
      ]),
    );
  });

  it('locks a person out after wrong passwords (the sign-in lock-out), right password included', async () => {
    const erin = await companyMember(ctx, acme, 'erin.ldap');
    await admin(acme, '/api/v1/manage/app/assignment/add', { appId: acmeApp.appId, userIds: [erin.id] });
    const bind = (password: string) =>
      ldapTool('ldapwhoami', ['-x', '-H', url, '-D', person(acme, 'erin.ldap'), '-w', password]);
    for (let i = 0; i < 5; i++) expect((await bind(`Wrong-Password-${i}`)).status).toBe(49);
    expect((await bind(erin.password)).status).toBe(49);
    const last = await ctx.database.db
      .selectFrom('login_events')
      .select(['result', 'failure_cause'])
      .where('identifier', '=', 'erin.ldap')
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    expect(last).toEqual({ result: 'failure', failure_cause: 'account_locked' });
    // Erin leaves the application again: the searches below count its people.
    await admin(acme, '/api/v1/manage/app/assignment/del', { appId: acmeApp.appId, userIds: [erin.id] });
  });

  it('searches with every filter kind, in the people the application is given', async () => {
    const uids = async (filter: string) => valuesOf((await asAcme(filter, 'uid')).stdout, 'uid').sort();
    expect(await uids('(objectClass=inetOrgPerson)')).toEqual(['alice.ldap', 'bob.ldap']);
    expect(await uids('(uid=ALICE.ldap)')).toEqual(['alice.ldap']);
    expect(await uids('(mail=*)')).toEqual(['alice.ldap', 'bob.ldap']);
    expect(await uids('(telephoneNumber=*)')).toEqual(['alice.ldap']);
    expect(await uids('(cn=Alice*)')).toEqual(['alice.ldap']);
    expect(await uids('(cn=*Lid*ll)')).toEqual(['alice.ldap']);
    expect(await uids('(mail=*@acme.test)')).toEqual(['alice.ldap', 'bob.ldap']);
    expect(await uids('(&(objectClass=person)(mail=bob@acme.test))')).toEqual(['bob.ldap']);
    expect(await uids('(|(uid=alice.ldap)(uid=bob.ldap)(uid=carol.ldap))')).toEqual([
      'alice.ldap',
      'bob.ldap',
    ]);
    expect(await uids('(&(objectClass=person)(!(telephoneNumber=*)))')).toEqual(['bob.ldap']);
    expect(await uids('(&(objectClass=person)(!(uid=alice.ldap)))')).toEqual(['bob.ldap']);
    // An attribute not served is Undefined, and so is its negation.
    expect(await uids('(unknownAttribute=x)')).toEqual([]);
    expect(await uids('(&(objectClass=person)(!(unknownAttribute=x)))')).toEqual([]);
    const entry = await asAcme('(uid=alice.ldap)');
    expect(dnsOf(entry.stdout)).toEqual([person(acme, 'alice.ldap')]);
    expect(valuesOf(entry.stdout, 'displayName')).toEqual(['Alice Liddell']);
    expect(valuesOf(entry.stdout, 'mail')).toEqual(['alice@acme.test']);
    expect(valuesOf(entry.stdout, 'entryUUID')).toEqual([alice.id]);
    // The attribute list.
    const onlyMail = await asAcme('(uid=alice.ldap)', 'mail');
    expect(onlyMail.stdout).toContain('mail: alice@acme.test');
    expect(onlyMail.stdout).not.toContain('displayName');
  });

  it('answers scopes base, one and sub, with groups and memberOf', async () => {
    const base = await search(acmeApp.bindDn, acmeApp.secret, [
      '-b',
      acmeApp.baseDn,
      '-s',
      'base',
      '(objectClass=*)',
      'dn',
    ]);
    expect(dnsOf(base.stdout)).toEqual([acmeApp.baseDn]);
    const one = await search(acmeApp.bindDn, acmeApp.secret, [
      '-b',
      acmeApp.baseDn,
      '-s',
      'one',
      '(objectClass=*)',
      'dn',
    ]);
    expect(dnsOf(one.stdout)).toEqual([`ou=people,${acmeApp.baseDn}`, `ou=groups,${acmeApp.baseDn}`]);
    const people = await search(acmeApp.bindDn, acmeApp.secret, [
      '-b',
      `ou=people,${acmeApp.baseDn}`,
      '-s',
      'one',
      '(objectClass=*)',
      'dn',
    ]);
    expect(dnsOf(people.stdout).sort()).toEqual(
      [person(acme, 'alice.ldap'), person(acme, 'bob.ldap')].sort(),
    );
    const groups = await asAcme('(objectClass=groupOfNames)', 'cn', 'member');
    expect(groups.status).toBe(0);
    expect(dnsOf(groups.stdout).length).toBeGreaterThan(0);
    const missing = await search(acmeApp.bindDn, acmeApp.secret, [
      '-b',
      person(acme, 'carol.ldap'),
      '-s',
      'base',
      '(objectClass=*)',
    ]);
    expect(missing.status).toBe(32);
  });

  it("serves departments as groups: member, memberOf and compare (Apache's Require ldap-group)", async () => {
    const db = ctx.database.db;
    const root = await db
      .selectFrom('departments')
      .select('id')
      .where('company_id', '=', acme.companyId)
      .where('parent_id', 'is', null)
      .executeTakeFirstOrThrow();
    const ops = crypto.randomUUID();
    await db
      .insertInto('departments')
      .values({ id: ops, company_id: acme.companyId, parent_id: root.id, name: 'Ops' })
      .execute();
    await db
      .insertInto('department_members')
      .values(
        [alice.id, carol.id].map((account_id) => ({
          department_id: ops,
          company_id: acme.companyId,
          account_id,
        })),
      )
      .execute();
    const groupDn = `cn=${ops},ou=groups,${acmeApp.baseDn}`;
    const group = await asAcme('(&(objectClass=groupOfNames)(cn=Ops))', 'cn', 'member');
    expect(dnsOf(group.stdout)).toEqual([groupDn]);
    // Carol is not given the application: the service account does not see her as a member.
    expect(valuesOf(group.stdout, 'member')).toEqual([person(acme, 'alice.ldap')]);
    expect(valuesOf((await asAcme('(uid=alice.ldap)', 'memberOf')).stdout, 'memberOf')).toContain(groupDn);
    expect(valuesOf((await asAcme(`(memberOf=${groupDn})`, 'uid')).stdout, 'uid')).toEqual(['alice.ldap']);
    const compare = (dn: string) =>
      new Promise<number>((resolve) =>
        execFile(
          'ldapcompare',
          ['-x', '-H', url, '-D', acmeApp.bindDn, '-w', acmeApp.secret, groupDn, `member:${dn}`],
          { env: { ...process.env, LDAPCONF: '/dev/null' } },
          (error) => resolve(error ? Number((error as { code?: unknown }).code) : 0),
        ),
      );
    expect(await compare(person(acme, 'alice.ldap'))).toBe(6);
    expect(await compare(person(acme, 'bob.ldap'))).toBe(5);
  });

  it('keeps the tenant wall: by DN and by filter', async () => {
    const other = await search(acmeApp.bindDn, acmeApp.secret, ['-b', betaApp.baseDn, '(objectClass=*)']);
    expect(other.status).toBe(32);
    const theirPerson = await search(acmeApp.bindDn, acmeApp.secret, [
      '-b',
      person(beta, 'dave.ldap'),
      '-s',
      'base',
      '(objectClass=*)',
    ]);
    expect(theirPerson.status).toBe(32);
    expect(dnsOf((await asAcme('(uid=dave.ldap)')).stdout)).toEqual([]);
    const suffix = await search(acmeApp.bindDn, acmeApp.secret, ['-b', 'dc=tessera', '(uid=*)']);
    expect(dnsOf(suffix.stdout)).toEqual([]);
    // Beta's own service account sees its person.
    const own = await search(betaApp.bindDn, betaApp.secret, [
      '-b',
      betaApp.baseDn,
      '(uid=dave.ldap)',
      'uid',
    ]);
    expect(valuesOf(own.stdout, 'uid')).toEqual(['dave.ldap']);
    // Acme's secret does not open Beta's service account.
    const crossed = await ldapTool('ldapwhoami', [
      '-x',
      '-H',
      url,
      '-D',
      betaApp.bindDn,
      '-w',
      acmeApp.secret,
    ]);
    expect(crossed.status).toBe(49);
  });

  it('finds nothing unexpected with escaped and unescaped specials (injection)', async () => {
    const uids = async (filter: string) => valuesOf((await asAcme(filter, 'uid')).stdout, 'uid');
    // The escaped star is a literal star: nobody's uid is "*".
    expect(await uids('(uid=\\2a)')).toEqual([]);
    expect(await uids('(uid=alice.ldap\\29\\28uid=\\2a)')).toEqual([]);
    expect(await uids('(cn=Bob \\28\\2a\\29 Builder)')).toEqual(['bob.ldap']);
    expect(await uids("(uid=' or 1=1 --)")).toEqual([]);
    expect(await uids('(uid=%)')).toEqual([]);
    expect(await uids('(uid=_lice.ldap)')).toEqual([]);
    expect(await uids('(uid=\\00)')).toEqual([]);
    // An unbalanced filter never reaches the server; a DN with specials names nobody.
    expect((await asAcme('(uid=*)(uid=*', 'uid')).status).not.toBe(0);
    const dn = await search(acmeApp.bindDn, acmeApp.secret, [
      '-b',
      `uid=*,ou=people,${acmeApp.baseDn}`,
      '-s',
      'base',
      '(objectClass=*)',
    ]);
    expect(dn.status).toBe(32);
    const bind = await ldapTool('ldapwhoami', [
      '-x',
      '-H',
      url,
      '-D',
      `uid=*,ou=people,${acmeApp.baseDn}`,
      '-w',
      alice.password,
    ]);
    expect(bind.status).toBe(49);
  });

  it('refuses writes and unbound searches, and serves the rootDSE and the subschema', async () => {
    // ldapsearch without -D binds anonymously first: refused.
    const unbound = await ldapTool('ldapsearch', [
      '-x',
      '-LLL',
      '-H',
      url,
      '-b',
      acmeApp.baseDn,
      '(objectClass=*)',
    ]);
    expect(unbound.status).toBe(48);
    const root = await search(acmeApp.bindDn, acmeApp.secret, [
      '-b',
      '',
      '-s',
      'base',
      '(objectClass=*)',
      '+',
      '*',
    ]);
    expect(root.status, root.stderr).toBe(0);
    expect(valuesOf(root.stdout, 'supportedControl')).toContain('1.2.840.113556.1.4.319');
    expect(valuesOf(root.stdout, 'subschemaSubentry')).toEqual(['cn=Subschema']);
    const schema = await search(acmeApp.bindDn, acmeApp.secret, [
      '-b',
      'cn=Subschema',
      '-s',
      'base',
      '(objectClass=subschema)',
      'attributeTypes',
      'objectClasses',
    ]);
    expect(schema.stdout).toContain("NAME 'inetOrgPerson'");
    const { spawn } = await import('node:child_process');
    const modify = await new Promise<number>((resolve) => {
      const child = spawn('ldapmodify', ['-x', '-H', url, '-D', acmeApp.bindDn, '-w', acmeApp.secret], {
        env: { ...process.env, LDAPCONF: '/dev/null' },
      });
      child.on('close', (code) => resolve(code ?? -1));
      child.on('error', () => resolve(-1));
      child.stdin.end(
        `dn: ${person(acme, 'alice.ldap')}\nchangetype: modify\nreplace: mail\nmail: evil@example.com\n`,
      );
    });
    expect(modify).toBe(53);
  });

  // Last: it restarts the server.
  it('serves posixAccount and posixGroup where the application turns them on, as sssd and nslcd query them; numbers survive renames and restarts', async () => {
    const posixAttrs = ['uid', 'uidNumber', 'gidNumber', 'homeDirectory', 'loginShell', 'objectClass'];
    const sssdUser = (uid: string) => asAcme(`(&(objectClass=posixAccount)(uid=${uid}))`, ...posixAttrs);
    // Off (the default): nothing posix is served, and filters on it match nothing.
    expect(dnsOf((await sssdUser('alice.ldap')).stdout)).toEqual([]);
    expect(dnsOf((await asAcme('(uidNumber=*)', 'uid')).stdout)).toEqual([]);
    const on = await admin<{ posix: boolean }>(acme, '/api/v1/manage/app/ldap/update', {
      appId: acmeApp.appId,
      posix: true,
    });
    expect(on.data.posix).toBe(true);

    const user = await sssdUser('alice.ldap');
    expect(dnsOf(user.stdout)).toEqual([person(acme, 'alice.ldap')]);
    expect(valuesOf(user.stdout, 'objectClass')).toContain('posixAccount');
    const [uidNumber] = valuesOf(user.stdout, 'uidNumber');
    expect(Number(uidNumber)).toBeGreaterThanOrEqual(10000);
    // The person's user private group (sssd auto_private_groups): gidNumber is the uidNumber.
    expect(valuesOf(user.stdout, 'gidNumber')).toEqual([uidNumber]);
    expect(valuesOf(user.stdout, 'homeDirectory')).toEqual(['/home/alice.ldap']);
    expect(valuesOf(user.stdout, 'loginShell')).toEqual(['/bin/bash']);
    const bobNumber = valuesOf((await sssdUser('bob.ldap')).stdout, 'uidNumber')[0];
    expect(bobNumber).not.toBe(uidNumber);
    // getpwuid(): by number, through the index.
    expect(
      valuesOf((await asAcme(`(&(objectClass=posixAccount)(uidNumber=${uidNumber}))`, 'uid')).stdout, 'uid'),
    ).toEqual(['alice.ldap']);
    expect(dnsOf((await asAcme('(uidNumber=not-a-number)', 'uid')).stdout)).toEqual([]);
    const ranged = await asAcme(`(&(uidNumber>=${uidNumber})(uidNumber<=${uidNumber}))`, 'uid');
    expect(valuesOf(ranged.stdout, 'uid')).toEqual(['alice.ldap']);
    // initgroups(): the groups alice is a member of (the Ops department of the test above);
    // carol is in Ops but not given the application, so she is no memberUid.
    const groups = await asAcme(
      '(&(objectClass=posixGroup)(memberUid=alice.ldap))',
      'cn',
      'gidNumber',
      'memberUid',
    );
    expect(valuesOf(groups.stdout, 'cn')).toContain('Ops');
    const opsGroup = await asAcme('(&(objectClass=posixGroup)(cn=Ops))', 'gidNumber', 'memberUid');
    expect(valuesOf(opsGroup.stdout, 'memberUid')).toEqual(['alice.ldap']);
    const [gidNumber] = valuesOf(opsGroup.stdout, 'gidNumber');
    expect(Number(gidNumber)).toBeGreaterThanOrEqual(10000);
    expect([uidNumber, bobNumber]).not.toContain(gidNumber);
    // getgrgid()
    expect(dnsOf((await asAcme(`(&(objectClass=posixGroup)(gidNumber=${gidNumber}))`, 'cn')).stdout)).toEqual(
      dnsOf(opsGroup.stdout),
    );
    expect(dnsOf((await asAcme('(&(objectClass=posixGroup)(memberUid=carol.ldap))', 'cn')).stdout)).toEqual(
      [],
    );
    // Beta's application has posix off, and Beta's numbers are its own.
    const betaSees = await search(betaApp.bindDn, betaApp.secret, [
      '-b',
      betaApp.baseDn,
      '(objectClass=posixAccount)',
    ]);
    expect(dnsOf(betaSees.stdout)).toEqual([]);

    // A rename keeps the number; so does a restart.
    const db = ctx.database.db;
    await db.updateTable('accounts').set({ username: 'alice.renamed' }).where('id', '=', alice.id).execute();
    expect(valuesOf((await sssdUser('alice.renamed')).stdout, 'uidNumber')).toEqual([uidNumber]);
    expect(valuesOf((await sssdUser('alice.renamed')).stdout, 'homeDirectory')).toEqual([
      '/home/alice.renamed',
    ]);
    await db.updateTable('accounts').set({ username: 'alice.ldap' }).where('id', '=', alice.id).execute();
    await ctx.tessera.close();
    ctx.tessera = await anotherInstance(ctx, { ldap: true });
    url = `ldap://127.0.0.1:${ctx.tessera.ldap?.port}`;
    expect(valuesOf((await sssdUser('alice.ldap')).stdout, 'uidNumber')).toEqual([uidNumber]);
    expect(
      valuesOf((await asAcme('(&(objectClass=posixGroup)(cn=Ops))', 'gidNumber')).stdout, 'gidNumber'),
    ).toEqual([gidNumber]);
    // Someone new gets a new number, above every number given so far.
    const newcomer = await companyMember(ctx, acme, 'posix.newcomer');
    const given = await db
      .selectFrom('ldap_posix_ids')
      .select(['subject_id', 'number'])
      .where('company_id', '=', acme.companyId)
      .execute();
    const newcomerNumber = given.find((row) => row.subject_id === newcomer.id)?.number ?? 0;
    expect(newcomerNumber).toBe(Math.max(...given.map((row) => row.number)));
    expect(new Set(given.map((row) => row.number)).size).toBe(given.length);
  });
});
