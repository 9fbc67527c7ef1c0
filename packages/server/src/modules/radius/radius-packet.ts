import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import radius from 'radius';

/**
 * RADIUS packets (RFC 2865) as this server reads and answers them. The `radius` package splits
 * and joins attributes; what decides whether a request is believed is done here on the bytes as
 * they came:
 * - the Message-Authenticator (RFC 3579 §3.2) is an HMAC-MD5 over the packet exactly as
 *   received with its value zeroed, compared in constant time (the package re-encodes the packet
 *   and compares strings, which is not what was signed);
 * - answers put the Message-Authenticator first, as FreeRADIUS does since Blast-RADIUS
 *   (CVE-2024-3596), so that no chosen-prefix collision can be spliced in before it.
 */

export const code = {
  accessRequest: 1,
  accessAccept: 2,
  accessReject: 3,
  accessChallenge: 11,
  statusServer: 12,
} as const;

export const attribute = {
  userName: 1,
  userPassword: 2,
  chapPassword: 3,
  nasIpAddress: 4,
  replyMessage: 18,
  state: 24,
  callingStationId: 31,
  nasIdentifier: 32,
  proxyState: 33,
  eapMessage: 79,
  messageAuthenticator: 80,
  nasIpv6Address: 95,
} as const;

const HEADER = 20;
const MAX_PACKET = 4096;

export interface Request {
  code: number;
  identifier: number;
  authenticator: Buffer;
  /** The packet as received, cut to its declared length. */
  bytes: Buffer;
  /** Attributes in order: type and value. */
  attributes: { type: number; value: Buffer; offset: number }[];
}

/** The header and attributes of a packet, or undefined when it is not a well-formed RADIUS packet. */
export function parseRequest(packet: Buffer): Request | undefined {
  if (packet.length < HEADER) return undefined;
  const length = packet.readUInt16BE(2);
  if (length < HEADER || length > MAX_PACKET || length > packet.length) return undefined;
  const bytes = packet.subarray(0, length);
  const attributes: Request['attributes'] = [];
  for (let offset = HEADER; offset < length; ) {
    if (offset + 2 > length) return undefined;
    const type = bytes[offset] ?? 0;
    const size = bytes[offset + 1] ?? 0;
    if (size < 2 || offset + size > length) return undefined;
    attributes.push({ type, value: bytes.subarray(offset + 2, offset + size), offset: offset + 2 });
    offset += size;
  }
  return {
    code: bytes[0] ?? 0,
    identifier: bytes[1] ?? 0,
    authenticator: Buffer.from(bytes.subarray(4, HEADER)),
    bytes,
    attributes,
  };
}

export const attributeValue = (request: Request, type: number) =>
  request.attributes.find((a) => a.type === type)?.value;

/**
 * Which of the clients made the request's Message-Authenticator with its secret: `missing`
 * without one (or with more than one, or one of the wrong size), `bad` when no secret matches.
 * The packet with the value zeroed is made once; each secret then costs one HMAC-MD5.
 */
export function signerOf<T extends { secret: Buffer }>(
  request: Request,
  clients: readonly T[],
): T | 'missing' | 'bad' {
  const found = request.attributes.filter((a) => a.type === attribute.messageAuthenticator);
  const [only] = found;
  if (found.length !== 1 || !only || only.value.length !== 16) return 'missing';
  const copy = Buffer.from(request.bytes);
  copy.fill(0, only.offset, only.offset + 16);
  for (const client of clients)
    if (timingSafeEqual(createHmac('md5', client.secret).update(copy).digest(), only.value)) return client;
  return 'bad';
}

/** User-Password (RFC 2865 §5.2), or undefined when it is not a valid hidden password. */
export function decryptPassword(request: Request, secret: Buffer): Buffer | undefined {
  const hidden = attributeValue(request, attribute.userPassword);
  if (!hidden || hidden.length < 16 || hidden.length > 128 || hidden.length % 16) return undefined;
  const plain = Buffer.alloc(hidden.length);
  let previous = request.authenticator;
  for (let i = 0; i < hidden.length; i += 16) {
    const pad = createHash('md5').update(secret).update(previous).digest();
    for (let j = 0; j < 16; j++) plain[i + j] = (hidden[i + j] ?? 0) ^ (pad[j] ?? 0);
    previous = hidden.subarray(i, i + 16);
  }
  let end = plain.length;
  while (end > 0 && plain[end - 1] === 0) end--;
  return plain.subarray(0, end);
}

/** An address attribute as text (NAS-IP-Address, NAS-IPv6-Address). */
export function addressOf(request: Request): string | null {
  const v4 = attributeValue(request, attribute.nasIpAddress);
  if (v4?.length === 4) return Array.from(v4).join('.');
  const v6 = attributeValue(request, attribute.nasIpv6Address);
  if (v6?.length === 16)
    return Array.from({ length: 8 }, (_, i) => v6.readUInt16BE(i * 2).toString(16)).join(':');
  return null;
}

/** A text attribute as UTF-8, at most `max` characters, with control characters dropped. */
export function textOf(request: Request, type: number, max = 253): string | null {
  const value = attributeValue(request, type);
  if (!value?.length) return null;
  return (
    value
      .toString('utf8')
      // Control characters would end up in logs and screens.
      .replace(/\p{Cc}/gu, '')
      .slice(0, max) || null
  );
}

export interface Answer {
  code: typeof code.accessAccept | typeof code.accessReject | typeof code.accessChallenge;
  replyMessage?: string;
  state?: Buffer;
}

const names: Record<Answer['code'], string> = {
  [code.accessAccept]: 'Access-Accept',
  [code.accessReject]: 'Access-Reject',
  [code.accessChallenge]: 'Access-Challenge',
};

/**
 * The answer to a request: Message-Authenticator first, then Reply-Message and State, then the
 * request's Proxy-States in their order (RFC 2865 §5.33); the Response Authenticator last.
 */
export function encodeAnswer(request: Request, answer: Answer, secret: Buffer): Buffer {
  const attributes: [number, Buffer][] = [[attribute.messageAuthenticator, Buffer.alloc(16)]];
  if (answer.replyMessage) {
    const text = Buffer.from(answer.replyMessage, 'utf8');
    for (let i = 0; i < text.length; i += 253)
      attributes.push([attribute.replyMessage, text.subarray(i, i + 253)]);
  }
  if (answer.state) attributes.push([attribute.state, answer.state]);
  for (const proxy of request.attributes.filter((a) => a.type === attribute.proxyState))
    attributes.push([attribute.proxyState, Buffer.from(proxy.value)]);
  const packet = radius.encode({
    code: names[answer.code],
    identifier: request.identifier,
    secret: secret.toString('latin1'),
    attributes,
    add_message_authenticator: false,
  });
  // The Message-Authenticator and the Response Authenticator are both over the Request Authenticator.
  request.authenticator.copy(packet, 4);
  createHmac('md5', secret)
    .update(packet)
    .digest()
    .copy(packet, HEADER + 2);
  createHash('md5').update(packet).update(secret).digest().copy(packet, 4);
  return packet;
}
