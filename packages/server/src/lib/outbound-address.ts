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
 * Syslog forwarding has a rule of its own on the same judgement (private networks, where SIEMs
 * live, are allowed; loopback, link-local and metadata only when the operator says so).
 *
 * The check is made on the addresses a name resolves to at connection time (a name that resolves
 * elsewhere later gains nothing), and where a setting is saved, for a clear message. An address
 * is judged in every spelling a resolver or socket would take for it: IPv4 in the forms of
 * inet_aton (2130706433, 0177.0.0.1, 0x7f.1, 127.1), IPv6 short or full, in brackets, with a
 * zone id, and IPv4 carried in IPv6 (mapped, compatible, translated, NAT64, 6to4) as that IPv4.
 */

/** `all`, or the networks (CIDRs, single addresses) allowed besides the public internet. */
export type OutboundNetworks = 'all' | readonly string[];

/** What an address is, for the rules: the public internet, or one of the special-use kinds (RFC 6890). */
export type AddressKind = 'public' | 'private' | 'loopback' | 'link-local' | 'metadata' | 'unusable';

/** Cloud metadata and platform services (AWS, GCP, Azure, Alibaba, Oracle), wherever their addresses lie. */
const METADATA = [
  '169.254.169.254',
  '169.254.170.2',
  '169.254.170.23',
  '100.100.100.200',
  '168.63.129.16',
  '192.0.0.192',
  'fd00:ec2::254',
  'fd00:ec2::23',
];
const LINK_LOCAL = ['169.254.0.0/16', 'fe80::/10'];
const LOOPBACK = ['127.0.0.0/8', '::1/128'];
/** Never a destination: "this network" (0.0.0.0 and :: reach the server itself), multicast, broadcast. */
const UNUSABLE = ['0.0.0.0/8', '224.0.0.0/3', '::/128', 'ff00::/8'];
/** Not the public internet: private, shared, benchmarking, translation and tunnelling ranges. */
const PRIVATE = [
  '10.0.0.0/8',
  '100.64.0.0/10',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '64:ff9b:1::/48',
  '100::/64',
  '2001::/23',
  '2002::/16',
  'fc00::/7',
  'fec0::/10',
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

/** In the order they are asked: the first list that holds an address names its kind. */
const KINDS: [AddressKind, BlockList][] = [
  ['metadata', blockListOf(METADATA)],
  ['link-local', blockListOf(LINK_LOCAL)],
  ['loopback', blockListOf(LOOPBACK)],
  ['unusable', blockListOf(UNUSABLE)],
  ['private', blockListOf(PRIVATE)],
];

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

/** An IPv4 address as inet_aton reads it: 1 to 4 parts, decimal, octal (0...) or hex (0x...), the last filling the rest. */
function parseIpv4(text: string): number[] | undefined {
  const parts = text.replace(/\.$/, '').split('.');
  if (parts.length > 4) return undefined;
  const values: number[] = [];
  for (const part of parts) {
    if (/^0x[0-9a-f]*$/i.test(part)) values.push(Number.parseInt(part.slice(2) || '0', 16));
    else if (/^0[0-7]*$/.test(part)) values.push(Number.parseInt(part, 8));
    else if (/^[1-9]\d*$/.test(part)) values.push(Number(part));
    else return undefined;
  }
  const last = values.pop() as number;
  if (values.some((value) => value > 255) || last >= 256 ** (4 - values.length)) return undefined;
  const bytes = [...values];
  for (let shift = (3 - values.length) * 8; shift >= 0; shift -= 8)
    bytes.push(Math.floor(last / 2 ** shift) % 256);
  return bytes;
}

/** The eight 16-bit groups of a valid IPv6 address (without brackets or zone). */
function ipv6Groups(address: string): number[] {
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(address)?.[1];
  const bytes = v4 ? v4.split('.').map(Number) : [];
  const text = v4
    ? `${address.slice(0, -v4.length)}${((bytes[0] as number) * 256 + (bytes[1] as number)).toString(16)}:${((bytes[2] as number) * 256 + (bytes[3] as number)).toString(16)}`
    : address;
  const [left = '', right] = text.split('::');
  const groups = (part: string) => (part ? part.split(':').map((group) => Number.parseInt(group, 16)) : []);
  const head = groups(left);
  const tail = right === undefined ? [] : groups(right);
  return [...head, ...Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

const dotted = (high: number, low: number) => [high >> 8, high & 255, low >> 8, low & 255].join('.');

/** The IPv4 address an IPv6 address stands for (mapped, compatible, translated, NAT64 /96, 6to4), if any. */
function carriedIpv4(groups: number[]): { ipv4: string; tunnel: boolean } | undefined {
  const [g0, g1, g2, , g4, g5, g6 = 0, g7 = 0] = groups;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  if (zeros(0, 5) && (g5 === 0xffff || (g5 === 0 && (g6 !== 0 || g7 > 1))))
    return { ipv4: dotted(g6, g7), tunnel: false };
  if (zeros(0, 4) && g4 === 0xffff && g5 === 0) return { ipv4: dotted(g6, g7), tunnel: false };
  if (g0 === 0x64 && g1 === 0xff9b && zeros(2, 6)) return { ipv4: dotted(g6, g7), tunnel: false };
  if (g0 === 0x2002) return { ipv4: dotted(g1 as number, g2 as number), tunnel: true };
  return undefined;
}

export interface ParsedAddress {
  /** What to connect to: the address as a socket takes it (IPv4 dotted; IPv6 with its zone id). */
  address: string;
  family: 4 | 6;
  /** What is judged: the IPv4 address (also one carried in IPv6), or the IPv6 address in full. */
  judged: string;
  /** The IPv4 address came out of a tunnel prefix (6to4): private at least, whatever it carries. */
  tunnel: boolean;
}

/** An IP address in any spelling (see above), or undefined for a name. */
export function parseAddress(text: string): ParsedAddress | undefined {
  const bare = text.trim().replace(/^\[(.*)\]$/, '$1');
  const ipv4 = parseIpv4(bare);
  if (ipv4) {
    const address = ipv4.join('.');
    return { address, family: 4, judged: address, tunnel: false };
  }
  const [ip = '', zone] = bare.split('%');
  if (isIP(ip) !== 6 || (zone !== undefined && !/^[\w.-]+$/.test(zone))) return undefined;
  const groups = ipv6Groups(ip);
  const carried = carriedIpv4(groups);
  return {
    address: bare,
    family: 6,
    judged: carried?.ipv4 ?? groups.map((group) => group.toString(16)).join(':'),
    tunnel: carried?.tunnel ?? false,
  };
}

/** The kind of an IP address in any spelling; undefined for what is not one. */
export function addressKind(text: string): AddressKind | undefined {
  const parsed = parseAddress(text);
  if (!parsed) return undefined;
  const type = isIP(parsed.judged) === 4 ? 'ipv4' : 'ipv6';
  const kind = KINDS.find(([, list]) => list.check(parsed.judged, type))?.[0] ?? 'public';
  return parsed.tunnel && kind === 'public' ? 'private' : kind;
}

/** The private ranges, one by one: the one that holds a refused address is what to ask for. */
const REQUESTABLE = PRIVATE.map((cidr) => [cidr, blockListOf([cidr])] as const);

/**
 * What the platform administrator would add to TESSERA_OUTBOUND_ALLOWED_NETWORKS so that a
 * refused address is reached: its private range (10.0.0.0/8, 192.168.0.0/16...), or the address
 * itself for loopback (a directory on the server's own machine); nothing for link-local, the
 * cloud metadata services and unusable addresses, which no company should be sent to.
 */
export function networkToRequest(text: string): string | undefined {
  const parsed = parseAddress(text);
  const kind = addressKind(text);
  if (!parsed || (kind !== 'private' && kind !== 'loopback')) return undefined;
  const type = isIP(parsed.judged) === 4 ? 'ipv4' : 'ipv6';
  if (kind === 'private') {
    const range = REQUESTABLE.find(([, list]) => list.check(parsed.judged, type))?.[0];
    if (range) return range;
  }
  return type === 'ipv4' ? `${parsed.judged}/32` : `${parsed.judged}/128`;
}

/** What a refusal of the outbound rule carries (the `code` is EADDRREFUSED). */
export interface OutboundRefusal {
  code: 'EADDRREFUSED';
  /** The refused address. */
  address: string;
  /** What to ask the platform administrator to allow, when such a request makes sense. */
  network: string | undefined;
}

/** The reason and parameters of the message that tells a company administrator what to ask for. */
export function refusalMessage(error: unknown): {
  reason: 'outbound.address_refused' | 'outbound.address_never';
  params: Record<string, string>;
} {
  const { address = '', network } = error as Partial<OutboundRefusal>;
  return network
    ? { reason: 'outbound.address_refused', params: { address, network } }
    : { reason: 'outbound.address_never', params: { address } };
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

/** Which addresses a kind of connection may go to. */
export interface AddressRule {
  /** Networks allowed whatever they hold (the operator's own decision). */
  networks: readonly string[];
  /** Kinds allowed besides the public internet. */
  kinds: readonly AddressKind[];
}

/** The rule of TESSERA_OUTBOUND_ALLOWED_NETWORKS: `all` opens private networks (and the host's own), never link-local or metadata. */
export function createOutboundPolicy(allowed: OutboundNetworks) {
  return createAddressPolicy(
    allowed === 'all' ? { networks: [], kinds: ['private', 'loopback'] } : { networks: allowed, kinds: [] },
  );
}

export function createAddressPolicy(rule: AddressRule) {
  const named = blockListOf(rule.networks);
  const kinds = new Set<AddressKind>(['public', ...rule.kinds]);

  /** Whether a connection may go to this IP address (in any spelling). */
  function allows(address: string): boolean {
    const parsed = parseAddress(address);
    if (!parsed) return false;
    if (named.check(parsed.judged, isIP(parsed.judged) === 4 ? 'ipv4' : 'ipv6')) return true;
    return kinds.has(addressKind(address) as AddressKind);
  }

  const refusal = (hostname: string, refused: string) => {
    // Named as judged: an IPv4 address carried in IPv6 is the IPv4 address a person recognises.
    const address = parseAddress(refused)?.judged ?? refused;
    const network = networkToRequest(address);
    const advice = network
      ? `; ask the platform administrator to add ${network} to TESSERA_OUTBOUND_ALLOWED_NETWORKS`
      : '';
    return Object.assign(
      new Error(`${hostname} resolves to ${address}, an address the server does not connect to${advice}`),
      { code: 'EADDRREFUSED', address, network },
    );
  };

  /** `lookup` for sockets and agents: resolves as usual and keeps only allowed addresses. */
  function lookup(hostname: string, options: { all?: boolean }, callback: LookupCallback) {
    // An address written as such is judged (and connected to) as the address it spells.
    const literal = parseAddress(hostname);
    if (literal) {
      if (!allows(hostname)) return callback(refusal(hostname, literal.address));
      const { address, family } = literal;
      return options.all ? callback(null, [{ address, family }]) : callback(null, address, family);
    }
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error);
      const usable = addresses.filter((entry) => allows(entry.address));
      if (!usable.length) return callback(refusal(hostname, (addresses[0] as LookupAddress).address));
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

  /** The refusal when a URL's host is, or resolves only to, refused addresses (a name that does not resolve is not refused here). */
  async function refusalOf(url: string): Promise<OutboundRefusal | undefined> {
    try {
      await resolve(new URL(url).hostname);
      return undefined;
    } catch (error) {
      return (error as { code?: string }).code === 'EADDRREFUSED' ? (error as OutboundRefusal) : undefined;
    }
  }
  const refusesUrl = async (url: string) => (await refusalOf(url)) !== undefined;

  let dispatcher: Dispatcher | undefined;
  /** fetch(), connecting only to allowed addresses. */
  function outboundFetch(input: string | URL | Request, init: RequestInit = {}) {
    if (!dispatcher) {
      const Agent = agentClass();
      dispatcher = new Agent({ connect: { lookup } });
    }
    const host = new URL(input instanceof Request ? input.url : input).hostname;
    // An address written as such is never looked up: judge it here.
    const literal = parseAddress(host);
    if (literal && !allows(host)) return Promise.reject(refusal(host, literal.address));
    return fetch(input, { ...init, dispatcher } as RequestInit);
  }

  return { allows, lookup, resolve, refusalOf, refusesUrl, fetch: outboundFetch };
}

export type OutboundPolicy = ReturnType<typeof createAddressPolicy>;
