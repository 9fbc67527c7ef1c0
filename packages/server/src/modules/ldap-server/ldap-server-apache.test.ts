import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, companyMember, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';

/**
 * A real LDAP client (issue 32): Apache httpd with mod_authnz_ldap, from
 * scripts/with-apache-ldap.sh, protects a page with basic authentication through Tessera's LDAP
 * server: it searches the person with an application's service account, then binds as them.
 * Without it (no TESSERA_TEST_APACHE_LDAP_START) these tests skip, except under CI=true.
 */
const START = process.env.TESSERA_TEST_APACHE_LDAP_START;
const PORT = process.env.TESSERA_TEST_APACHE_LDAP_PORT;
const isCi = process.env.CI === 'true' || process.env.CI === '1';
if (!START && !isCi)
  console.warn(
    'Apache LDAP client tests SKIPPED: run them with bash scripts/with-apache-ldap.sh npx vitest run …',
  );

describe.skipIf(!START && !isCi)(
  'Apache httpd with mod_authnz_ldap signs people in through the LDAP server',
  () => {
    let ctx: TestContext;
    let alice: { id: string; username: string; password: string };
    let bob: { id: string; username: string; password: string };
    let clientId: string;
    let apacheArgs: string[];
    let caDir: string | undefined;
    const page = `http://127.0.0.1:${PORT}/protected/index.shtml`;
    const get = (username: string, password: string) =>
      fetch(page, {
        headers: { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` },
      });

    beforeAll(async () => {
      expect(START, 'scripts/with-apache-ldap.sh did not run').toBeTruthy();
      ctx = await startTestApp({ ldap: {} });
      const owner = await ownerWithCompany(ctx, 'apache-ldap-owner', 'Apache LDAP Co');
      const company = { token: owner.token, companyId: owner.companyId };
      alice = await companyMember(ctx, company, 'apache-ldap-alice');
      bob = await companyMember(ctx, company, 'apache-ldap-bob');
      await ctx.database.db
        .updateTable('accounts')
        .set({ email: 'alice@apache-ldap.example' })
        .where('id', '=', alice.id)
        .execute();
      const created = await call<{ app: { appId: string; clientId: string } }>(
        ctx,
        '/api/v1/manage/app/create',
        { name: 'Intranet', protocol: 'ldap' },
        company,
      );
      const { appId } = created.data.app;
      clientId = created.data.app.clientId;
      const service = await call<{ bindDn: string; baseDn: string; secret: string }>(
        ctx,
        '/api/v1/manage/app/ldap/secret/rotate',
        { appId },
        company,
      );
      await call(ctx, '/api/v1/manage/app/update', { appId, defaultAccess: 'prohibit_all' }, company);
      expect((await call(ctx, '/api/v1/manage/app/status', { appId, status: 'opened' }, company)).code).toBe(
        200,
      );
      // Only Alice is given the application.
      await call(ctx, '/api/v1/manage/app/assignment/add', { appId, userIds: [alice.id] }, company);
      const { bindDn, baseDn, secret } = service.data;
      apacheArgs = [`ldap://127.0.0.1:${ctx.tessera.ldap?.port}`, bindDn, secret, `ou=people,${baseDn}`];
      await promisify(execFile)(START as string, apacheArgs);
    }, 60_000);
    afterAll(async () => {
      await ctx?.close();
      if (caDir) await rm(caDir, { recursive: true, force: true });
    });

    it('shows the page to a person given the application, with their mail', async () => {
      const response = await get(alice.username, alice.password);
      const html = await response.text();
      expect(response.status, html).toBe(200);
      expect(html).toContain(`<strong id="user">${alice.username}</strong>`);
      expect(html).toContain('alice@apache-ldap.example');
      const events = await ctx.database.db
        .selectFrom('login_events')
        .select(['result', 'client_id'])
        .where('identifier', '=', alice.username)
        .execute();
      expect(events).toContainEqual({ result: 'success', client_id: clientId });
    });

    it('refuses a person without the application, and a wrong password', async () => {
      // Bob is not among the people the service account sees: Apache finds nobody to bind as.
      expect((await get(bob.username, bob.password)).status).toBe(401);
      expect((await get(alice.username, 'Not-Her-Password-1')).status).toBe(401);
      const failures = await ctx.database.db
        .selectFrom('login_events')
        .select(['failure_cause'])
        .where('identifier', '=', alice.username)
        .where('result', '=', 'failure')
        .execute();
      expect(failures).toContainEqual({ failure_cause: 'wrong_password' });
    });

    it("signs in over StartTLS, verifying the installation's certificate with its CA", async () => {
      caDir = await mkdtemp(join(tmpdir(), 'tessera-apache-ldap-ca-'));
      const caFile = join(caDir, 'tessera-ca.pem');
      await writeFile(caFile, ctx.tessera.ldap?.installationCertificate?.caPem as string);
      await promisify(execFile)(START as string, [...apacheArgs, caFile, 'STARTTLS']);
      const response = await get(alice.username, alice.password);
      expect(response.status, await response.text()).toBe(200);
      expect((await get(alice.username, 'Not-Her-Password-1')).status).toBe(401);
      // Trusting another CA, Apache cannot verify the server: nobody gets in.
      await promisify(execFile)('openssl', [
        ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'],
        ...['-keyout', join(caDir, 'other.key'), '-out', join(caDir, 'other.pem'), '-days', '1'],
        ...['-subj', '/CN=Another CA'],
      ]);
      await promisify(execFile)(START as string, [...apacheArgs, join(caDir, 'other.pem'), 'STARTTLS']);
      expect((await get(alice.username, alice.password)).status).not.toBe(200);
    });
  },
);
