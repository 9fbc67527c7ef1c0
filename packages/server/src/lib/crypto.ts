import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** At least 128 bits; we use 256. */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');

export const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

export const safeEqual = (a: string, b: string): boolean => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

/**
 * Secrets at rest are sealed with AES-256-GCM under the master key. The associated data binds
 * a ciphertext to its purpose, so a sealed value cannot be moved to another column.
 */
export interface Sealer {
  seal(plaintext: string, purpose: string): string;
  open(sealed: string, purpose: string): string;
  /** A key derived from the master key for one purpose (cookie signing, CSRF tokens, ...). */
  derive(purpose: string, length?: number): Buffer;
  hmac(purpose: string, value: string): string;
}

export function createSealer(masterKey: Buffer): Sealer {
  if (masterKey.length !== 32) throw new Error('master key must be 32 bytes');
  const derive = (purpose: string, length = 32) =>
    Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), `tessera:${purpose}`, length));
  const encryptionKey = derive('seal');
  // HKDF costs more than the HMAC itself (CSRF tokens and device cookies are signed on every
  // sign-in); purposes are a fixed set of names, so each key is derived once.
  const hmacKeys = new Map<string, Buffer>();
  const hmacKey = (purpose: string) => {
    let key = hmacKeys.get(purpose);
    if (!key) {
      key = derive(`hmac:${purpose}`);
      hmacKeys.set(purpose, key);
    }
    return key;
  };
  return {
    seal(plaintext, purpose) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', encryptionKey, iv);
      cipher.setAAD(Buffer.from(purpose));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `v1.${iv.toString('base64url')}.${body.toString('base64url')}`;
    },
    open(sealed, purpose) {
      const [version, ivText, bodyText] = sealed.split('.');
      if (version !== 'v1' || !ivText || !bodyText) throw new Error('unknown sealed value format');
      const body = Buffer.from(bodyText, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', encryptionKey, Buffer.from(ivText, 'base64url'));
      decipher.setAAD(Buffer.from(purpose));
      decipher.setAuthTag(body.subarray(body.length - 16));
      return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString(
        'utf8',
      );
    },
    derive,
    hmac(purpose, value) {
      return createHmac('sha256', hmacKey(purpose)).update(value).digest('base64url');
    },
  };
}

/** The master key from TESSERA_MASTER_KEY, else from (or newly written to) `<dataDir>/master.key`. */
export async function loadMasterKey(configured: string | undefined, dataDir: string): Promise<Buffer> {
  if (configured) {
    return /^[0-9a-fA-F]{64}$/.test(configured)
      ? Buffer.from(configured, 'hex')
      : Buffer.from(configured, 'base64');
  }
  const file = join(dataDir, 'master.key');
  try {
    const key = Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dataDir, { recursive: true });
  const key = randomBytes(32);
  await writeFile(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  await chmod(file, 0o600);
  return key;
}
