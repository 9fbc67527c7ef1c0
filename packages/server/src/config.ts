import { availableParallelism } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import {
  consoleSessionDefaults,
  QUANTITY_MAX,
  type QuantityModule,
  RADIUS_DEFAULT_PORT,
  USERNAME_PATTERN,
} from '@tessera/contract';
import { type OutboundNetworks, parseNetworkList, parseOutboundNetworks } from './lib/outbound-address.ts';
import { defaultProviderUrls, type ProviderUrls } from './modules/identity-source/scan/providers.ts';
import { parseLicensePublicKey } from './modules/license/license-file.ts';

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  masterKey: string | undefined;
  bootstrapAdmin: { username: string; password: string | undefined };
  session: { idleSeconds: number; absoluteSeconds: number };
  logLevel: string;
  /**
   * The proxies in front of the server whose X-Forwarded-For/-Proto headers are believed: a
   * number of hops, or addresses and CIDR ranges. Undefined: none (the connection's address is
   * the client's).
   */
  trustedProxies: number | string[] | undefined;
  licensePublicKey: string | undefined;
  /** Outgoing mail (sign-in links, account emails); without an SMTP URL the mail calls answer `mail.not_configured`. */
  mail: MailConfig;
  /** User imports running at once on the platform (all instances together). */
  importConcurrency: number;
  /** Password hashes (argon2id) computed at once by this instance: by default one per core. */
  hashesAtOnce: number;
  /**
   * TESSERA_OUTBOUND_ALLOWED_NETWORKS: the private or special-use networks that connections to
   * addresses company administrators typed (back-channel logout, SAML metadata, Exchange, LDAP)
   * may reach besides the public internet: `all`, or CIDRs (lib/outbound-address.ts).
   */
  outboundNetworks: OutboundNetworks;
  /** The quotas a new company gets (null: no limit beyond the licence); platform administrators change them per company. */
  companyQuotas: CompanyQuotas;
  exchange: ExchangeConfig;
  /**
   * Syslog targets on loopback and link-local addresses are refused (a company administrator must
   * not reach the server's own services through them) unless this is true (tests, a receiver on
   * the same machine). Cloud metadata addresses are refused always.
   */
  syslogAllowLocalTargets: boolean;
  /** The base addresses of DingTalk, WeChat and WeCom (scan sign-in and contacts): the real ones unless set. */
  scanProviders: ProviderUrls;
  /** The bearer token that /metrics asks for; undefined: no metrics are served. */
  metricsToken: string | undefined;
  /** The RADIUS server: its UDP port (null: off) and address. */
  radius: { port: number | null; host: string };
  /** The LDAP server (modules/ldap-server): off unless TESSERA_LDAP_PORT is set. */
  ldap: LdapServerConfig;
}

/** TESSERA_LDAP_*: the read-only LDAP directory's ports, address, suffix and TLS certificate files. */
export interface LdapServerConfig {
  port: number | null;
  ldapsPort: number | null;
  host: string;
  suffix: string;
  certFile: string | null;
  keyFile: string | null;
  /**
   * The host names and addresses the installation's certificate names when no files are given:
   * TESSERA_LDAP_HOST when set to a name or address (not 0.0.0.0 or ::), and the public URL's
   * host name; otherwise also localhost and 127.0.0.1. Undefined: localhost and 127.0.0.1.
   */
  certificateNames?: string[];
}

/** The Exchange agent (modules/exchange). */
export interface ExchangeConfig {
  /** How long the agent waits for Exchange's answer: a Ping is held up to its heartbeat (30 minutes), plus a minute. */
  maxHoldSeconds: number;
}

export const defaultExchangeConfig: ExchangeConfig = { maxHoldSeconds: 1860 };
/** TESSERA_* variables of the providers' base addresses (tests point them at local servers). */
export const providerUrlVariables: Record<keyof ProviderUrls, string> = {
  dingtalkLogin: 'TESSERA_DINGTALK_LOGIN_URL',
  dingtalkApi: 'TESSERA_DINGTALK_API_URL',
  dingtalkOapi: 'TESSERA_DINGTALK_OAPI_URL',
  weixinOpen: 'TESSERA_WEIXIN_OPEN_URL',
  weixinApi: 'TESSERA_WEIXIN_API_URL',
  wecomLogin: 'TESSERA_WECOM_LOGIN_URL',
  wecomApi: 'TESSERA_WECOM_API_URL',
};

export type CompanyQuotas = Record<QuantityModule, number | null>;

/** The quotas a new company gets unless TESSERA_COMPANY_USER_QUOTA / TESSERA_COMPANY_APP_QUOTA say otherwise. */
export const defaultCompanyQuotas: CompanyQuotas = { user: 100, app: 10 };

