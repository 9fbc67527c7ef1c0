import { type LookupAddress, lookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Requests the provider makes to applications (Back-Channel Logout tokens) go to addresses that
 * company administrators typed, and anyone signed in may create a company: so they never reach
 * loopback, private, link-local or other special-use addresses (the server itself, its database,
 * a cloud metadata service), unless the operator allows such networks for applications that live
 * there (TESSERA_BACKCHANNEL_ALLOWED_NETWORKS). The check runs on the addresses a name resolves
 * to at connection time, so a name that changes its answer in between gains nothing.
 */

const SPECIAL_USE_V4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
];
const SPECIAL_USE_V6 = [
  '::/128',
  '::1/128',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '100::/64',
  '2001::/23',
  '2001:db8::/32',
  '2002::/16',
  'fc00::/7',
  'fe80::/10',
  'ff00::/8',
];

function blockListOf(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address, prefix] = cidr.split('/');
    const type = isIP(address ?? '') === 6 ? 'ipv6' : 'ipv4';
    list.addSubnet(address as string, Number(prefix ?? (type === 'ipv6' ? 128 : 32)), type);
  }
  return list;
}

const specialUse = blockListOf([...SPECIAL_USE_V4, ...SPECIAL_USE_V6]);

/** Parses a comma-separated list of CIDRs (or single addresses); throws on a bad entry. */
export function parseNetworks(value: string | undefined): string[] {
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

/** Whether requests may go to this address. */
export function addressAllowed(address: string, allowed: BlockList): boolean {
  const family = isIP(address);
  if (!family) return false;
  const type = family === 6 ? 'ipv6' : 'ipv4';
  // An IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
  const mapped = type === 'ipv6' ? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] : undefined;
  if (mapped) return addressAllowed(mapped, allowed);
  return !specialUse.check(address, type) || allowed.check(address, type);
}

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

/** A fetch for the provider's `fetch` setting: outgoing requests only to allowed addresses. */
export function createOutboundFetch(allowedNetworks: readonly string[]) {
  const allowed = blockListOf(allowedNetworks);
  const Agent = agentClass();
  const dispatcher = new Agent({
    connect: {
      lookup(
        hostname: string,
        options: { all?: boolean },
        callback: (error: Error | null, address?: string | LookupAddress[], family?: number) => void,
      ) {
        lookup(hostname, { ...options, all: true }, (error, addresses) => {
          if (error) return callback(error);
          const usable = addresses.filter((a) => addressAllowed(a.address, allowed));
          if (!usable.length)
            return callback(new Error(`${hostname} resolves to an address that is not allowed`));
          if (options.all) return callback(null, usable);
          const [first] = usable as [LookupAddress];
          return callback(null, first.address, first.family);
        });
      },
    },
  });
  return (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // An address written as such is never looked up: judge it here.
    if (isIP(host) && !addressAllowed(host, allowed))
      return Promise.reject(new Error(`${host} is not an address requests may go to`));
    return fetch(input, { ...init, dispatcher } as RequestInit);
  };
}
