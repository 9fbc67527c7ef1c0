import { PkiError } from './keys.ts';

/**
 * A minimal DER writer and reader for the few small structures that the ASN.1 schema packages do
 * not declare (PBES2 and PKCS#12 PBE parameters, CMS EncryptedData). Lengths are checked against
 * the input, so a truncated or lying structure is a PkiError, never a read past the end.
 */

const lengthOf = (length: number) => {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
};

export const tlv = (tag: number, value: Uint8Array) =>
  Buffer.concat([Buffer.from([tag]), lengthOf(value.length), value]);
export const sequence = (...items: Uint8Array[]) => tlv(0x30, Buffer.concat(items));
export const octetString = (value: Uint8Array) => tlv(0x04, value);
export const explicit = (index: number, value: Uint8Array) => tlv(0xa0 + index, value);

export function integer(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  do {
    bytes.unshift(rest % 256);
    rest = Math.floor(rest / 256);
  } while (rest > 0);
  if ((bytes[0] ?? 0) >= 0x80) bytes.unshift(0);
  return tlv(0x02, Buffer.from(bytes));
}

export function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const bytes: number[] = [(parts[0] ?? 0) * 40 + (parts[1] ?? 0)];
  for (const part of parts.slice(2)) {
    const chunk: number[] = [part & 0x7f];
    for (let rest = Math.floor(part / 128); rest > 0; rest = Math.floor(rest / 128))
      chunk.unshift((rest & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

export const algorithm = (dotted: string, parameters?: Uint8Array) =>
  sequence(oid(dotted), ...(parameters ? [parameters] : []));

export interface Node {
  tag: number;
  /** The content octets. */
  value: Buffer;
  /** The whole element (tag, length and content). */
  raw: Buffer;
}

/** The element at the start of `input`. */
export function read(input: Uint8Array): Node {
  const buffer = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  if (buffer.length < 2) throw new PkiError('malformed');
  const tag = buffer[0] ?? 0;
  let length = buffer[1] ?? 0;
  let offset = 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4 || buffer.length < 2 + count) throw new PkiError('malformed');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + (buffer[2 + i] ?? 0);
    offset += count;
  }
  if (offset + length > buffer.length) throw new PkiError('malformed');
  return { tag, value: buffer.subarray(offset, offset + length), raw: buffer.subarray(0, offset + length) };
}

/** The elements inside a constructed element's content, in order. */
export function children(value: Buffer): Node[] {
  const nodes: Node[] = [];
  let rest = value;
  while (rest.length) {
    const node = read(rest);
    nodes.push(node);
    rest = rest.subarray(node.raw.length);
    if (nodes.length > 64) throw new PkiError('malformed');
  }
  return nodes;
}

export function readOid(node: Node | undefined): string {
  if (node?.tag !== 0x06 || !node.value.length) throw new PkiError('malformed');
  const bytes = node.value;
  const first = bytes[0] ?? 0;
  const parts = [Math.min(2, Math.floor(first / 40)), first - Math.min(2, Math.floor(first / 40)) * 40];
  let value = 0;
  for (const byte of bytes.subarray(1)) {
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      parts.push(value);
      value = 0;
    }
  }
  return parts.join('.');
}

export function readInteger(node: Node | undefined, max: number): number {
  if (node?.tag !== 0x02 || !node.value.length || node.value.length > 6) throw new PkiError('malformed');
  const value = node.value.readUIntBE(0, node.value.length);
  if (value > max) throw new PkiError('malformed');
  return value;
}

export function readOctets(node: Node | undefined): Buffer {
  if (node?.tag !== 0x04) throw new PkiError('malformed');
  return node.value;
}
