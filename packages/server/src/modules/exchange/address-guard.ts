import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Which addresses the agent may connect to for a company. A company administrator sets the
 * Exchange address; without this guard the agent would carry phones' requests to anything the
 * server can reach (its own loopback, the cloud metadata service, other internal hosts). So
 * loopback, private, link-local, shared and unique-local addresses are refused unless the
 * operator allows them (TESSERA_EXCHANGE_PRIVATE_ADDRESSES: `all`, or the ranges that are
 * allowed). The check is made on the resolved address at every connection (a name that
 * resolves elsewhere later is caught), and when the address is saved (for a clear message).
 */

/** Ranges that are not the public internet (IPv4 and IPv6). */
const internalRanges: [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['224.0.0.0', 3, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['::1', 128, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
];

export type PrivateAddresses = 'all' | readonly string[] | undefined;

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

export function createAddressGuard(allowed: PrivateAddresses) {
  const internal = new BlockList();
  for (const [address, prefix, family] of internalRanges) internal.addSubnet(address, prefix, family);
  const exceptions = new BlockList();
  if (Array.isArray(allowed)) {
    for (const entry of allowed) {
      const [address = '', prefix] = entry.split('/');
      const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (prefix === undefined) exceptions.addAddress(address, family);
      else exceptions.addSubnet(address, Number(prefix), family);
    }
  }

  /** Whether the agent must not connect to this IP address. */
  function refuses(address: string): boolean {
    if (allowed === 'all') return false;
    // An IPv4 address written as IPv6 (::ffff:10.0.0.1) is the IPv4 address.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    const ip = mapped ?? address;
    const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
    return internal.check(ip, family) && !exceptions.check(ip, family);
  }

  /** `lookup` for the agent's connections: resolves as usual and fails on a refused address. */
  function lookup(hostname: string, options: { all?: boolean }, callback: LookupCallback) {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const refused = addresses.find((entry) => refuses(entry.address));
      if (refused) {
        const denied = Object.assign(new Error(`refused address ${refused.address} for ${hostname}`), {
          code: 'EADDRREFUSED',
        });
        return callback(denied, []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  }

  /** Whether a URL's host is, or resolves to, a refused address (a name that does not resolve is not refused here). */
  async function refusesUrl(url: string): Promise<boolean> {
    if (allowed === 'all') return false;
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) return refuses(host);
    return new Promise((resolve) => {
      dnsLookup(host, { all: true }, (error, addresses) =>
        resolve(!error && addresses.some((entry) => refuses(entry.address))),
      );
    });
  }

  return { refuses, lookup, refusesUrl };
}

export type AddressGuard = ReturnType<typeof createAddressGuard>;
