import { randomInt } from 'node:crypto';
import type { CertificateStatus, KeyAlgorithm, KeyStrength, RevocationReason } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { generateKeyPair, type KeyInfo, PkiError } from '../../lib/pki/keys.ts';
import { pemBlocks, toPem } from '../../lib/pki/pem.ts';
import { makePkcs12 } from '../../lib/pki/pkcs12.ts';
import {
  buildCertificate,
  buildName,
  newSerialNumber,
  parseCertificate,
  parseCertificateRequest,
} from '../../lib/pki/x509.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { assertMayActOn, roleIn } from '../user/user-authority.ts';
import * as repo from './ca.repo.ts';
import {
  assertMayManage,
  BACKDATE_MS,
  type CaActor,
  type CaService,
  caUrls,
  strengthOf,
} from './ca.service.ts';

/**
 * Certificates issued to people by the company's CAs: from the person's own CSR (a UKEY makes
 * its key inside and hands out a request), or for a key pair made here and handed out once as
 * PKCS#12 under a one-time password. The subject is the person (CN their username, O the
 * company), whatever a request asks for. Revoking one publishes the CA's CRL again at once.
 */

/** One-time passwords of PKCS#12 files: 20 characters without look-alikes (~115 bits). */
const PASSWORD_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
const oneTimePassword = () =>
  Array.from({ length: 20 }, () => PASSWORD_ALPHABET[randomInt(PASSWORD_ALPHABET.length)]).join('');

export function statusOf(
  row: Pick<repo.CertificateRow, 'revoked_at' | 'not_after'>,
  now = Date.now(),
): CertificateStatus {
  if (row.revoked_at) return 'revoked';
  return row.not_after.getTime() <= now ? 'expired' : 'valid';
}

