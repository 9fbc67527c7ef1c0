import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * The one rule for every connection the server opens to an address a company administrator typed
 * (back-channel logout URIs, SAML metadata URLs, the Exchange server, LDAP directories). Anyone
 * may create a company, and its administrator must not reach inside the platform's network: so
 * such connections never go to loopback, private, shared, link-local or other special-use
 * addresses (the server itself, its database, a cloud metadata service), except to the networks
 * the operator names in TESSERA_OUTBOUND_ALLOWED_NETWORKS (`all` for every private network, as an
 * on-premises installation whose directories and applications live there may want). Link-local
 * addresses, the cloud metadata services and multicast stay refused under `all`; a network named
 * explicitly is allowed whatever it holds.
 *
 * The check is made on the addresses a name resolves to at connection time (a name that resolves
 * elsewhere later gains nothing), and where a setting is saved, for a clear message.
 */

/** `all`, or the networks (CIDRs, single addresses) allowed besides the public internet. */
export type OutboundNetworks = 'all' | readonly string[];

/** Refused even under `all`: link-local (169.254.169.254 and its IPv6 peers), metadata, multicast, unspecified. */
const NEVER = [
  '0.0.0.0/8',
  '169.254.0.0/16',
  '100.100.100.200/32',
  '224.0.0.0/3',
  '::/128',
  'fe80::/10',
  'ff00::/8',
  'fd00:ec2::254/128',
];
/** Not the public internet: refused unless allowed (RFC 6890 special-use ranges). */
const INTERNAL = [
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '::1/128',
  '100::/64',
  '2001::/23',
  '2002::/16',
  'fc00::/7',
];

function blockListOf(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address = '', prefix] = cidr.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}

const never = blockListOf(NEVER);
const internal = blockListOf(INTERNAL);

/** IP addresses and CIDR ranges separated by commas; throws on an entry that is not one. */
export function parseNetworkList(value: string | undefined): string[] {
  const entries = (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address, prefix, extra] = entry.split('/');
    const family = isIP(address ?? '');
    const max = family === 6 ? 128 : 32;
    if (
      !family ||
      extra !== undefined ||
      (prefix !== undefined && !/^\d+$/.test(prefix)) ||
      Number(prefix) > max
    )
      throw new Error(`not a network: ${entry}`);
  }
  return entries;
}

/** Parses TESSERA_OUTBOUND_ALLOWED_NETWORKS: `all`, or a network list; throws on a bad entry. */
export function parseOutboundNetworks(value: string | undefined): OutboundNetworks {
  return value?.trim().toLowerCase() === 'all' ? 'all' : parseNetworkList(value);
}

/** The IPv4 address an IPv6 address carries (mapped ::ffff:a.b.c.d, or NAT64 64:ff9b::a.b.c.d), in either notation. */
function embeddedIpv4(address: string): string | undefined {
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex?.[1] || !hex[2]) return undefined;
  const high = Number.parseInt(hex[1], 16);
  const low = Number.parseInt(hex[2], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address?: string | LookupAddress[],
  family?: number,
) => void;

type Dispatcher = NonNullable<RequestInit & { dispatcher?: unknown }>['dispatcher'];

/** Node's own fetch agent class (undici, bundled with Node; created on first use of the fetch API). */
function agentClass(): new (options: object) => Dispatcher {
  void Response;
  const globals = globalThis as Record<
    symbol,
    { constructor: new (options: object) => Dispatcher } | undefined
  >;
  const global =
    globals[Symbol.for('undici.globalDispatcher.2')] ?? globals[Symbol.for('undici.globalDispatcher.1')];
  if (!global) throw new Error('the fetch agent of this Node.js is not available');
  return global.constructor;
}

export function createOutboundPolicy(allowed: OutboundNetworks) {
  const named = blockListOf(allowed === 'all' ? [] : allowed);

  /** Whether a connection may go to this IP address. */
  function allows(address: string): boolean {
    const family = isIP(address);
    if (!family) return false;
    const v4 = family === 6 ? embeddedIpv4(address) : address;
    const [ip, type] = v4 ? [v4, 'ipv4' as const] : [address, 'ipv6' as const];
    if (named.check(ip, type)) return true;
    if (never.check(ip, type)) return false;
    return allowed === 'all' || !internal.check(ip, type);
  }

  const refusal = (hostname: string) =>
    Object.assign(new Error(`${hostname} resolves to an address the server does not connect to`), {
      code: 'EADDRREFUSED',
    });

  /** `lookup` for sockets and agents: resolves as usual and keeps only allowed addresses. */
  function lookup(hostname: string, options: { all?: boolean }, callback: LookupCallback) {
    const host = hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) {
      if (!allows(host)) return callback(refusal(host));
      const family = isIP(host);
      return options.all ? callback(null, [{ address: host, family }]) : callback(null, host, family);
    }
    dnsLookup(host, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error);
      const usable = addresses.filter((entry) => allows(entry.address));
      if (!usable.length) return callback(refusal(host));
      if (options.all) return callback(null, usable);
      const [first] = usable as [LookupAddress];
      return callback(null, first.address, first.family);
    });
  }

  /** The allowed addresses of a host, resolved once (to connect to one of them and no other). */
  function resolve(hostname: string): Promise<LookupAddress[]> {
    return new Promise((done, fail) =>
      lookup(hostname, { all: true }, (error, addresses) =>
        error ? fail(error) : done(addresses as LookupAddress[]),
      ),
    );
  }

  /** Whether a URL's host is, or resolves only to, refused addresses (a name that does not resolve is not refused here). */
  async function refusesUrl(url: string): Promise<boolean> {
    try {
      await resolve(new URL(url).hostname);
      return false;
    } catch (error) {
      return (error as { code?: string }).code === 'EADDRREFUSED';
    }
  }

  let dispatcher: Dispatcher | undefined;
  /** fetch(), connecting only to allowed addresses. */
  function outboundFetch(input: string | URL | Request, init: RequestInit = {}) {
    if (!dispatcher) {
      const Agent = agentClass();
      dispatcher = new Agent({ connect: { lookup } });
    }
    const host = new URL(input instanceof Request ? input.url : input).hostname.replace(/^\[|\]$/g, '');
    // An address written as such is never looked up: judge it here.
    if (isIP(host) && !allows(host)) return Promise.reject(refusal(host));
    return fetch(input, { ...init, dispatcher } as RequestInit);
  }

  return { allows, lookup, resolve, refusesUrl, fetch: outboundFetch };
}

export type OutboundPolicy = ReturnType<typeof createOutboundPolicy>;
