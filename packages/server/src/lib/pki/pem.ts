/** PEM (RFC 7468) in and out. */

export const toPem = (label: string, der: Uint8Array) =>
  `-----BEGIN ${label}-----\n${(
    Buffer.from(der)
      .toString('base64')
      .match(/.{1,64}/g) ?? []
  ).join('\n')}\n-----END ${label}-----\n`;

export interface PemBlock {
  label: string;
  der: Buffer;
  /** Headers of legacy encrypted PEM (`Proc-Type: 4,ENCRYPTED`). */
  encrypted: boolean;
}

/** Every PEM block of a text, in order (at most `max`); text around them is ignored. */
export function pemBlocks(text: string, max = 16): PemBlock[] {
  const blocks: PemBlock[] = [];
  const pattern = /-----BEGIN ([A-Z0-9 ]{1,40})-----([\s\S]*?)-----END \1-----/g;
  for (const match of text.matchAll(pattern)) {
    if (blocks.length >= max) break;
    const body = match[2] ?? '';
    const encrypted = /Proc-Type:\s*4,ENCRYPTED/i.test(body);
    const base64 = body.replace(/^[\w-]+:.*$/gm, '').replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) continue;
    blocks.push({ label: match[1] ?? '', der: Buffer.from(base64, 'base64'), encrypted });
  }
  return blocks;
}

/** Whether bytes look like PEM text rather than DER. */
export const looksLikePem = (bytes: Uint8Array) =>
  Buffer.from(bytes.subarray(0, 4096)).toString('latin1').includes('-----BEGIN ');
