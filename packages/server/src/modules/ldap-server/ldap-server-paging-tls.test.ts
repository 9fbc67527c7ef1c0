import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import { dnsOf, hasLdapUtils, ldapTool, valuesOf } from '../../test/ldap-utils.ts';
import { hasOpenssl, opensslWorkspace } from '../../test/openssl.ts';

/**
 * Issue 32, the LDAP server's paging and TLS with OpenLDAP's clients: the paged-results control
 * (RFC 2696) over 1 200 people given to the application through a department below the one it
 * is assigned, the size limit, and LDAPS and StartTLS with the certificate verified against the
 * CA (LDAPTLS_CACERT, LDAPTLS_REQCERT=demand).
 */

const PEOPLE = 1200;
let ctx: TestContext;
let workspace: Awaited<ReturnType<typeof opensslWorkspace>>;
let app: { bindDn: string; baseDn: string; secret: string };
let ports: { port: number; ldapsPort: number | null };

describe.skipIf(!hasLdapUtils || !hasOpenssl)('LDAP server paging and TLS (issue 32)', () => {
  beforeAll(async () => {
    workspace = await opensslWorkspace();
    const o = workspace.openssl;
    const ok = (r: { ok: boolean; output: string }) => expect(r.ok, r.output).toBe(true);
    ok(
      await o(
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        'ca.key',
        '-out',
        'ca.crt',
        '-days',
        '2',
        '-subj',
        '/CN=Tessera test LDAP CA',
      ),
    );
    ok(
      await o(
        'req',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        'server.key',
        '-out',
        'server.csr',
        '-subj',
        '/CN=localhost',
      ),
    );
    await workspace.file(
      'ext.cnf',
      'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n',
    );
    ok(
      await o(
        'x509',
        '-req',
        '-in',
        'server.csr',
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        'server.crt',
        '-days',
        '2',
        '-extfile',
        'ext.cnf',
      ),
    );
    ctx = await startTestApp({
      ldap: { certFile: workspace.path('server.crt'), keyFile: workspace.path('server.key') },
    });
    ports = ctx.tessera.ldap as { port: number; ldapsPort: number | null };
    const owner = await ownerWithCompany(ctx, 'ldap-paging-owner', 'Paging Directory');
    const company = { token: owner.token, companyId: owner.companyId };
    const created = await call<{ app: { appId: string } }>(
      ctx,
      '/api/v1/manage/app/create',
      { name: 'sssd', protocol: 'ldap' },
      company,
    );
    const { appId } = created.data.app;
    const rotated = await call<typeof app>(ctx, '/api/v1/manage/app/ldap/secret/rotate', { appId }, company);
    app = rotated.data;
    await call(ctx, '/api/v1/manage/app/update', { appId, defaultAccess: 'prohibit_all' }, company);
    await call(ctx, '/api/v1/manage/app/status', { appId, status: 'opened' }, company);
    // 1 200 people in "Engineering / Platform"; the application is given "Engineering".
    const db = ctx.database.db;
    const root = await db
      .selectFrom('departments')
      .select('id')
      .where('company_id', '=', owner.companyId)
      .where('parent_id', 'is', null)
      .executeTakeFirstOrThrow();
    const top = crypto.randomUUID();
    const below = crypto.randomUUID();
    await db
      .insertInto('departments')
      .values([
        { id: top, company_id: owner.companyId, parent_id: root.id, name: 'Engineering' },
        { id: below, company_id: owner.companyId, parent_id: top, name: 'Platform' },
      ])
      .execute();
    await sql`insert into accounts (id, username, email, password_hash, home_company_id)
      select gen_random_uuid()::text, 'p' || lpad(n::text, 5, '0'), 'p' || n || '@paging.test', '!', ${owner.companyId}
      from generate_series(1, ${PEOPLE}) n`.execute(db);
    await sql`insert into company_members (company_id, account_id, role)
      select ${owner.companyId}, id, 'member' from accounts where username like 'p0%'`.execute(db);
    await sql`insert into department_members (department_id, company_id, account_id)
      select ${below}, ${owner.companyId}, id from accounts where username like 'p0%'`.execute(db);
    await db
      .insertInto('app_department_assignments')
      .values({ app_id: appId, department_id: top, company_id: owner.companyId })
      .execute();
  }, 120_000);
  afterAll(async () => {
    await ctx?.close();
    await workspace?.close();
  });

  const search = (uri: string, args: string[], env: Record<string, string> = {}) =>
    ldapTool(
      'ldapsearch',
      ['-x', '-LLL', '-H', uri, '-D', app.bindDn, '-w', app.secret, '-b', `ou=people,${app.baseDn}`, ...args],
      env,
    );
  const verified = () => ({ LDAPTLS_CACERT: workspace.path('ca.crt'), LDAPTLS_REQCERT: 'demand' });

  it('pages over 1 200 people with the paged-results control, every person once', async () => {
    const paged = await search(`ldap://127.0.0.1:${ports.port}`, [
      '-s',
      'one',
      '-E',
      'pr=100/noprompt',
      '(objectClass=inetOrgPerson)',
      'uid',
    ]);
    expect(paged.status, paged.stderr).toBe(0);
    const uids = valuesOf(paged.stdout, 'uid');
    expect(uids).toHaveLength(PEOPLE);
    expect(new Set(uids).size).toBe(PEOPLE);
    // ldapsearch prints the control of each page's result: 12 pages of 100 and the last, empty cookie.
    expect(paged.stdout.match(/# pagedresults: cookie=/g)?.length ?? 0).toBeGreaterThanOrEqual(12);
  });

  it('stops at the size limit, and at the server limit without paging', async () => {
    const limited = await search(`ldap://127.0.0.1:${ports.port}`, ['-z', '5', '(uid=p0*)', 'uid']);
    expect(limited.status).toBe(4);
    expect(dnsOf(limited.stdout)).toHaveLength(5);
    const unpaged = await search(`ldap://127.0.0.1:${ports.port}`, ['(uid=p0*)', 'uid']);
    expect(unpaged.status).toBe(4);
    expect(dnsOf(unpaged.stdout)).toHaveLength(1000);
  });

  it('answers over LDAPS and after StartTLS with the certificate verified, and not with another CA', async () => {
    const ldaps = await search(`ldaps://127.0.0.1:${ports.ldapsPort}`, ['(uid=p00042)', 'mail'], verified());
    expect(ldaps.status, ldaps.stderr).toBe(0);
    expect(valuesOf(ldaps.stdout, 'mail')).toEqual(['p42@paging.test']);
    const startTls = await ldapTool(
      'ldapsearch',
      [
        '-x',
        '-ZZ',
        '-LLL',
        '-H',
        `ldap://127.0.0.1:${ports.port}`,
        '-D',
        app.bindDn,
        '-w',
        app.secret,
        '-b',
        app.baseDn,
        '(uid=p01200)',
        'uid',
      ],
      verified(),
    );
    expect(startTls.status, startTls.stderr).toBe(0);
    expect(valuesOf(startTls.stdout, 'uid')).toEqual(['p01200']);
    const who = await ldapTool(
      'ldapwhoami',
      ['-x', '-ZZ', '-H', `ldap://127.0.0.1:${ports.port}`, '-D', app.bindDn, '-w', app.secret],
      verified(),
    );
    expect(who.status, who.stderr).toBe(0);
    // A CA that did not sign the server's certificate: the client refuses to talk.
    await workspace.openssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'other.key',
      '-out',
      'other.crt',
      '-days',
      '2',
      '-subj',
      '/CN=Another CA',
    );
    const wrongCa = await search(`ldaps://127.0.0.1:${ports.ldapsPort}`, ['(uid=p00042)'], {
      LDAPTLS_CACERT: workspace.path('other.crt'),
      LDAPTLS_REQCERT: 'demand',
    });
    expect(wrongCa.status).not.toBe(0);
    expect(wrongCa.stdout).toBe('');
  });
});
