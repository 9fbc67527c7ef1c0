import { randomBytes, X509Certificate } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { generateKeyPair, loadPrivateKey } from '../../lib/pki/keys.ts';
import { toPem } from '../../lib/pki/pem.ts';
import {
  buildCertificate,
  buildName,
  type Issuer,
  keyIdentifierOf,
  newSerialNumber,
  parseCertificate,
} from '../../lib/pki/x509.ts';
import { addYears, BACKDATE_MS } from './ca.service.ts';

/**
 * The installation's own certificate authority: not a company's (those are in ca.service), but
 * the issuer of the TLS certificates of the installation's own services, such as the LDAP
 * server's when the operator gives it no certificate. Made on first use (ECDSA P-256, valid 20
 * years) and kept in the database with its key sealed by the master key, so that every instance
 * issues under the same CA and clients need to trust only it. `npm run keys -- ca` prints it.
 */

const NAME = 'services';
const KEY_PURPOSE = `installation-ca-key:${NAME}`;
/** Arbitrary constant that names the installation CA's creation among advisory locks. */
const CREATE_LOCK = 7_316_420_970;
const KEY = { algorithm: 'ecc', strength: 'P-256' } as const;

export interface InstallationCa {
  /** The CA certificate, PEM: what clients are given to trust. */
  certificatePem: string;
  issuer: Issuer;
}

async function openCa(db: Db, sealer: Sealer): Promise<InstallationCa | null> {
  const row = await db
    .selectFrom('installation_cas')
    .select(['certificate_pem', 'private_key_sealed'])
    .where('name', '=', NAME)
    .executeTakeFirst();
  if (!row) return null;
  const key = loadPrivateKey(Buffer.from(sealer.open(row.private_key_sealed, KEY_PURPOSE), 'base64'));
  const certificate = parseCertificate(new X509Certificate(row.certificate_pem).raw);
  return {
    certificatePem: row.certificate_pem,
    issuer: {
      key,
      name: certificate.subject,
      keyIdentifier: certificate.subjectKeyId ?? keyIdentifierOf(certificate.spki),
    },
  };
}

/** The installation CA, made (once, whichever instance is first) when there is none yet. */
export async function installationCa(db: Db, sealer: Sealer): Promise<InstallationCa> {
  const existing = await openCa(db, sealer);
  if (existing) return existing;
  const key = await generateKeyPair(KEY);
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${CREATE_LOCK})`.execute(trx);
    const made = await trx
      .selectFrom('installation_cas')
      .select('name')
      .where('name', '=', NAME)
      .executeTakeFirst();
    if (made) return;
    const now = Date.now();
    const der = buildCertificate(
      {
        issuer: 'self',
        // A random part tells one installation's CA from another's in a client's trust store.
        subject: buildName({
          commonName: `Tessera installation CA ${randomBytes(4).toString('hex')}`,
          organization: 'Tessera',
        }),
        subjectSpki: key.spki,
        serialNumber: newSerialNumber(),
        notBefore: new Date(now - BACKDATE_MS),
        notAfter: addYears(new Date(now), 20),
        profile: 'ca',
      },
      key,
    );
    await trx
      .insertInto('installation_cas')
      .values({
        name: NAME,
        certificate_pem: toPem('CERTIFICATE', der),
        private_key_sealed: sealer.seal(key.pkcs8.toString('base64'), KEY_PURPOSE),
      })
      .execute();
  });
  return (await openCa(db, sealer)) as InstallationCa;
}

export interface ServerCertificate {
  /** The server's certificate followed by the CA's (PEM). */
  certificatePem: string;
  keyPem: string;
  notAfter: Date;
}

/** A TLS server certificate for `names` (host names and IP addresses), issued by the installation CA. */
export async function issueServerCertificate(
  ca: InstallationCa,
  names: string[],
  validityMs: number,
  now = new Date(),
): Promise<ServerCertificate> {
  const key = await generateKeyPair(KEY);
  const notAfter = new Date(now.getTime() + validityMs);
  const der = buildCertificate({
    issuer: ca.issuer,
    subject: buildName({ commonName: names[0] ?? 'localhost', organization: 'Tessera' }),
    subjectSpki: key.spki,
    serialNumber: newSerialNumber(),
    notBefore: new Date(now.getTime() - BACKDATE_MS),
    notAfter,
    profile: 'server',
    serverNames: names,
  });
  return {
    certificatePem: toPem('CERTIFICATE', der) + ca.certificatePem,
    keyPem: toPem('PRIVATE KEY', key.pkcs8),
    notAfter,
  };
}
