import { createHmac, randomBytes, randomInt } from 'node:crypto';
import type { Sealer } from '../../lib/crypto.ts';

/**
 * The secrets of the Exchange agent: device passwords (typed once into a phone), the company's
 * registration token (typed into a phone's password field to register it), and a short-lived
 * memory of device passwords already verified, so that the agent does not pay an argon2id
 * verification on every request of a phone.
 */

/** Letters and digits without look-alikes (0/O, 1/l/I): what people type on a phone keyboard. */
const PASSWORD_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZabcdefghjkmnpqrstuvwxyz23456789';
/** Capitals and digits without look-alikes, for a token read aloud or copied from a notice. */
const TOKEN_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const TOKEN_LENGTH = 16;

/** A device password of `digits` characters from a CSPRNG (55 symbols: about 5.8 bits each). */
export function newDevicePassword(digits: number): string {
  let out = '';
  for (let i = 0; i < digits; i++) out += PASSWORD_ALPHABET[randomInt(PASSWORD_ALPHABET.length)];
  return out;
}

/** A registration token: 16 characters of 31 symbols (79 bits), shown in groups of four. */
export function newRegistrationToken(): string {
  let out = '';
  for (let i = 0; i < TOKEN_LENGTH; i++) out += TOKEN_ALPHABET[randomInt(TOKEN_ALPHABET.length)];
  return out.replace(/(.{4})(?=.)/g, '$1-');
}

/** A token as typed: without the group hyphens or spaces, in capitals. */
export const normaliseToken = (typed: string) => typed.replace(/[\s-]/g, '').toUpperCase();

/** Could this password be a registration token at all (so no other password is looked up as one)? */
export const mayBeToken = (typed: string) => normaliseToken(typed).length === TOKEN_LENGTH;

const TOKEN_PURPOSE = 'exchange-registration-token';

/** The keyed hash a token is found by; the sealed copy is what administrators see. */
export const tokenLookupHash = (sealer: Sealer, token: string) =>
  sealer.hmac(TOKEN_PURPOSE, normaliseToken(token));
export const sealToken = (sealer: Sealer, token: string) => sealer.seal(token, TOKEN_PURPOSE);
export const openToken = (sealer: Sealer, sealed: string) => sealer.open(sealed, TOKEN_PURPOSE);

/** The purpose new device passwords are sealed under until their person sees them. */
export const PENDING_PASSWORD_PURPOSE = 'exchange-device-password';

/**
 * Device passwords verified recently, per process. An entry is an HMAC (under a key made at
 * start, never stored) of the device, its current password hash and the password: neither the
 * password nor anything that verifies it elsewhere is kept, a new password (a new hash) misses,
 * and entries expire after `ttlMs`. Only the argon2id verification is skipped: every request
 * still reads the device, its person and the company's agent from the database.
 */
export function createVerifiedPasswords(options: { ttlMs: number; max: number }) {
  const key = randomBytes(32);
  const entries = new Map<string, number>();
  const entryOf = (deviceRowId: string, passwordHash: string, password: string) =>
    createHmac('sha256', key)
      .update(`${deviceRowId}\u0000${passwordHash}\u0000`)
      .update(password)
      .digest('base64url');
  return {
    has(deviceRowId: string, passwordHash: string, password: string): boolean {
      const entry = entryOf(deviceRowId, passwordHash, password);
      const expires = entries.get(entry);
      if (expires === undefined) return false;
      if (expires > Date.now()) return true;
      entries.delete(entry);
      return false;
    },
    add(deviceRowId: string, passwordHash: string, password: string): void {
      // Oldest first: a full map forgets its oldest entry.
      if (entries.size >= options.max) entries.delete(entries.keys().next().value as string);
      entries.set(entryOf(deviceRowId, passwordHash, password), Date.now() + options.ttlMs);
    },
    get size() {
      return entries.size;
    },
  };
}

export type VerifiedPasswords = ReturnType<typeof createVerifiedPasswords>;
