import tls, { type SecureContext } from 'node:tls';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.ts';
import type { Sealer } from '../../lib/crypto.ts';

/**
 * The certificate of the LDAP server's LDAPS and StartTLS: the operator's files
 * (TESSERA_LDAP_TLS_CERT/KEY), or else one issued by the installation CA for the server's names,
 * renewed while the server runs.
 */

export interface LdapTls {
  /** The certificate and key now served (PEM or DER as given). */
  current(): { cert: string | Buffer; key: string | Buffer; context: SecureContext };
  /** Called after the certificate changed (the LDAPS listener takes the new one). */
  onRenew(listener: () => void): void;
  close(): void;
}

/** The operator's certificate and key, as read at start. */
export function fixedTls(cert: Buffer, key: Buffer): LdapTls {
  const served = { cert, key, context: tls.createSecureContext({ cert, key }) };
  return { current: () => served, onRenew() {}, close() {} };
}

/** An installation certificate lives this long… */
export const INSTALLATION_CERTIFICATE_MS = 30 * 86_400_000;
/** …and a new one is issued when less than this is left (so a third of its life before it expires). */
export const RENEW_BEFORE_MS = 10 * 86_400_000;
const CHECK_EVERY_MS = 3_600_000;

/**
 * A certificate for `names` from the installation CA (made on first use), issued at start and
 * again when RENEW_BEFORE_MS is left, checked hourly: no restart, connections keep theirs.
 */
export async function installationTls(deps: {
  db: Db;
  sealer: Sealer;
  names: string[];
  log: FastifyBaseLogger;
}): Promise<LdapTls & { refresh(asOf?: Date): Promise<boolean>; caPem: string }> {
  // Loaded here, not at start: the certificate libraries load only where a certificate is issued.
  const { installationCa, issueServerCertificate } = await import('../ca/installation-ca.ts');
  const ca = await installationCa(deps.db, deps.sealer);
  const issue = async (now: Date) => {
    const issued = await issueServerCertificate(ca, deps.names, INSTALLATION_CERTIFICATE_MS, now);
    const cert = issued.certificatePem;
    const key = issued.keyPem;
    return { cert, key, context: tls.createSecureContext({ cert, key }), notAfter: issued.notAfter };
  };
  let served = await issue(new Date());
  const listeners: (() => void)[] = [];
  /** Issues a new certificate (valid from now) if the one served has less than RENEW_BEFORE_MS left at `asOf`; whether it did. */
  async function refresh(asOf = new Date()) {
    if (served.notAfter.getTime() - asOf.getTime() > RENEW_BEFORE_MS) return false;
    served = await issue(new Date());
    deps.log.info({ notAfter: served.notAfter.toISOString() }, 'LDAP server certificate renewed');
    for (const listener of listeners) listener();
    return true;
  }
  const timer = setInterval(() => {
    refresh().catch((error) => deps.log.error({ err: error }, 'LDAP server certificate renewal failed'));
  }, CHECK_EVERY_MS);
  timer.unref();
  return {
    current: () => served,
    onRenew: (listener) => void listeners.push(listener),
    close: () => clearInterval(timer),
    refresh,
    /** The installation CA's certificate (PEM): what LDAP clients are given to trust. */
    caPem: ca.certificatePem,
  };
}