export interface MailConfig {
  /** smtp:// or smtps:// URL, with credentials when the server needs them. */
  smtpUrl: string | undefined;
  /** The sender: `address` or `Name <address>`. */
  from: string;
}

/** A configuration value is wrong; the message is one line that names the variable. */
export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

const integer = (env: Env, name: string, fallback: number, min: number, max: number): number => {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
};

/** A quota: a whole number from `min`, or `unlimited` (no limit beyond the licence). */
const quotaOf = (env: Env, name: string, fallback: number | null, min: number): number | null => {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (raw.toLowerCase() === 'unlimited') return null;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > QUANTITY_MAX) {
    throw new ConfigError(
      `${name} must be a whole number from ${min} to ${QUANTITY_MAX}, or "unlimited" (got "${raw}")`,
    );
  }
  return Number(raw);
};

const urlOf = (env: Env, name: string, protocols: string[]): string | undefined => {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL (got "${raw}")`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(
      `${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')} (got "${raw}")`,
    );
  }
  return raw;
};

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const port = integer(env, 'PORT', 8080, 1, 65_535);
  const host = env.HOST?.trim() || '127.0.0.1';
  if (!/^[A-Za-z0-9.:-]+$/.test(host))
    throw new ConfigError(`HOST must be a host name or IP address (got "${host}")`);

  const defaultPublicHost = host === '0.0.0.0' || host === '127.0.0.1' || host === '::' ? 'localhost' : host;
  const publicUrl = (
    urlOf(env, 'TESSERA_PUBLIC_URL', ['http:', 'https:']) ?? `http://${defaultPublicHost}:${port}`
  ).replace(/\/+$/, '');
  if (new URL(publicUrl).search || new URL(publicUrl).hash) {
    throw new ConfigError('TESSERA_PUBLIC_URL must not have a query or fragment');
  }

  const dataDirRaw = env.TESSERA_DATA_DIR?.trim() || './data';
  const dataDir = isAbsolute(dataDirRaw) ? dataDirRaw : resolve(cwd, dataDirRaw);

  const databaseUrl = urlOf(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);

  const masterKey = env.TESSERA_MASTER_KEY?.trim() || undefined;
  if (masterKey !== undefined) {
    const bytes = /^[0-9a-fA-F]{64}$/.test(masterKey)
      ? Buffer.from(masterKey, 'hex')
      : Buffer.from(masterKey, 'base64');
    if (bytes.length !== 32) {
      throw new ConfigError('TESSERA_MASTER_KEY must be 32 bytes, written as 64 hex digits or base64');
    }
  }

  const username = env.TESSERA_BOOTSTRAP_ADMIN_USERNAME?.trim() || 'admin';
  if (!USERNAME_PATTERN.test(username) || username.length > 64) {
    throw new ConfigError(
      'TESSERA_BOOTSTRAP_ADMIN_USERNAME may contain only letters, digits, dot, underscore and hyphen (and one @ with a domain), at most 64',
    );
  }
  const password = env.TESSERA_BOOTSTRAP_ADMIN_PASSWORD || undefined;
  if (password !== undefined && (password.length < 8 || password.length > 128)) {
    throw new ConfigError('TESSERA_BOOTSTRAP_ADMIN_PASSWORD must be 8 to 128 characters long');
  }

  const idleSeconds = integer(
    env,
    'TESSERA_SESSION_IDLE_SECONDS',
    consoleSessionDefaults.idleSeconds,
    60,
    30 * 86_400,
  );
  const absoluteSeconds = integer(
    env,
    'TESSERA_SESSION_ABSOLUTE_SECONDS',
    consoleSessionDefaults.absoluteSeconds,
    60,
    90 * 86_400,
  );
  if (absoluteSeconds < idleSeconds) {
    throw new ConfigError(
      'TESSERA_SESSION_ABSOLUTE_SECONDS must not be shorter than TESSERA_SESSION_IDLE_SECONDS',
    );
  }

  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(
      `LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "${logLevel}")`,
    );
  }

  const trustedProxies = trustedProxiesOf(env.TESSERA_TRUSTED_PROXIES);

  const licensePublicKey = env.TESSERA_LICENSE_PUBLIC_KEY?.trim() || undefined;
  if (licensePublicKey) {
    try {
      parseLicensePublicKey(licensePublicKey);
    } catch {
      throw new ConfigError('TESSERA_LICENSE_PUBLIC_KEY must be an Ed25519 public key (PEM, or base64 DER)');
    }
  }

  const mail = mailConfig(env, publicUrl);
  const importConcurrency = integer(env, 'TESSERA_IMPORT_CONCURRENCY', 2, 1, 16);
  const hashesAtOnce = integer(env, 'TESSERA_HASHES_AT_ONCE', availableParallelism(), 1, 256);

  for (const replaced of [
    'TESSERA_BACKCHANNEL_ALLOWED_NETWORKS',
    'TESSERA_EXCHANGE_PRIVATE_ADDRESSES',
    'TESSERA_FETCH_ALLOW_PRIVATE',
    'TESSERA_FETCH_ALLOW_LOOPBACK',
  ])
    if (env[replaced] !== undefined)
      throw new ConfigError(
        `${replaced} is replaced by TESSERA_OUTBOUND_ALLOWED_NETWORKS ("all", or networks like 10.0.0.0/8)`,
      );
  let outboundNetworks: OutboundNetworks;
  try {
    outboundNetworks = parseOutboundNetworks(env.TESSERA_OUTBOUND_ALLOWED_NETWORKS);
  } catch {
    throw new ConfigError(
      `TESSERA_OUTBOUND_ALLOWED_NETWORKS must be "all", or networks like 10.0.0.0/8 separated by commas (got "${env.TESSERA_OUTBOUND_ALLOWED_NETWORKS}")`,
    );
  }
  const companyQuotas: CompanyQuotas = {
    // At least 1: the company's creator is its first user.
    user: quotaOf(env, 'TESSERA_COMPANY_USER_QUOTA', defaultCompanyQuotas.user, 1),
    app: quotaOf(env, 'TESSERA_COMPANY_APP_QUOTA', defaultCompanyQuotas.app, 0),
  };

  const exchange: ExchangeConfig = {
    maxHoldSeconds: integer(
      env,
      'TESSERA_EXCHANGE_MAX_HOLD_SECONDS',
      defaultExchangeConfig.maxHoldSeconds,
      5,
      7200,
    ),
  };
  const allowLocal = env.TESSERA_SYSLOG_ALLOW_LOCAL_TARGETS?.trim().toLowerCase() || 'false';
  if (!['true', 'false'].includes(allowLocal))
    throw new ConfigError(`TESSERA_SYSLOG_ALLOW_LOCAL_TARGETS must be true or false (got "${allowLocal}")`);
  const scanProviders = Object.fromEntries(
    Object.entries(providerUrlVariables).map(([key, name]) => [
      key,
      (urlOf(env, name, ['http:', 'https:']) ?? defaultProviderUrls[key as keyof ProviderUrls]).replace(
        /\/+$/,
        '',
      ),
    ]),
  ) as unknown as ProviderUrls;
  const metricsToken = env.TESSERA_METRICS_TOKEN?.trim() || undefined;
  if (metricsToken !== undefined && !/^[\x21-\x7e]{24,200}$/.test(metricsToken)) {
    throw new ConfigError('TESSERA_METRICS_TOKEN must be 24 to 200 printable characters without spaces');
  }
  const radius = radiusConfig(env, host);
  const ldap = ldapServerConfig(env, host, publicUrl);

  return {
    port,
    host,
    publicUrl,
    dataDir,
    databaseUrl,
    masterKey,
    bootstrapAdmin: { username, password },
    session: { idleSeconds, absoluteSeconds },
    logLevel,
    trustedProxies,
    licensePublicKey,
    mail,
    importConcurrency,
    hashesAtOnce,
    outboundNetworks,
    companyQuotas,
    exchange,
    syslogAllowLocalTargets: allowLocal === 'true',
    scanProviders,
    metricsToken,
    radius,
    ldap,
  };
}

