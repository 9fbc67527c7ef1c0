import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  companyMember,
  ownerWithCompany,
  sessionFor,
  startTestApp,
  type TestContext,
  upload,
} from '../../test/harness.ts';
import { hasOpenssl, opensslWorkspace } from '../../test/openssl.ts';
import { addYears } from './ca.service.ts';

/**
 * Issue 17, certificate authority: CAs of every strength of spec §5, imported CA files (PEM and
 * PKCS#12, checked), certificates issued from a CSR or as PKCS#12, revoked with a reason, and the
 * CRL at its public address. openssl, a party we did not write, checks every certificate.
 */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let ws: Awaited<ReturnType<typeof opensslWorkspace>>;
beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  owner = await ownerWithCompany(ctx, 'ca-owner', 'Acme Certificates');
  ws = await opensslWorkspace();
});
afterAll(async () => {
  await ws?.close();
  await ctx.close();
});

type Ca = {
  caId: string;
  algorithm: string;
  strength: string;
  subject: string;
  crlUrl: string;
  certificateUrl: string;
};
const admin = <T = Record<string, unknown>>(path: string, body: unknown, lang?: string) =>
  call<T>(ctx, path, body, { token: owner.token, companyId: owner.companyId, lang });
const caCount = async () => (await admin<{ list: Ca[] }>('/api/v1/manage/ca/list', {})).data.list.length;
const pemOf = async (caId: string) =>
  (await admin<{ certificatePem: string }>('/api/v1/manage/ca/detail', { caId })).data.certificatePem;
/** openssl verify, with SM2's distinguishing id (MACHINE-FACTS) for SM2 certificates. */
const verify = (sm2: boolean, ...args: string[]) =>
  ws.openssl('verify', ...(sm2 ? ['-vfyopt', 'distid:1234567812345678'] : []), ...args);

describe('CA validity', () => {
  it('ends at the same date and time, calendar years later', () => {
    expect(addYears(new Date('2026-11-25T05:25:00Z'), 10).toISOString()).toBe('2036-11-25T05:25:00.000Z');
    expect(addYears(new Date('2028-02-29T12:00:00Z'), 1).toISOString()).toBe('2029-02-28T12:00:00.000Z');
  });
});

