/**
 * IP addresses and CIDR ranges (IPv4 and IPv6), without Node: the contract checks the ranges an
 * authorization restricts to, the console checks them in its form, and the server's permission
 * evaluator matches client addresses against them. An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`,
 * how a dual-stack server may see an IPv4 client) is the IPv4 address.
 */

export interface IpAddress {
  family: 4 | 6;
  bytes: Uint8Array;
}

export interface IpRange extends IpAddress {
  /** Leading bits that must match. */
  prefix: number;
  /** The canonical text: the network address (host bits cleared) and the prefix, `10.0.0.0/8`. */
  text: string;
}

function parseIpv4(text: string): Uint8Array | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i] as string;
    // Decimal only, no leading zeros (which some parsers read as octal).
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return null;
    const value = Number(part);
    if (value > 255) return null;
    bytes[i] = value;
  }
  return bytes;
}

function parseIpv6(text: string): Uint8Array | null {
  if (text.includes('%')) return null;
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (half: string): number[] | null => {
    if (half === '') return [];
    const out: number[] = [];
    const pieces = half.split(':');
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i] as string;
      if (i === pieces.length - 1 && piece.includes('.')) {
        const v4 = parseIpv4(piece);
        if (!v4) return null;
        out.push(((v4[0] as number) << 8) | (v4[1] as number), ((v4[2] as number) << 8) | (v4[3] as number));
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return null;
      out.push(Number.parseInt(piece, 16));
    }
    return out;
  };
  const head = groupsOf(halves[0] as string);
  const tail = halves.length === 2 ? groupsOf(halves[1] as string) : [];
  if (!head || !tail) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    bytes[i * 2] = group >> 8;
    bytes[i * 2 + 1] = group & 0xff;
  });
  return bytes;
}

const isMappedIpv4 = (bytes: Uint8Array) =>
  bytes.length === 16 &&
  bytes.subarray(0, 10).every((b) => b === 0) &&
  bytes[10] === 0xff &&
  bytes[11] === 0xff;

/** An IPv4 or IPv6 address, or null; IPv4-mapped IPv6 addresses come back as IPv4. */
export function parseIp(text: string): IpAddress | null {
  const value = text.trim();
  if (value.length === 0 || value.length > 45) return null;
  if (!value.includes(':')) {
    const bytes = parseIpv4(value);
    return bytes ? { family: 4, bytes } : null;
  }
  const bytes = parseIpv6(value);
  if (!bytes) return null;
  return isMappedIpv4(bytes) ? { family: 4, bytes: bytes.slice(12) } : { family: 6, bytes };
}

function formatIp(address: IpAddress): string {
  if (address.family === 4) return [...address.bytes].join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2)
    groups.push(((address.bytes[i] as number) << 8) | (address.bytes[i + 1] as number));
  // RFC 5952: the longest run of two or more zero groups (the first of equals) becomes "::".
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/**
 * A CIDR range (`10.0.0.0/8`, `2001:db8::/32`) or a single address (a /32 or /128), or null.
 * Host bits are cleared: `10.1.2.3/8` is `10.0.0.0/8`.
 */
export function parseIpRange(text: string): IpRange | null {
  const value = text.trim();
  const slash = value.indexOf('/');
  const address = parseIp(slash < 0 ? value : value.slice(0, slash));
  if (!address) return null;
  const max = address.family === 4 ? 32 : 128;
  let prefix = max;
  if (slash >= 0) {
    const bits = value.slice(slash + 1);
    if (!/^(0|[1-9][0-9]{0,2})$/.test(bits)) return null;
    prefix = Number(bits);
    // A mapped IPv4 address written with an IPv6 prefix: the prefix counts from the IPv4 part.
    if (address.family === 4 && value.slice(0, slash).includes(':')) prefix -= 96;
    if (prefix < 0 || prefix > max) return null;
  }
  const bytes = address.bytes.slice();
  for (let bit = prefix; bit < max; bit++)
    bytes[bit >> 3] = (bytes[bit >> 3] as number) & ~(0x80 >> (bit & 7));
  const network: IpAddress = { family: address.family, bytes };
  return { ...network, prefix, text: `${formatIp(network)}/${prefix}` };
}

/** Whether the address is in the range (never across families). */
export function ipInRange(address: IpAddress, range: IpRange): boolean {
  if (address.family !== range.family) return false;
  const whole = range.prefix >> 3;
  for (let i = 0; i < whole; i++) if (address.bytes[i] !== range.bytes[i]) return false;
  const rest = range.prefix & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((address.bytes[whole] as number) & mask) === (range.bytes[whole] as number);
}
