import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { DIRECTORY_TIMEOUT_MS } from '@tessera/contract';
import {
  Client,
  type Entry,
  FilterParser,
  InvalidCredentialsError,
  NoSuchObjectError,
  type SearchOptions,
  SizeLimitExceededError,
} from 'ldapts';
import { type OutboundPolicy, refusalMessage } from '../../../lib/outbound-address.ts';
import { SourceFailure } from '../source-failure.ts';

/**
 * One conversation with a directory server (ldapts): connect (ldaps://, or ldap:// with an
 * optional StartTLS upgrade), bind, search, unbind, with every failure turned into one of the
 * precise reasons the console and the sign-in page show (host unreachable, time-out, TLS,
 * invalid credentials, base DN not found, invalid filter).
 */

export interface LdapConnection {
  url: string;
  startTls: boolean;
  verifyCertificate: boolean;
  caCertificate: string | null;
  /** null: anonymous. */
  bindDn: string | null;
  bindPassword: string | null;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNRESET',
  'EPIPE',
  'EADDRNOTAVAIL',
]);
const UNTRUSTED_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_UNTRUSTED',
]);

/** The reason of a failure of ldapts or of the socket under it. */
export function classifyLdapError(error: unknown, context: { baseDn?: string; tls: boolean }): SourceFailure {
  if (error instanceof SourceFailure) return error;
  if (error instanceof InvalidCredentialsError) return new SourceFailure('ldap.invalid_credentials');
  if (error instanceof NoSuchObjectError)
    return new SourceFailure('ldap.base_dn_not_found', { dn: context.baseDn ?? '' });
  if (error instanceof SizeLimitExceededError) return new SourceFailure('ldap.size_limit');
  const { code, message } = error as { code?: string; message?: string };
  const text = message ?? String(error);
  if (code && UNTRUSTED_CODES.has(code)) return new SourceFailure('ldap.tls_untrusted');
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID')
    return new SourceFailure('ldap.tls_expired');
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return new SourceFailure('ldap.tls_hostname');
  if (code?.startsWith('ERR_SSL') || code?.startsWith('ERR_TLS') || /SSL|TLS/.test(code ?? ''))
    return new SourceFailure('ldap.tls_failed', { detail: text });
  if (/Connection timeout|timed out/i.test(text)) return new SourceFailure('ldap.timeout');
  if (code && NETWORK_CODES.has(code)) {
    // A TLS handshake that the server ends (ldaps:// to a plain port, or the reverse) is a TLS failure.
    return context.tls && code === 'ECONNRESET'
      ? new SourceFailure('ldap.tls_failed', { detail: text })
      : new SourceFailure('ldap.host_unreachable', { detail: code });
  }
  if (/Connection closed before message response/.test(text))
    return context.tls
      ? new SourceFailure('ldap.tls_failed', { detail: 'the server closed the connection' })
      : new SourceFailure('ldap.host_unreachable', { detail: 'the server closed the connection' });
  return new SourceFailure('ldap.failed', { detail: text.slice(0, 200) });
}

/** Whether every parenthesis closes and nothing follows the outermost one (values escape theirs as \28 and \29). */
function balanced(filter: string): boolean {
  let depth = 0;
  for (let i = 0; i < filter.length; i++) {
    const c = filter[i];
    if (c === '\\') i++;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0 && i !== filter.length - 1) return false;
    if (depth < 0) return false;
  }
  return depth === 0;
}

/** Throws `ldap.invalid_filter` unless the filter is one complete RFC 4515 filter. */
export function assertFilter(filter: string): void {
  try {
    if (!balanced(filter.trim())) throw new Error('unbalanced');
    FilterParser.parseString(filter);
  } catch {
    throw new SourceFailure('ldap.invalid_filter');
  }
}

function tlsOptions(connection: LdapConnection, host: string) {
  const isIp = /^[0-9.]+$|:/.test(host);
  return {
    rejectUnauthorized: connection.verifyCertificate,
    // A pasted private CA is trusted besides the usual ones.
    ...(connection.caCertificate ? { ca: [...rootCertificates, connection.caCertificate] } : {}),
    ...(isIp ? {} : { servername: host }),
    minVersion: 'TLSv1.2' as const,
  };
}

export interface DirectorySession {
  /** Every entry of a search, page by page (RFC 2696) when `paged`. */
  search(base: string, options: SearchOptions & { paged?: boolean }): Promise<Entry[]>;
  /** Binds as another DN on this connection (a person's password check); false when refused. */
  bindAs(dn: string, password: string): Promise<boolean>;
}

/** How a directory is reached: the time-out, and the installation's outbound rule. */
export interface DirectoryOptions {
  timeoutMs?: number | undefined;
  outbound: OutboundPolicy;
}

/**
 * The directory's URL with its host resolved once under the outbound rule (a company
 * administrator types the host: it must not lead inside the platform's network), so that the
 * connection goes to the checked address; TLS still checks the certificate against the name.
 */
async function checkedUrl(url: URL, outbound: OutboundPolicy): Promise<string> {
  let address: string;
  try {
    address = ((await outbound.resolve(url.hostname))[0] as { address: string }).address;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'EADDRREFUSED') {
      const { reason, params } = refusalMessage(error);
      throw new SourceFailure(reason, params);
    }
    throw new SourceFailure('ldap.host_unreachable', { detail: code ?? 'DNS' });
  }
  const checked = new URL(url);
  checked.hostname = isIP(address) === 6 ? `[${address}]` : address;
  return checked.toString();
}

/**
 * Connects, upgrades, binds with the connection's account and runs `work`; always unbinds.
 * Every failure is an SourceFailure.
 */
export async function withDirectory<T>(
  connection: LdapConnection,
  work: (session: DirectorySession) => Promise<T>,
  options: DirectoryOptions,
): Promise<T> {
  const timeout = options.timeoutMs ?? DIRECTORY_TIMEOUT_MS;
  const url = new URL(connection.url);
  const secure = url.protocol === 'ldaps:';
  const tls = tlsOptions(connection, url.hostname.replace(/^\[|\]$/g, ''));
  const usesTls = secure || connection.startTls;
  let baseDn: string | undefined;
  let client: Client | undefined;
  try {
    const connected = new Client({
      url: await checkedUrl(url, options.outbound),
      timeout,
      connectTimeout: timeout,
      ...(secure ? { tlsOptions: tls } : {}),
    });
    client = connected;
    if (!secure && connection.startTls) await connected.startTLS(tls);
    if (connection.bindDn) await connected.bind(connection.bindDn, connection.bindPassword ?? '');
    return await work({
      async search(base, { paged, ...searchOptions }) {
        baseDn = base;
        const { searchEntries } = await connected.search(base, {
          ...searchOptions,
          ...(paged ? { paged: { pageSize: 500 } } : {}),
        });
        return searchEntries;
      },
      async bindAs(dn, password) {
        // An empty password would be an unauthenticated bind (RFC 4513 §5.1.2): never a success.
        if (!password) return false;
        try {
          await connected.bind(dn, password);
          return true;
        } catch (error) {
          if (error instanceof InvalidCredentialsError) return false;
          throw error;
        }
      },
    });
  } catch (error) {
    throw classifyLdapError(error, { baseDn, tls: usesTls });
  } finally {
    await client?.unbind().catch(() => {});
  }
}
