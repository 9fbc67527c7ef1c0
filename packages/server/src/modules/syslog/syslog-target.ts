import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { AppError } from '../../lib/errors.ts';

/**
 * Where a company's syslog may go. A company administrator names the host, so the server must
 * not become their way into its own network's sensitive places (SSRF): loopback and link-local
 * addresses are refused unless TESSERA_SYSLOG_ALLOW_LOCAL_TARGETS allows them, and cloud metadata
 * services always. Private ranges are allowed: that is where syslog receivers live. The check
 * runs on the addresses a name resolves to, at saving and again at every delivery (a name that
 * later resolves elsewhere is caught), and delivery connects to the address that was checked.
 */

const HOSTNAME =
  /^(?=.{1,253}$)([A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;

/** Metadata services of the clouds (AWS, GCP, Azure, Alibaba, Oracle...), by address. */
const METADATA = new Set([
  '169.254.169.254',
  '169.254.170.2',
  '100.100.100.200',
  '168.63.129.16',
  'fd00:ec2::254',
]);

const v4 = (address: string) => address.split('.').map(Number) as [number, number, number, number];

export type AddressProblem = 'metadata' | 'local' | 'unusable';

/** Why an address cannot receive syslog, or null. */
export function addressProblem(address: string): AddressProblem | null {
  let ip = address.toLowerCase();
  if (ip.startsWith('[') && ip.endsWith(']')) ip = ip.slice(1, -1);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  if (mapped?.[1]) ip = mapped[1];
  if (METADATA.has(ip)) return 'metadata';
  const family = isIP(ip);
  if (family === 4) {
    const [a, b] = v4(ip);
    if (a === 127 || (a === 169 && b === 254)) return 'local';
    if (a === 0 || a >= 224) return 'unusable';
    return null;
  }
  if (family === 6) {
    if (ip === '::1') return 'local';
    if (/^fe[89ab]/.test(ip)) return 'local';
    if (ip === '::' || /^ff/.test(ip)) return 'unusable';
    return null;
  }
  return 'unusable';
}

export function assertHostSyntax(host: string): void {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (isIP(bare)) return;
  if (!HOSTNAME.test(host) || /^\d+(\.\d+)*$/.test(host)) throw new AppError('syslog.host_invalid');
}

const allowed = (address: string, allowLocal: boolean) => {
  const problem = addressProblem(address);
  return problem === null || (problem === 'local' && allowLocal);
};

/**
 * The addresses of a host that may receive syslog. Throws `syslog.host_not_allowed` when any
 * address the name resolves to is refused (a name must not mix a public and a refused address).
 * A name that does not resolve answers an empty list, unless `requireResolution`.
 */
export async function allowedAddresses(
  host: string,
  allowLocal: boolean,
  options: { requireResolution?: boolean } = {},
): Promise<string[]> {
  assertHostSyntax(host);
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  let addresses: string[];
  if (isIP(bare)) addresses = [bare];
  else {
    try {
      addresses = (await lookup(bare, { all: true, verbatim: true })).map((entry) => entry.address);
    } catch (error) {
      if (options.requireResolution)
        throw new Error(`the name ${host} cannot be resolved (${(error as Error).message})`);
      return [];
    }
  }
  if (addresses.some((address) => !allowed(address, allowLocal)))
    throw new AppError('syslog.host_not_allowed');
  return addresses;
}