function ldapPortOf(env: Env, name: string): number | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  if (!/^\d+$/.test(raw) || Number(raw) > 65_535)
    throw new ConfigError(`${name} must be a whole number from 0 to 65535 (got "${raw}")`);
  return Number(raw);
}

/** TESSERA_LDAP_PORT, TESSERA_LDAPS_PORT, TESSERA_LDAP_HOST, TESSERA_LDAP_SUFFIX, TESSERA_LDAP_TLS_CERT and _KEY. */
function ldapServerConfig(env: Env, host: string, publicUrl: string): LdapServerConfig {
  const port = ldapPortOf(env, 'TESSERA_LDAP_PORT');
  const ldapsPort = ldapPortOf(env, 'TESSERA_LDAPS_PORT');
  const certFile = env.TESSERA_LDAP_TLS_CERT?.trim() || null;
  const keyFile = env.TESSERA_LDAP_TLS_KEY?.trim() || null;
  if (Boolean(certFile) !== Boolean(keyFile))
    throw new ConfigError('TESSERA_LDAP_TLS_CERT and TESSERA_LDAP_TLS_KEY go together');
  if (ldapsPort !== null && port === null)
    throw new ConfigError('TESSERA_LDAPS_PORT needs TESSERA_LDAP_PORT');
  const suffix = env.TESSERA_LDAP_SUFFIX?.trim() || 'dc=tessera';
  if (!/^[a-z]+=[^,=+]+(,[a-z]+=[^,=+]+)*$/i.test(suffix))
    throw new ConfigError(`TESSERA_LDAP_SUFFIX must be a DN such as dc=example,dc=com (got "${suffix}")`);
  const ldapHost = env.TESSERA_LDAP_HOST?.trim() || host;
  if (!/^[A-Za-z0-9.:-]+$/.test(ldapHost))
    throw new ConfigError(`TESSERA_LDAP_HOST must be a host name or IP address (got "${ldapHost}")`);
  return {
    port,
    ldapsPort,
    host: ldapHost,
    suffix,
    certFile,
    keyFile,
    certificateNames: certificateNamesOf(env.TESSERA_LDAP_HOST?.trim() || null, publicUrl),
  };
}