describe.skipIf(!hasOpenssl)('certificate authorities', () => {
  const created = new Map<string, Ca>();

  it('creates a CA of every algorithm and strength of spec §5, which openssl accepts', async () => {
    const strengths = [
      ['rsa', '2048'],
      ['rsa', '3072'],
      ['rsa', '4096'],
      ['ecc', 'P-256'],
      ['ecc', 'P-384'],
      ['ecc', 'P-521'],
      ['sm2', undefined],
    ] as const;
    const answers = await Promise.all(
      strengths.map(([algorithm, strength]) =>
        admin<Ca>('/api/v1/manage/ca/create', {
          name: `${algorithm} ${strength ?? 'default'}`,
          algorithm,
          strength,
          organization: 'Acme',
        }),
      ),
    );
    for (const [index, answer] of answers.entries()) {
      expect(answer.code, answer.msg).toBe(200);
      const [algorithm, strength] = strengths[index] ?? [];
      // Spec §5: SM2 defaults to SMP256.
      expect(answer.data).toMatchObject({ algorithm, strength: strength ?? 'SMP256', source: 'created' });
      expect(answer.data.subject).toBe(`O=Acme, CN=${algorithm} ${strength ?? 'default'}`);
      created.set(answer.data.strength, answer.data);
      const file = await ws.file(`ca-${index}.pem`, await pemOf(answer.data.caId));
      const result = await verify(algorithm === 'sm2', '-CAfile', file, file);
      expect(result.output).toContain(': OK');
    }
    // The key is sealed: nothing of it is stored in the clear.
    const row = await ctx.database.db
      .selectFrom('certificate_authorities')
      .select('private_key_sealed')
      .executeTakeFirstOrThrow();
    expect(row.private_key_sealed).toMatch(/^v1\./);
  });

  it('refuses a strength of another algorithm, in both languages, and stores nothing', async () => {
    const before = await caCount();
    const en = await admin('/api/v1/manage/ca/create', { name: 'Wrong', algorithm: 'sm2', strength: '2048' });
    expect(en).toMatchObject({ code: 400, msg: 'SM2 supports these key strengths: SMP256' });
    const zh = await admin(
      '/api/v1/manage/ca/create',
      { name: 'Wrong', algorithm: 'ecc', strength: 'P-999' },
      'zh',
    );
    expect(zh.code).toBe(400);
    // A strength of no algorithm at all: the refusal still names the algorithm's (issue 35 item 21).
    expect(zh.msg).toBe('ECC 支持的密钥强度：P-256, P-384, P-521');
    const unnamed = await admin('/api/v1/manage/ca/create', { name: ' ', algorithm: 'rsa' }, 'zh');
    expect(unnamed.msg).toBe('请输入证书颁发机构名称');
    expect(await caCount()).toBe(before);
  });

  it('lets external administrators see CAs but not change them; members are not let in at all', async () => {
    const external = await admin<{ userId: string }>('/api/v1/manage/company/user/create', {
      username: 'ca-external',
      role: 'external_admin',
      password: 'Sturdy-Gate-42',
    });
    const token = await sessionFor(ctx, external.data.userId);
    const as = (path: string, body: unknown) => call(ctx, path, body, { token, companyId: owner.companyId });
    expect((await as('/api/v1/manage/ca/list', {})).code).toBe(200);
    expect(await as('/api/v1/manage/ca/create', { name: 'Mine', algorithm: 'ecc' })).toMatchObject({
      code: 403,
      data: { reason: 'auth.forbidden' },
    });
    const member = await companyMember(ctx, owner, 'ca-member');
    const memberToken = await sessionFor(ctx, member.id);
    expect(
      (await call(ctx, '/api/v1/manage/ca/list', {}, { token: memberToken, companyId: owner.companyId }))
        .data,
    ).toMatchObject({ reason: 'company.not_found' });
  });

  describe('issuing and revoking', () => {
    let person: { id: string; username: string };
    beforeAll(async () => {
      person = await companyMember(ctx, owner, 'cert-holder');
    });

    const crlOf = async (ca: Ca, name: string) => {
      const response = await fetch(ca.crlUrl);
      expect(response.headers.get('content-type')).toBe('application/pkix-crl');
      return ws.file(name, Buffer.from(await response.arrayBuffer()));
    };

    it.each([
      ['P-256', 'ec', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256']],
      ['2048', 'rsa', ['-newkey', 'rsa:2048']],
    ] as const)(
      'issues from a CSR (%s): openssl verifies it against the CA and the CRL until it is revoked',
      async (strength, label, newKey) => {
        const ca = created.get(strength) as Ca;
        await ws.openssl(
          'req',
          '-new',
          ...newKey,
          '-nodes',
          '-keyout',
          `${label}.key`,
          '-subj',
          '/CN=ignored',
          '-out',
          `${label}.csr`,
        );
        const csr = readFile(ws.path(`${label}.csr`), 'utf8');
        const issued = await admin<{
          certificate: { certificateId: string; subject: string; source: string };
          certificatePem: string;
          pkcs12: null;
        }>('/api/v1/manage/ca/certificate/issue', {
          caId: ca.caId,
          userId: person.id,
          csr: await csr,
          validityDays: 30,
        });
        expect(issued.code, issued.msg).toBe(200);
        // The subject is the person, whatever the request asked for.
        expect(issued.data.certificate).toMatchObject({
          subject: 'O=Acme Certificates, CN=cert-holder',
          source: 'csr',
        });
        expect(issued.data.pkcs12).toBeNull();
        const caFile = await ws.file(`${label}-ca.pem`, await pemOf(ca.caId));
        const leaf = await ws.file(`${label}-leaf.pem`, issued.data.certificatePem);
        const before = await crlOf(ca, `${label}-before.crl`);
        expect(
          (await verify(false, '-crl_check', '-CAfile', caFile, '-CRLfile', before, leaf)).output,
        ).toContain(': OK');
        // The certificate names where its CRL is.
        expect(
          (await ws.openssl('x509', '-in', leaf, '-noout', '-ext', 'crlDistributionPoints')).output,
        ).toContain(ca.crlUrl);

        const revoked = await admin<{ status: string; revocationReason: string }>(
          '/api/v1/manage/ca/certificate/revoke',
          {
            certificateId: issued.data.certificate.certificateId,
            reason: 'keyCompromise',
          },
        );
        expect(revoked.data).toMatchObject({ status: 'revoked', revocationReason: 'keyCompromise' });
        const after = await crlOf(ca, `${label}-after.crl`);
        const refused = await verify(false, '-crl_check', '-CAfile', caFile, '-CRLfile', after, leaf);
        expect(refused.ok).toBe(false);
        expect(refused.output).toContain('certificate revoked');
        const listed = await ws.openssl('crl', '-in', after, '-inform', 'DER', '-noout', '-text');
        expect(listed.output).toContain('Key Compromise');
        // A second revocation is refused.
        expect(
          (
            await admin('/api/v1/manage/ca/certificate/revoke', {
              certificateId: issued.data.certificate.certificateId,
            })
          ).data,
        ).toMatchObject({ reason: 'ca.already_revoked' });
      },
    );

    it('hands out a generated key pair as PKCS#12 under a one-time password (SM2 verified with its distinguishing id)', async () => {
      const ca = created.get('SMP256') as Ca;
      const issued = await admin<{
        certificatePem: string;
        pkcs12: string;
        pkcs12Password: string;
        certificate: { source: string };
      }>('/api/v1/manage/ca/certificate/issue', { caId: ca.caId, userId: person.id });
      expect(issued.code, issued.msg).toBe(200);
      expect(issued.data.certificate.source).toBe('generated');
      expect(issued.data.pkcs12Password).toMatch(/^[A-Za-z0-9]{20}$/);
      const p12 = await ws.file('sm2.p12', Buffer.from(issued.data.pkcs12, 'base64'));
      const opened = await ws.openssl(
        'pkcs12',
        '-in',
        p12,
        '-passin',
        `pass:${issued.data.pkcs12Password}`,
        '-nodes',
        '-out',
        'sm2-out.pem',
      );
      expect(opened.ok, opened.output).toBe(true);
      expect((await ws.openssl('pkcs12', '-in', p12, '-passin', 'pass:wrong', '-nodes')).ok).toBe(false);
      const caFile = await ws.file('sm2-ca.pem', await pemOf(ca.caId));
      const leaf = await ws.file('sm2-leaf.pem', issued.data.certificatePem);
      expect((await verify(true, '-CAfile', caFile, leaf)).output).toContain(': OK');
      // The key is nowhere in the database; the password neither.
      const stored = JSON.stringify(
        await ctx.database.db.selectFrom('issued_certificates').selectAll().execute(),
      );
      expect(stored).not.toContain(issued.data.pkcs12Password);
      // The CRL of an SM2 CA is an SM2-signed CRL that openssl reads.
      const crl = await crlOf(ca, 'sm2.crl');
      expect((await ws.openssl('crl', '-in', crl, '-inform', 'DER', '-noout', '-text')).output).toContain(
        'SM2-with-SM3',
      );
    });

    it('refuses a request that its own key did not sign, and a CA of another company', async () => {
      const ca = created.get('P-384') as Ca;
      const bad = await admin(
        '/api/v1/manage/ca/certificate/issue',
        { caId: ca.caId, userId: person.id, csr: 'not a request' },
        'zh',
      );
      expect(bad).toMatchObject({ code: 400, msg: '证书请求不是有效的 PEM 格式 PKCS#10 CSR' });
      await ws.openssl(
        'req',
        '-new',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-384',
        '-nodes',
        '-keyout',
        't.key',
        '-subj',
        '/CN=t',
        '-out',
        't.csr',
        '-outform',
        'DER',
      );
      const der = Buffer.from(
        (await ws.openssl('req', '-in', 't.csr', '-inform', 'DER', '-outform', 'DER')).stdout,
      );
      der.writeUInt8((der.at(-5) ?? 0) ^ 0xff, der.length - 5); // a byte of the signature
      const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
      expect(
        (
          await admin('/api/v1/manage/ca/certificate/issue', {
            caId: ca.caId,
            userId: person.id,
            csr: tampered,
          })
        ).data,
      ).toMatchObject({ reason: expect.stringMatching(/^ca\.csr_(signature|invalid)$/) });
      const other = await ownerWithCompany(ctx, 'ca-other', 'Other Certificates');
      const theirs = await call<{ caId: string }>(
        ctx,
        '/api/v1/manage/ca/create',
        { name: 'Theirs', algorithm: 'ecc' },
        { token: other.token, companyId: other.companyId },
      );
      expect(
        (await admin('/api/v1/manage/ca/certificate/issue', { caId: theirs.data.caId, userId: person.id }))
          .data,
      ).toMatchObject({
        reason: 'ca.not_found',
      });
      expect((await fetch(`${ctx.baseUrl}/pki/${theirs.data.caId}.crt`)).status).toBe(200);
      expect((await fetch(`${ctx.baseUrl}/pki/not-a-ca.crl`)).status).toBe(404);
    });

    it('keeps a CA with valid certificates, and removes it once they are revoked', async () => {
      const ca = created.get('P-521') as Ca;
      const issued = await admin<{ certificate: { certificateId: string } }>(
        '/api/v1/manage/ca/certificate/issue',
        { caId: ca.caId, userId: person.id },
      );
      expect(await admin('/api/v1/manage/ca/del', { caId: ca.caId })).toMatchObject({
        code: 409,
        data: { reason: 'ca.has_certificates' },
      });
      await admin('/api/v1/manage/ca/certificate/revoke', {
        certificateId: issued.data.certificate.certificateId,
      });
      expect((await admin('/api/v1/manage/ca/del', { caId: ca.caId })).code).toBe(200);
      expect((await fetch(ca.crlUrl)).status).toBe(404);
    });
  });

  describe('importing a CA file', () => {
    const importFile = (bytes: Buffer, fields: Record<string, string>, lang?: string) =>
      upload(
        ctx,
        '/api/v1/manage/ca/import',
        { bytes, filename: 'ca.p12', type: 'application/x-pkcs12' },
        { token: owner.token, companyId: owner.companyId, fields, lang },
      );
    const selfSigned = async (name: string, key: string[], extensions: string[]) => {
      await ws.openssl(
        'req',
        '-x509',
        ...key,
        '-nodes',
        '-keyout',
        `${name}.key`,
        '-subj',
        `/CN=${name}`,
        '-days',
        '30',
        ...extensions,
        '-out',
        `${name}.pem`,
      );
      return { key: await readFile(ws.path(`${name}.key`)), cert: await readFile(ws.path(`${name}.pem`)) };
    };

    it('takes PEM (certificate and key) and PKCS#12, and checks the key, the constraints and the password', async () => {
      const root = await selfSigned(
        'imported-root',
        ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
        [],
      );
      const pem = await importFile(Buffer.concat([root.cert, root.key]), { name: 'Imported PEM' });
      expect(pem.code, pem.msg).toBe(200);
      expect(pem.data).toMatchObject({
        source: 'imported',
        algorithm: 'ecc',
        strength: 'P-256',
        subject: 'CN=imported-root',
      });
      expect((await importFile(Buffer.concat([root.cert, root.key]), { name: 'Again' })).data).toMatchObject({
        reason: 'ca.already_imported',
      });

      const second = await selfSigned(
        'p12-root',
        ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384'],
        [],
      );
      await ws.openssl(
        'pkcs12',
        '-export',
        '-inkey',
        'p12-root.key',
        '-in',
        'p12-root.pem',
        '-passout',
        'pass:Open-Sesame',
        '-out',
        'root.p12',
      );
      const p12 = await readFile(ws.path('root.p12'));
      const before = await caCount();
      expect(await importFile(p12, { name: 'P12', password: 'wrong' })).toMatchObject({
        code: 400,
        msg: 'The password of the CA file is missing or wrong',
      });
      expect(await importFile(p12, { name: 'P12', password: 'wrong' }, 'zh')).toMatchObject({
        msg: 'CA 文件密码缺失或错误',
      });
      await ws.openssl(
        'pkcs12',
        '-export',
        '-legacy',
        '-inkey',
        'p12-root.key',
        '-in',
        'p12-root.pem',
        '-passout',
        'pass:Open-Sesame',
        '-out',
        'legacy.p12',
      );
      const legacy = await importFile(await readFile(ws.path('legacy.p12')), {
        name: 'Legacy',
        password: 'Open-Sesame',
      });
      // OpenSSL 3 may lack the legacy provider to write RC2; then there is nothing to refuse.
      if (legacy.code !== 200)
        expect(legacy.data).toMatchObject({ reason: 'ca.file_encryption_unsupported' });
      else await admin('/api/v1/manage/ca/del', { caId: (legacy.data as { caId: string }).caId });
      expect(await importFile(second.cert, { name: 'No key' })).toMatchObject({
        data: { reason: 'ca.key_missing' },
      });
      expect(await importFile(Buffer.concat([second.cert, root.key]), { name: 'Wrong key' })).toMatchObject({
        data: { reason: 'ca.key_mismatch' },
      });
      const leaf = await selfSigned(
        'not-a-ca',
        ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
        ['-addext', 'basicConstraints=critical,CA:FALSE'],
      );
      expect(await importFile(Buffer.concat([leaf.cert, leaf.key]), { name: 'Leaf' })).toMatchObject({
        data: { reason: 'ca.not_ca' },
      });
      expect(await importFile(Buffer.from('hello'), { name: 'Garbage' })).toMatchObject({
        data: { reason: 'ca.file_unreadable' },
      });
      const weak = await selfSigned('weak', ['-newkey', 'rsa:1024'], []);
      expect(await importFile(Buffer.concat([weak.cert, weak.key]), { name: 'Weak' })).toMatchObject({
        data: { reason: 'ca.unsupported_key' },
      });
      expect(await caCount()).toBe(before);
      const ok = await importFile(p12, { name: 'P12', password: 'Open-Sesame' });
      expect(ok.data).toMatchObject({ algorithm: 'ecc', strength: 'P-384' });
    });

    it('says "Please choose the CA file" when none comes (spec §5)', async () => {
      const response = await ctx.tessera.app.inject({
        method: 'POST',
        url: '/api/v1/manage/ca/import',
        headers: {
          'content-type': 'multipart/form-data; boundary=x',
          access_token: owner.token,
          company_id: owner.companyId,
        },
        payload: '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nNo file\r\n--x--\r\n',
      });
      expect(response.json()).toMatchObject({ code: 400, msg: 'Please choose the CA file' });
    });
  });
});