export function certificateView(row: repo.CertificateView) {
  return {
    certificateId: row.id,
    caId: row.ca_id,
    caName: row.ca_name,
    userId: row.account_id,
    username: row.username,
    subject: row.subject,
    serialNumber: row.serial_number,
    algorithm: row.algorithm,
    strength: row.strength as KeyStrength,
    source: row.source,
    status: statusOf(row),
    notBefore: row.not_before.toISOString(),
    notAfter: row.not_after.toISOString(),
    fingerprint: row.fingerprint,
    revokedAt: row.revoked_at?.toISOString() ?? null,
    revocationReason: (row.revocation_reason as RevocationReason | null) ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

/** The SubjectPublicKeyInfo of a PEM certificate request, checked (its signature, its key). */
function requestKey(csr: string) {
  const block = pemBlocks(csr, 4).find(
    (b) => b.label === 'CERTIFICATE REQUEST' || b.label === 'NEW CERTIFICATE REQUEST',
  );
  if (!block) throw new AppError('ca.csr_invalid');
  try {
    return parseCertificateRequest(block.der);
  } catch (error) {
    if (!(error instanceof PkiError)) throw error;
    if (error.problem === 'bad_signature') throw new AppError('ca.csr_signature');
    if (error.problem === 'unsupported_key') throw new AppError('ca.unsupported_key');
    throw new AppError('ca.csr_invalid');
  }
}

export function createCertificatesService(deps: { db: Db; cas: CaService; publicUrl: string }) {
  const { db, cas, publicUrl } = deps;

  async function find(companyId: string, certificateId: string) {
    const row = await repo.findCertificate(db, companyId, certificateId);
    if (!row) throw new AppError('ca.certificate_not_found');
    return row;
  }

  async function list(
    companyId: string,
    query: { caId?: string; userId?: string; status?: CertificateStatus; page: number; pageSize: number },
  ) {
    const { rows, total } = await repo.listCertificates(db, companyId, query);
    return { list: rows.map(certificateView), total };
  }

  async function detail(companyId: string, certificateId: string) {
    const row = await find(companyId, certificateId);
    return { ...certificateView(row), certificatePem: toPem('CERTIFICATE', row.certificate_der) };
  }

  async function issue(
    actor: CaActor,
    companyId: string,
    input: {
      caId: string;
      userId: string;
      csr?: string;
      keyAlgorithm?: KeyAlgorithm;
      keyStrength?: string;
      validityDays: number;
    },
  ) {
    assertMayManage(actor.role);
    const ca = await cas.find(db, companyId, input.caId);
    const role = await roleIn(db, companyId, input.userId);
    if (!role) throw new AppError('user.not_found');
    assertMayActOn(actor.role, role);
    const now = Date.now();
    if (ca.not_after.getTime() <= now) throw new AppError('ca.issuer_expired');
    const [person, company] = await Promise.all([
      db.selectFrom('accounts').select('username').where('id', '=', input.userId).executeTakeFirstOrThrow(),
      db.selectFrom('companies').select('name').where('id', '=', companyId).executeTakeFirstOrThrow(),
    ]);
    // The request is checked before any key is made: a bad one costs nothing.
    const requested = input.csr?.trim() ? requestKey(input.csr) : undefined;
    const algorithm = input.keyAlgorithm ?? ca.algorithm;
    const keyInfo: KeyInfo = requested?.keyInfo ?? {
      algorithm,
      strength: strengthOf(algorithm, input.keyStrength),
    };
    const generated = requested ? undefined : await generateKeyPair(keyInfo);
    const issuer = cas.issuerOf(ca);
    const urls = caUrls(publicUrl, ca.id);
    const der = buildCertificate({
      issuer,
      subject: buildName({ commonName: person.username, organization: company.name.slice(0, 64) }),
      subjectSpki: requested?.spki ?? (generated?.spki as Buffer),
      serialNumber: newSerialNumber(),
      notBefore: new Date(now - BACKDATE_MS),
      // Never beyond the CA's own validity.
      notAfter: new Date(Math.min(now + input.validityDays * 86_400_000, ca.not_after.getTime())),
      profile: 'person',
      crlUrl: urls.crlUrl,
      caIssuersUrl: urls.certificateUrl,
    });
    const certificate = parseCertificate(der);
    const id = newId();
    const pkcs12Password = generated ? oneTimePassword() : null;
    const pkcs12 = generated
      ? await makePkcs12({
          privateKey: generated.pkcs8,
          certificates: [der, Buffer.from(ca.certificate_der)],
          password: pkcs12Password as string,
          friendlyName: person.username,
        })
      : null;
    await db.transaction().execute(async (trx) => {
      await repo.insertCertificate(trx, {
        id,
        company_id: companyId,
        ca_id: ca.id,
        account_id: input.userId,
        subject: certificate.subjectText,
        serial_number: certificate.serialNumber,
        algorithm: keyInfo.algorithm,
        strength: keyInfo.strength,
        source: generated ? 'generated' : 'csr',
        not_before: certificate.notBefore,
        not_after: certificate.notAfter,
        fingerprint: certificate.fingerprint,
        certificate_der: der,
        created_by: actor.accountId,
      });
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'ca.certificate_issue',
        targetType: 'user',
        targetId: input.userId,
        after: {
          certificateId: id,
          caId: ca.id,
          serialNumber: certificate.serialNumber,
          source: generated ? 'generated' : 'csr',
          algorithm: keyInfo.algorithm,
          strength: keyInfo.strength,
          notAfter: certificate.notAfter.toISOString(),
        },
        ip: actor.ip,
      });
    });
    const row = await find(companyId, id);
    return {
      certificate: certificateView(row),
      certificatePem: toPem('CERTIFICATE', der),
      pkcs12: pkcs12?.toString('base64') ?? null,
      pkcs12Password,
    };
  }

  /** Revokes a certificate and publishes its CA's CRL in the same transaction. */
  async function revoke(
    actor: CaActor,
    companyId: string,
    input: { certificateId: string; reason: RevocationReason },
  ) {
    assertMayManage(actor.role);
    await db.transaction().execute(async (trx) => {
      const row = await repo.findCertificate(trx, companyId, input.certificateId);
      if (!row) throw new AppError('ca.certificate_not_found');
      if (!(await repo.revokeCertificate(trx, row.id, input.reason)))
        throw new AppError('ca.already_revoked');
      const ca = await cas.find(trx, companyId, row.ca_id);
      await cas.publishCrl(trx, ca);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'ca.certificate_revoke',
        targetType: 'user',
        targetId: row.account_id,
        before: { certificateId: row.id, serialNumber: row.serial_number, status: statusOf(row) },
        after: { status: 'revoked', reason: input.reason },
        ip: actor.ip,
      });
    });
    return certificateView(await find(companyId, input.certificateId));
  }

  return { list, detail, issue, revoke };
}

export type CertificatesService = ReturnType<typeof createCertificatesService>;
