import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSealer } from '../../lib/crypto.ts';
import { call, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import { hasLdapUtils, ldapTool, valuesOf } from '../../test/ldap-utils.ts';
import { installationCa } from '../ca/installation-ca.ts';
import type { RunningLdap } from './ldap-server.install.ts';
import { RENEW_BEFORE_MS } from './ldap-tls.ts';

/**
 * Issue 32, LDAPS and StartTLS with no certificate of the operator's: the installation CA (the
 * one `npm run keys -- ca` prints) issues the server's certificate for its configured names
 * (here 127.0.0.1 alone, as TESSERA_LDAP_HOST=127.0.0.1 gives) and renews it without a restart.
 * OpenLDAP's clients verify it (LDAPTLS_REQCERT=demand) and refuse it for another host name.
 */

let ctx: TestContext;
let ldap: RunningLdap;
let dir: string;
let caFile: string;
let app: { bindDn: string; baseDn: string; secret: string };

const DAY = 86_400_000;

/** The certificate a new TLS connection to the LDAPS port is given (verified against the CA). */
function servedCertificate(ca: string) {
  return new Promise<tls.PeerCertificate>((resolve, reject) => {
    const socket = tls.connect(
      { host: '127.0.0.1', port: ldap.ldapsPort as number, ca, servername: '' },
      () => {
        resolve(socket.getPeerCertificate());
        socket.destroy();
      },
    );
    socket.on('error', reject);
  });
}

describe.skipIf(!hasLdapUtils)("LDAP server TLS with the installation's certificate (issue 32)", () => {
  beforeAll(async () => {
    ctx = await startTestApp({ ldap: { ldaps: true, certificateNames: ['127.0.0.1'] } });
    ldap = ctx.tessera.ldap as RunningLdap;
    const owner = await ownerWithCompany(ctx, 'ldap-install-tls-owner', 'Installation TLS');
    const company = { token: owner.token, companyId: owner.companyId };
    const created = await call<{ app: { appId: string } }>(
      ctx,
      '/api/v1/manage/app/create',
      { name: 'sssd', protocol: 'ldap' },
      company,
    );
    const { appId } = created.data.app;
    app = (await call<typeof app>(ctx, '/api/v1/manage/app/ldap/secret/rotate', { appId }, company)).data;
    await call(ctx, '/api/v1/manage/app/status', { appId, status: 'opened' }, company);
    // What an operator does: `npm run keys --silent -- ca > tessera-ca.pem` (the same CA, read the same way).
    const ca = await installationCa(ctx.database.db, createSealer(ctx.masterKey));
    dir = await mkdtemp(join(tmpdir(), 'tessera-ldap-ca-'));
    caFile = join(dir, 'tessera-ca.pem');
    await writeFile(caFile, ca.certificatePem);
  }, 60_000);
  afterAll(async () => {
    await ctx?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const verified = () => ({ LDAPTLS_CACERT: caFile, LDAPTLS_REQCERT: 'demand' });
  const whoAmI = (uri: string, extra: string[] = []) =>
    ldapTool('ldapwhoami', ['-x', ...extra, '-H', uri, '-D', app.bindDn, '-w', app.secret], verified());

  it('is the one installation CA, kept in the database, that signs the served certificate', async () => {
    const again = await installationCa(ctx.database.db, createSealer(ctx.masterKey));
    expect(again.certificatePem).toBe(ldap.installationCertificate?.caPem);
    expect(await ctx.database.db.selectFrom('installation_cas').select('name').execute()).toEqual([
      { name: 'services' },
    ]);
    const served = await servedCertificate(again.certificatePem);
    expect(served.subjectaltname).toBe('IP Address:127.0.0.1');
    expect(served.issuer.CN).toMatch(/^Tessera installation CA [0-9a-f]{8}$/);
  });

  it('answers over LDAPS and after StartTLS (-ZZ) with the certificate verified', async () => {
    const ldaps = await whoAmI(`ldaps://127.0.0.1:${ldap.ldapsPort}`);
    expect(ldaps.status, ldaps.stderr).toBe(0);
    expect(ldaps.stdout.trim().toLowerCase()).toBe(`dn:${app.bindDn}`.toLowerCase());
    // After StartTLS, bound: the rootDSE lists StartTLS among the extended operations.
    const startTls = await ldapTool(
      'ldapsearch',
      [
        ...['-x', '-ZZ', '-LLL', '-H', `ldap://127.0.0.1:${ldap.port}`, '-D', app.bindDn, '-w', app.secret],
        ...['-b', '', '-s', 'base', 'supportedExtension'],
      ],
      verified(),
    );
    expect(startTls.status, startTls.stderr).toBe(0);
    expect(valuesOf(startTls.stdout, 'supportedExtension')).toContain('1.3.6.1.4.1.1466.20037');
  });

  it('fails verification for a host name the certificate does not name, and without the CA', async () => {
    // localhost reaches the same server (127.0.0.1), but the certificate names 127.0.0.1 only.
    const wrongName = await whoAmI(`ldaps://localhost:${ldap.ldapsPort}`);
    expect(wrongName.status).not.toBe(0);
    expect(wrongName.stdout).toBe('');
    const ca = ldap.installationCertificate?.caPem as string;
    const refused = await new Promise<string>((resolve) => {
      const socket = tls.connect({ host: 'localhost', port: ldap.ldapsPort as number, ca }, () => {
        socket.destroy();
        resolve('verified');
      });
      socket.on('error', (error: Error & { code?: string }) => resolve(error.code ?? error.message));
    });
    expect(refused).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
    const wrongNameStartTls = await whoAmI(`ldap://localhost:${ldap.port}`, ['-ZZ']);
    expect(wrongNameStartTls.status).not.toBe(0);
    expect(wrongNameStartTls.stderr).toMatch(/hostname does not match|Connect error/);
    const noCa = await ldapTool(
      'ldapwhoami',
      ['-x', '-H', `ldaps://127.0.0.1:${ldap.ldapsPort}`, '-D', app.bindDn, '-w', app.secret],
      { LDAPTLS_REQCERT: 'demand', LDAPTLS_CACERT: '/dev/null' },
    );
    expect(noCa.status).not.toBe(0);
  });

  it('renews the certificate well before it expires, without a restart', async () => {
    const certificate = ldap.installationCertificate;
    if (!certificate) throw new Error('no installation certificate');
    const ca = certificate.caPem;
    const before = await servedCertificate(ca);
    // Twenty days on, ten are left: not yet. Twenty-one days on: renewed.
    expect(await certificate.refresh(new Date(Date.now() + 19 * DAY))).toBe(false);
    expect(await certificate.refresh(new Date(Date.parse(before.valid_to) - RENEW_BEFORE_MS + 60_000))).toBe(
      true,
    );
    const after = await servedCertificate(ca);
    expect(after.serialNumber).not.toBe(before.serialNumber);
    expect(Date.parse(after.valid_to)).toBeGreaterThanOrEqual(Date.parse(before.valid_to));
    const ldaps = await whoAmI(`ldaps://127.0.0.1:${ldap.ldapsPort}`);
    expect(ldaps.status, ldaps.stderr).toBe(0);
    const startTls = await whoAmI(`ldap://127.0.0.1:${ldap.port}`, ['-ZZ']);
    expect(startTls.status, startTls.stderr).toBe(0);
  });
});
