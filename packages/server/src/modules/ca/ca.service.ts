import {
  caLimits,
  defaultKeyStrength,
  type KeyAlgorithm,
  type KeyStrength,
  keyStrengths,
  type MemberRole,
  type RevocationReason,
} from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { readKeyFile } from '../../lib/pki/key-file.ts';
import { generateKeyPair, isValidStrength, keysMatch, loadPrivateKey, PkiError } from '../../lib/pki/keys.ts';
import { toPem } from '../../lib/pki/pem.ts';
import {
  buildCertificate,
  buildCrl,
  buildName,
  type Issuer,
  keyIdentifierOf,
  newSerialNumber,
  type ParsedCertificate,
  parseCertificate,
} from '../../lib/pki/x509.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import * as repo from './ca.repo.ts';

/** The same date and time `years` calendar years later (29 February becomes 28 February). */
export function addYears(from: Date, years: number): Date {
  const to = new Date(from);
  to.setUTCFullYear(from.getUTCFullYear() + years);
  // 29 February of a year with no such day rolled over into March.
  if (to.getUTCMonth() !== from.getUTCMonth()) to.setUTCDate(0);
  return to;
}
/**
 * Certificate authorities of a company: created with a new key or imported from a CA file, the
 * key sealed with the master key (and bound to the CA's id), and a CRL per CA published at a
 * stable public address, signed anew on every revocation and before the previous one expires.
 */

export interface CaActor {
  accountId: string;
  ip: string;
  role: MemberRole;
}

/** Owners and administrators change CAs and certificates; external administrators see them. */
export function assertMayManage(role: MemberRole) {
  if (role !== 'owner' && role !== 'admin') throw new AppError('auth.forbidden');
}

const KEY_PURPOSE = 'ca-private-key';
/** A CRL is valid a week; it is signed again when less than a day is left (or on a revocation). */
const CRL_VALIDITY_MS = 7 * 86_400_000;
const CRL_REFRESH_MS = 86_400_000;
/** Certificates start a little in the past, for clocks that run behind. */
export const BACKDATE_MS = 5 * 60_000;

export const caUrls = (publicUrl: string, caId: string) => ({
  crlUrl: `${publicUrl}/pki/${caId}.crl`,
  certificateUrl: `${publicUrl}/pki/${caId}.crt`,
});

/** The strength asked for, or the algorithm's default (spec §5: SM2 defaults to SMP256). */
export function strengthOf(algorithm: KeyAlgorithm, strength: string | undefined): KeyStrength {
  const chosen = strength ?? defaultKeyStrength[algorithm];
  if (!isValidStrength(algorithm, chosen))
    throw new AppError('ca.strength_invalid', {
      algorithm: algorithm.toUpperCase(),
      allowed: keyStrengths[algorithm].join(', '),
    });
  return chosen;
}

/** The import's refusal for a file that is not what it should be. */
function importRefusal(problem: PkiError['problem']): AppError {
  switch (problem) {
    case 'password':
      return new AppError('ca.file_password');
    case 'encryption_unsupported':
      return new AppError('ca.file_encryption_unsupported');
    case 'unsupported_key':
      return new AppError('ca.unsupported_key');
    default:
      return new AppError('ca.file_unreadable');
  }
}