/** The names of the installation's LDAP certificate (LdapServerConfig.certificateNames). */
export function certificateNamesOf(ldapHost: string | null, publicUrl: string): string[] {
  const named = ldapHost && !['0.0.0.0', '::', '[::]'].includes(ldapHost) ? ldapHost : null;
  const publicHost = new URL(publicUrl).hostname.replace(/^\[(.*)\]$/, '$1');
  const names = [...(named ? [named] : []), publicHost, ...(named ? [] : ['localhost', '127.0.0.1'])];
  return [...new Set(names.map((name) => name.toLowerCase()))];
}

/** TESSERA_RADIUS_PORT (default 1812, or `off`) and TESSERA_RADIUS_HOST (default: HOST). */
function radiusConfig(env: Env, host: string): Config['radius'] {
  const raw = env.TESSERA_RADIUS_PORT?.trim() || String(RADIUS_DEFAULT_PORT);
  if (raw.toLowerCase() !== 'off' && (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 65_535))
    throw new ConfigError(
      `TESSERA_RADIUS_PORT must be a whole number from 1 to 65535, or "off" (got "${raw}")`,
    );
  const port = raw.toLowerCase() === 'off' ? null : Number(raw);
  const radiusHost = env.TESSERA_RADIUS_HOST?.trim() || host;
  if (!/^[A-Za-z0-9.:-]+$/.test(radiusHost))
    throw new ConfigError(`TESSERA_RADIUS_HOST must be a host name or IP address (got "${radiusHost}")`);
  return { port, host: radiusHost };
}

/** `TESSERA_TRUSTED_PROXIES`: a hop count (1-10), or IP addresses and CIDR ranges separated by commas. */
function trustedProxiesOf(raw: string | undefined): Config['trustedProxies'] {
  const value = raw?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops < 1 || hops > 10)
      throw new ConfigError(`TESSERA_TRUSTED_PROXIES must be a hop count from 1 to 10 (got "${value}")`);
    return hops;
  }
  let entries: string[] = [];
  try {
    entries = parseNetworkList(value);
  } catch {
    throw new ConfigError(
      `TESSERA_TRUSTED_PROXIES must be a hop count, or IP addresses and CIDR ranges separated by commas (got "${value}")`,
    );
  }
  return entries;
}

const mailAddress = /^[^\s@<>"]+@[^\s@<>"]+$/;

function mailConfig(env: Env, publicUrl: string): MailConfig {
  const raw = env.TESSERA_SMTP_URL?.trim() || undefined;
  if (raw !== undefined) {
    // The URL carries the SMTP password: messages name the variable but never repeat its value.
    let url: URL | undefined;
    try {
      url = new URL(raw);
    } catch {
      url = undefined;
    }
    if (!url || !['smtp:', 'smtps:'].includes(url.protocol) || !url.hostname) {
      throw new ConfigError('TESSERA_SMTP_URL must be a URL like smtps://user:password@mail.example.com:465');
    }
  }
  const from = env.TESSERA_MAIL_FROM?.trim() || `Tessera <noreply@${new URL(publicUrl).hostname}>`;
  const address = /<([^<>]*)>$/.exec(from)?.[1] ?? from;
  if (!mailAddress.test(address) || /[\r\n]/.test(from) || from.length > 254) {
    throw new ConfigError(
      `TESSERA_MAIL_FROM must be an email address or "Name <address>" (got "${from.replace(/[\r\n]/g, ' ')}")`,
    );
  }
  return { smtpUrl: raw, from };
}
