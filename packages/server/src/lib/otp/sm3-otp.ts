import { createHash } from 'node:crypto';
import { checkDigits, DEFAULT_TOTP_DIGITS, type VerifyOptions, verifyStepWindow } from './totp.ts';

/**
 * Dynamic password of GM/T 0021-2012 (re-issued as GB/T 38556-2020) "动态口令密码应用技术规范",
 * SM3 variant:
 *
 *   T  = floor(T0 / Tc)                  time factor, 8 bytes big-endian (Tc <= 60 s)
 *   C  = event counter                   4 bytes big-endian
 *   Q  = challenge                       ASCII, at least 4 bytes, optional
 *   ID = T || C || Q, zero-padded at the end to at least 16 bytes
 *   S  = SM3(K || ID)                    K: the seed key, at least 16 bytes
 *   OD = (S1 + S2 + ... + S8) mod 2^32   S split into eight big-endian 32-bit words
 *   P  = OD mod 10^N
 *
 * Checked against the ten SM3 examples carried (commented out) in GmSSL 2.x test/otptest.c and
 * against the composition of GmSSL crypto/otp/otp.c and CnPack CnOTP.pas (TCnDynamicToken);
 * see otp.test.ts. C is always encoded (0 when unused), as CnPack does and as the examples have it.
 *
 * As with TOTP, replay protection is the caller's: store the step `verifySm3Otp` returns and
 * refuse any step less than or equal to it.
 */

export interface Sm3OtpOptions {
  /** Tc in seconds, 1 to 60; default 60, the standard's maximum and usual value. */
  period?: number;
  /** N, 6 to 8; default 6. */
  digits?: number;
  /** C, 0 to 2^32 - 1; default 0. */
  counter?: number;
  /** Q: an ASCII string or bytes, at least 4 bytes. */
  challenge?: string | Buffer;
}

export const DEFAULT_SM3_OTP_PERIOD = 60;
export const SM3_OTP_MIN_SEED_BYTES = 16;
const MIN_ID_BYTES = 16;
const MIN_CHALLENGE_BYTES = 4;

function checkPeriod(period: number): number {
  if (!Number.isInteger(period) || period < 1 || period > 60) {
    throw new RangeError(`SM3 OTP period must be an integer from 1 to 60 seconds, got ${period}`);
  }
  return period;
}

function challengeBytes(challenge: string | Buffer | undefined): Buffer {
  if (challenge === undefined) return Buffer.alloc(0);
  let bytes: Buffer;
  if (typeof challenge === 'string') {
    if (!/^[\x20-\x7e]*$/.test(challenge)) throw new RangeError('SM3 OTP challenge must be printable ASCII');
    bytes = Buffer.from(challenge, 'ascii');
  } else {
    bytes = challenge;
  }
  if (bytes.length < MIN_CHALLENGE_BYTES) {
    throw new RangeError(`SM3 OTP challenge must be at least ${MIN_CHALLENGE_BYTES} bytes`);
  }
  return bytes;
}

function checkSeed(seed: Buffer): void {
  if (!Buffer.isBuffer(seed) || seed.length < SM3_OTP_MIN_SEED_BYTES) {
    throw new RangeError(`SM3 OTP seed key must be a Buffer of at least ${SM3_OTP_MIN_SEED_BYTES} bytes`);
  }
}

/** ID = T || C || Q, padded with zero bytes to at least 128 bits. */
export function sm3OtpId(step: number, counter = 0, challenge?: string | Buffer): Buffer {
  if (!Number.isSafeInteger(step) || step < 0) throw new RangeError(`SM3 OTP step must be >= 0, got ${step}`);
  if (!Number.isInteger(counter) || counter < 0 || counter > 0xffffffff) {
    throw new RangeError(`SM3 OTP counter must be an integer from 0 to 2^32 - 1, got ${counter}`);
  }
  const t = Buffer.alloc(8);
  t.writeBigUInt64BE(BigInt(step));
  const c = Buffer.alloc(4);
  c.writeUInt32BE(counter);
  const id = Buffer.concat([t, c, challengeBytes(challenge)]);
  return id.length >= MIN_ID_BYTES ? id : Buffer.concat([id, Buffer.alloc(MIN_ID_BYTES - id.length)]);
}

/** The standard's truncation of a 256-bit SM3 value: the sum of its eight words mod 2^32. */
export function sm3Truncate(digest: Buffer): number {
  if (digest.length !== 32) throw new RangeError('SM3 digest must be 32 bytes');
  let sum = 0;
  for (let offset = 0; offset < 32; offset += 4) sum = (sum + digest.readUInt32BE(offset)) >>> 0;
  return sum;
}

/** The password of one time step (T already divided by the period). */
export function generateSm3OtpForStep(
  seed: Buffer,
  step: number,
  options: Omit<Sm3OtpOptions, 'period'> = {},
): string {
  checkSeed(seed);
  const digits = checkDigits(options.digits ?? DEFAULT_TOTP_DIGITS);
  const id = sm3OtpId(step, options.counter ?? 0, options.challenge);
  const digest = createHash('sm3').update(seed).update(id).digest();
  return String(sm3Truncate(digest) % 10 ** digits).padStart(digits, '0');
}

/** T = floor(unix seconds / period). */
export function sm3OtpStep(atMs: number, period = DEFAULT_SM3_OTP_PERIOD): number {
  if (!Number.isFinite(atMs) || atMs < 0)
    throw new RangeError(`OTP time must be a non-negative number, got ${atMs}`);
  return Math.floor(Math.floor(atMs / 1000) / checkPeriod(period));
}

export function generateSm3Otp(seed: Buffer, atMs: number, options: Sm3OtpOptions = {}): string {
  return generateSm3OtpForStep(seed, sm3OtpStep(atMs, options.period), options);
}

/**
 * The time step `code` belongs to (within `window` steps of `atMs`, default 1), or null.
 * Spaces in the code are tolerated, anything else non-numeric is refused; the comparison does
 * not exit early. The caller must store the returned step and refuse any step <= it.
 */
export function verifySm3Otp(
  seed: Buffer,
  code: string,
  atMs: number,
  options: Sm3OtpOptions & VerifyOptions = {},
): number | null {
  checkSeed(seed);
  const digits = checkDigits(options.digits ?? DEFAULT_TOTP_DIGITS);
  const current = sm3OtpStep(atMs, options.period);
  challengeBytes(options.challenge);
  return verifyStepWindow(code, current, options, digits, (step) =>
    generateSm3OtpForStep(seed, step, options),
  );
}
