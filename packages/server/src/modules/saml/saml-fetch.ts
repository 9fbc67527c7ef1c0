import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP } from 'node:net';
import { samlLimits } from '@tessera/contract';
import { AppError } from '../../lib/errors.ts';

/**
 * Fetches a service provider's metadata once, when an administrator asks (never on a schedule),
 * without letting the URL reach inside: the host is resolved first and every address it has is
 * checked; the connection then goes to that checked address (no second lookup a rebinding DNS
 * server could answer differently). Link-local, unspecified and multicast addresses and the cloud
 * metadata services are always refused; private networks (RFC 1918, shared 100.64/10, unique
 * local fc00::/7) and loopback only where the installation allows them (an on-premises
 * installation whose service providers live there; tests): anyone may create a company, and its
 * administrator must not reach inside the platform's network. At most 3 redirects (each
 * checked), 10 s, 512 KiB.
 */

const blocked = new BlockList();
blocked.addSubnet('0.0.0.0', 8, 'ipv4');
blocked.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local, 169.254.169.254 metadata (AWS, GCP, Azure, OCI)
blocked.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud metadata
blocked.addSubnet('224.0.0.0', 3, 'ipv4'); // multicast and reserved, broadcast
blocked.addAddress('::', 'ipv6');
blocked.addSubnet('fe80::', 10, 'ipv6');
blocked.addSubnet('ff00::', 8, 'ipv6');
blocked.addAddress('fd00:ec2::254', 'ipv6'); // AWS metadata over IPv6

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

const privateNetworks = new BlockList();
privateNetworks.addSubnet('10.0.0.0', 8, 'ipv4');
privateNetworks.addSubnet('172.16.0.0', 12, 'ipv4');
privateNetworks.addSubnet('192.168.0.0', 16, 'ipv4');
privateNetworks.addSubnet('100.64.0.0', 10, 'ipv4');
privateNetworks.addSubnet('fc00::', 7, 'ipv6');

/** Which addresses inside a network an installation lets outgoing fetches reach. */
export interface FetchReach {
  allowLoopback: boolean;
  allowPrivate: boolean;
}

/** The IPv4 address an IPv6 address carries (mapped ::ffff:a.b.c.d, or NAT64 64:ff9b::a.b.c.d). */
function embeddedIpv4(address: string): string | undefined {
  const match = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (match) return match[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex?.[1] || !hex[2]) return undefined;
  const high = Number.parseInt(hex[1], 16);
  const low = Number.parseInt(hex[2], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Whether an outgoing fetch may connect to this address. */
export function isFetchableAddress(address: string, reach: FetchReach): boolean {
  const family = isIP(address);
  if (!family) return false;
  const v4 = family === 6 ? embeddedIpv4(address) : address;
  const [checked, type] = v4 ? [v4, 'ipv4' as const] : [address, 'ipv6' as const];
  if (loopback.check(checked, type)) return reach.allowLoopback;
  if (blocked.check(checked, type)) return false;
  return reach.allowPrivate || !privateNetworks.check(checked, type);
}

async function checkedAddress(url: URL, reach: FetchReach) {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host)
    ? [{ address: host, family: isIP(host) }]
    : await lookup(host, { all: true }).catch(() => {
        throw new AppError('saml.fetch_failed', { reason: 'DNS' });
      });
  if (!addresses.length || addresses.some((a) => !isFetchableAddress(a.address, reach)))
    throw new AppError('saml.fetch_refused_address');
  return addresses[0] as { address: string; family: number };
}

function get(url: URL, address: { address: string; family: number }, deadline: number) {
  return new Promise<IncomingMessage>((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, {
      method: 'GET',
      headers: { accept: 'application/samlmetadata+xml, application/xml, text/xml', 'user-agent': 'Tessera' },
      timeout: Math.max(1, deadline - Date.now()),
      lookup: (_host, _options, callback) => callback(null, address.address, address.family),
    });
    req.on('timeout', () => req.destroy(new AppError('saml.fetch_failed', { reason: 'timeout' })));
    req.on('error', (error) =>
      reject(
        error instanceof AppError ? error : new AppError('saml.fetch_failed', { reason: error.message }),
      ),
    );
    req.on('response', resolve);
    req.end();
  });
}

async function readBody(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    size += (chunk as Buffer).length;
    if (size > samlLimits.metadataBytes) {
      response.destroy();
      throw new AppError('saml.metadata_too_large');
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function fetchMetadata(address: string, reach: FetchReach): Promise<string> {
  const deadline = Date.now() + 10_000;
  let url = new URL(address);
  for (let hop = 0; hop <= 3; hop++) {
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password)
      throw new AppError('saml.url_invalid');
    const response = await get(url, await checkedAddress(url, reach), deadline);
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.resume();
      url = new URL(response.headers.location, url);
      continue;
    }
    if (status !== 200) {
      response.resume();
      throw new AppError('saml.fetch_failed', { reason: `HTTP ${status}` });
    }
    return readBody(response);
  }
  throw new AppError('saml.fetch_failed', { reason: 'too many redirects' });
}