export function createCaService(deps: { db: Db; sealer: Sealer; publicUrl: string }) {
  const { db, sealer, publicUrl } = deps;

  const keyPurpose = (caId: string) => `${KEY_PURPOSE}:${caId}`;

  /** The CA as a signer: its key unsealed, its name and key identifier from its certificate. */
  function issuerOf(ca: repo.CaRow): Issuer & { certificate: ParsedCertificate } {
    const certificate = parseCertificate(ca.certificate_der);
    const key = loadPrivateKey(Buffer.from(sealer.open(ca.private_key_sealed, keyPurpose(ca.id)), 'base64'));
    return {
      key,
      name: certificate.subject,
      keyIdentifier: certificate.subjectKeyId ?? keyIdentifierOf(certificate.spki),
      certificate,
    };
  }

  function view(ca: repo.CaRow, counts = { valid: 0, revoked: 0, expired: 0 }) {
    return {
      caId: ca.id,
      name: ca.name,
      algorithm: ca.algorithm,
      strength: ca.strength as KeyStrength,
      source: ca.source,
      subject: ca.subject,
      serialNumber: ca.serial_number,
      notBefore: ca.not_before.toISOString(),
      notAfter: ca.not_after.toISOString(),
      fingerprint: ca.fingerprint,
      ...caUrls(publicUrl, ca.id),
      certificates: counts,
      createdAt: ca.created_at.toISOString(),
    };
  }

  async function find(db: Db, companyId: string, caId: string) {
    const ca = await repo.findCa(db, companyId, caId);
    if (!ca) throw new AppError('ca.not_found');
    return ca;
  }

  async function list(companyId: string) {
    const [cas, counts] = await Promise.all([
      repo.listCas(db, companyId),
      repo.certificateCounts(db, companyId),
    ]);
    return { list: cas.map((ca) => view(ca, counts.get(ca.id))) };
  }

  async function detail(companyId: string, caId: string) {
    const ca = await find(db, companyId, caId);
    const counts = await repo.certificateCounts(db, companyId);
    return { ...view(ca, counts.get(ca.id)), certificatePem: toPem('CERTIFICATE', ca.certificate_der) };
  }

  /** Stores a CA and its first CRL, with its audit event, in one transaction. */
  async function store(
    actor: CaActor,
    companyId: string,
    input: {
      id: string;
      name: string;
      source: 'created' | 'imported';
      certificate: ParsedCertificate;
      pkcs8: Buffer;
    },
  ) {
    return db.transaction().execute(async (trx) => {
      if ((await repo.countCas(trx, companyId)) >= caLimits.casPerCompany)
        throw new AppError('ca.too_many', { max: caLimits.casPerCompany });
      const { certificate } = input;
      const row = {
        id: input.id,
        company_id: companyId,
        name: input.name,
        algorithm: certificate.keyInfo.algorithm,
        strength: certificate.keyInfo.strength,
        source: input.source,
        subject: certificate.subjectText,
        serial_number: certificate.serialNumber,
        not_before: certificate.notBefore,
        not_after: certificate.notAfter,
        fingerprint: certificate.fingerprint,
        certificate_der: certificate.der,
        private_key_sealed: sealer.seal(input.pkcs8.toString('base64'), keyPurpose(input.id)),
        created_by: actor.accountId,
      };
      const existing = await trx
        .selectFrom('certificate_authorities')
        .select('id')
        .where('company_id', '=', companyId)
        .where('fingerprint', '=', certificate.fingerprint)
        .executeTakeFirst();
      if (existing) throw new AppError('ca.already_imported');
      await repo.insertCa(trx, row);
      const stored = await find(trx, companyId, input.id);
      await publishCrl(trx, stored);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: input.source === 'created' ? 'ca.create' : 'ca.import',
        targetType: 'ca',
        targetId: input.id,
        after: {
          name: row.name,
          algorithm: row.algorithm,
          strength: row.strength,
          subject: row.subject,
          fingerprint: row.fingerprint,
        },
        ip: actor.ip,
      });
      return view(stored);
    });
  }

  async function create(
    actor: CaActor,
    companyId: string,
    input: {
      name: string;
      algorithm: KeyAlgorithm;
      strength?: string;
      commonName?: string;
      organization?: string;
      validityYears: number;
    },
  ) {
    assertMayManage(actor.role);
    const info = { algorithm: input.algorithm, strength: strengthOf(input.algorithm, input.strength) };
    const company = await db
      .selectFrom('companies')
      .select('name')
      .where('id', '=', companyId)
      .executeTakeFirstOrThrow();
    const key = await generateKeyPair(info);
    const now = Date.now();
    const id = newId();
    const der = buildCertificate(
      {
        issuer: 'self',
        subject: buildName({
          commonName: input.commonName || input.name,
          organization: input.organization || company.name.slice(0, caLimits.subjectFieldMax),
        }),
        subjectSpki: key.spki,
        serialNumber: newSerialNumber(),
        notBefore: new Date(now - BACKDATE_MS),
        notAfter: addYears(new Date(now), input.validityYears),
        profile: 'ca',
        crlUrl: undefined,
      },
      key,
    );
    return store(actor, companyId, {
      id,
      name: input.name,
      source: 'created',
      certificate: parseCertificate(der),
      pkcs8: key.pkcs8,
    });
  }

  /**
   * Imports a CA from its file (spec §5 "CA file"): PEM or PKCS#12 holding the CA certificate and
   * its private key. The certificate whose key is in the file is the CA; it must be a CA (basic
   * constraints, certificate signing), valid now, of a supported algorithm and strength.
   */
  async function importCa(
    actor: CaActor,
    companyId: string,
    input: { name: string; password: string },
    file: { bytes: Buffer } | undefined,
  ) {
    assertMayManage(actor.role);
    if (!file?.bytes.length) throw new AppError('ca.file_required');
    let contents: Awaited<ReturnType<typeof readKeyFile>>;
    try {
      contents = await readKeyFile(file.bytes, input.password);
    } catch (error) {
      if (error instanceof PkiError) throw importRefusal(error.problem);
      throw error;
    }
    if (!contents.certificates.length) throw new AppError('ca.certificate_missing');
    if (!contents.privateKeys.length) throw new AppError('ca.key_missing');
    const certificates: ParsedCertificate[] = [];
    const keys: ReturnType<typeof loadPrivateKey>[] = [];
    try {
      for (const der of contents.certificates) certificates.push(parseCertificate(der));
      for (const der of contents.privateKeys) keys.push(loadPrivateKey(der));
    } catch (error) {
      if (error instanceof PkiError) throw importRefusal(error.problem);
      throw error;
    }
    const pair = certificates
      .flatMap((certificate) => keys.map((key) => ({ certificate, key })))
      .find(({ certificate, key }) => keysMatch(key, certificate.spki));
    if (!pair) throw new AppError('ca.key_mismatch');
    const { certificate, key } = pair;
    if (!certificate.isCa || !certificate.mayCertSign) throw new AppError('ca.not_ca');
    const now = Date.now();
    if (certificate.notBefore.getTime() > now || certificate.notAfter.getTime() <= now)
      throw new AppError('ca.ca_expired', {
        from: certificate.notBefore.toISOString().slice(0, 10),
        until: certificate.notAfter.toISOString().slice(0, 10),
      });
    return store(actor, companyId, {
      id: newId(),
      name: input.name,
      source: 'imported',
      certificate,
      pkcs8: key.pkcs8,
    });
  }

  /** Signs and stores a new CRL of the CA (its next number), listing every revoked certificate. */
  async function publishCrl(trx: Db, ca: repo.CaRow) {
    const issuer = issuerOf(ca);
    const number = await repo.nextCrlNumber(trx, ca.id);
    const revoked = await repo.revokedOf(trx, ca.id);
    const now = new Date();
    const nextUpdate = new Date(Math.min(now.getTime() + CRL_VALIDITY_MS, ca.not_after.getTime()));
    const crl = buildCrl({
      issuer,
      number,
      thisUpdate: new Date(now.getTime() - BACKDATE_MS),
      nextUpdate,
      revoked: revoked.map((entry) => ({
        serialNumber: entry.serial_number,
        revokedAt: entry.revoked_at ?? now,
        reason: (entry.revocation_reason ?? 'unspecified') as RevocationReason,
      })),
    });
    await repo.storeCrl(trx, ca.id, crl, nextUpdate);
    return crl;
  }

  /** The CA's current CRL (DER) for its public address, signed anew when it is about to expire. */
  async function currentCrl(caId: string): Promise<Buffer | undefined> {
    const ca = await repo.findCaById(db, caId);
    if (!ca) return undefined;
    const fresh =
      ca.crl_der && ca.crl_next_update && ca.crl_next_update.getTime() - Date.now() > CRL_REFRESH_MS;
    if (fresh && ca.crl_der) return Buffer.from(ca.crl_der);
    return db.transaction().execute(async (trx) => {
      // Whoever locks the row first signs; the others find its CRL fresh.
      const locked = await trx
        .selectFrom('certificate_authorities')
        .selectAll()
        .where('id', '=', caId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      if (
        locked.crl_der &&
        locked.crl_next_update &&
        locked.crl_next_update.getTime() - Date.now() > CRL_REFRESH_MS
      )
        return Buffer.from(locked.crl_der);
      return publishCrl(trx, locked);
    });
  }

  const certificateDer = async (caId: string) => {
    const ca = await repo.findCaById(db, caId);
    return ca ? Buffer.from(ca.certificate_der) : undefined;
  };

  /** Removes a CA without valid certificates; its key, certificates and their factors go with it. */
  async function remove(actor: CaActor, companyId: string, caId: string) {
    assertMayManage(actor.role);
    return db.transaction().execute(async (trx) => {
      const ca = await find(trx, companyId, caId);
      const counts = (await repo.certificateCounts(trx, companyId)).get(caId);
      if (counts?.valid) throw new AppError('ca.has_certificates', { count: counts.valid });
      await repo.deleteCa(trx, companyId, caId);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'ca.delete',
        targetType: 'ca',
        targetId: caId,
        before: { name: ca.name, subject: ca.subject, fingerprint: ca.fingerprint },
        ip: actor.ip,
      });
      return { caId };
    });
  }

  return {
    list,
    detail,
    create,
    importCa,
    remove,
    currentCrl,
    certificateDer,
    publishCrl,
    issuerOf,
    find,
    view,
  };
}

export type CaService = ReturnType<typeof createCaService>;
