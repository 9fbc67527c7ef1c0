import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * HOTP (RFC 4226) and TOTP (RFC 6238), Base32 (RFC 4648) and `otpauth://` URIs.
 *
 * Replay protection is the caller's job: `verifyTotp` returns the time step the code matched,
 * and the caller must store the last step it accepted for that secret and refuse any step less
 * than or equal to it (or pass it as `lastAcceptedStep`, which does the same refusal here).
 * Without that, a code seen over someone's shoulder works again for the rest of the window.
 */

export type OtpAlgorithm = 'SHA1' | 'SHA256' | 'SHA512';

export interface HotpOptions {
  /** Default SHA1, what every authenticator app supports. */
  algorithm?: OtpAlgorithm;
  /** 6 to 8; default 6. */
  digits?: number;
}

export interface TotpOptions extends HotpOptions {
  /** Seconds per time step; default 30. */
  period?: number;
}

export interface VerifyOptions {
  /** Steps accepted on each side of the current one, for clock drift; default 1, at most 10. */
  window?: number;
  /** The last step accepted for this secret: it and every earlier step are refused. */
  lastAcceptedStep?: number;
}

const HMAC_NAMES: Record<OtpAlgorithm, string> = { SHA1: 'sha1', SHA256: 'sha256', SHA512: 'sha512' };
const MAX_WINDOW = 10;

export const DEFAULT_TOTP_DIGITS = 6;
export const DEFAULT_TOTP_PERIOD = 30;

export function checkDigits(digits: number): number {
  if (!Number.isInteger(digits) || digits < 6 || digits > 8) {
    throw new RangeError(`OTP digits must be an integer from 6 to 8, got ${digits}`);
  }
  return digits;
}

export function checkWindow(window: number): number {
  if (!Number.isInteger(window) || window < 0 || window > MAX_WINDOW) {
    throw new RangeError(`OTP window must be an integer from 0 to ${MAX_WINDOW}, got ${window}`);
  }
  return window;
}

function checkAlgorithm(algorithm: OtpAlgorithm): string {
  const name = HMAC_NAMES[algorithm];
  if (!name) throw new RangeError(`unsupported OTP algorithm ${String(algorithm)}`);
  return name;
}

function checkSecret(secret: Buffer): void {
  if (!Buffer.isBuffer(secret) || secret.length === 0)
    throw new TypeError('OTP secret must be a non-empty Buffer');
}

/** The 8-byte big-endian counter of RFC 4226. */
export function counterBytes(counter: number): Buffer {
  if (!Number.isSafeInteger(counter) || counter < 0) {
    throw new RangeError(`OTP counter must be a non-negative safe integer, got ${counter}`);
  }
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(counter));
  return bytes;
}

/** HOTP value of one counter, zero-padded to `digits`. */
export function generateHotp(secret: Buffer, counter: number, options: HotpOptions = {}): string {
  checkSecret(secret);
  const digits = checkDigits(options.digits ?? DEFAULT_TOTP_DIGITS);
  const mac = createHmac(checkAlgorithm(options.algorithm ?? 'SHA1'), secret)
    .update(counterBytes(counter))
    .digest();
  // Dynamic truncation (RFC 4226 section 5.3): the low nibble of the last byte picks 4 bytes.
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** Time step of an instant: floor(unix seconds / period). */
export function timeStep(atMs: number, period: number): number {
  if (!Number.isFinite(atMs) || atMs < 0)
    throw new RangeError(`OTP time must be a non-negative number, got ${atMs}`);
  if (!Number.isInteger(period) || period < 1) {
    throw new RangeError(`OTP period must be a positive integer of seconds, got ${period}`);
  }
  return Math.floor(Math.floor(atMs / 1000) / period);
}

export function generateTotp(secret: Buffer, atMs: number, options: TotpOptions = {}): string {
  return generateHotp(secret, timeStep(atMs, options.period ?? DEFAULT_TOTP_PERIOD), options);
}

/**
 * What a person typed, as the bare digits, or null when it cannot be a code: spaces are
 * tolerated ("123 456"), anything else that is not a digit is refused, and so is a wrong length.
 */
export function normalizeCode(code: string, digits: number): string | null {
  if (typeof code !== 'string') return null;
  const bare = code.replace(/[\s\u00a0]/g, '');
  if (bare.length !== digits || !/^[0-9]+$/.test(bare)) return null;
  return bare;
}

/** Equal-length digit strings compared without an early exit. */
export function codesEqual(expected: string, given: string): boolean {
  const left = Buffer.from(expected, 'ascii');
  const right = Buffer.from(given, 'ascii');
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Checks `code` against every step from current - window to current + window and returns the
 * matched step, or null. Every step of the window is computed and compared, whatever matches,
 * so the time taken does not say which step (if any) matched.
 */
export function verifyStepWindow(
  code: string,
  currentStep: number,
  options: VerifyOptions,
  digits: number,
  codeAt: (step: number) => string,
): number | null {
  const window = checkWindow(options.window ?? 1);
  const given = normalizeCode(code, digits);
  if (given === null) return null;
  const lastAccepted = options.lastAcceptedStep ?? -1;
  let matched: number | null = null;
  // Nearest steps first, so a (one in a million) double match picks the one closest to now.
  const order = [currentStep];
  for (let distance = 1; distance <= window; distance++)
    order.push(currentStep - distance, currentStep + distance);
  for (const step of order) {
    if (step < 0) continue;
    const equal = codesEqual(codeAt(step), given);
    if (equal && matched === null && step > lastAccepted) matched = step;
  }
  return matched;
}

/**
 * The time step `code` belongs to (within `window` steps of `atMs`), or null. The caller must
 * store the returned step and refuse any later code whose step is <= the stored one.
 */
export function verifyTotp(
  secret: Buffer,
  code: string,
  atMs: number,
  options: TotpOptions & VerifyOptions = {},
): number | null {
  checkSecret(secret);
  const digits = checkDigits(options.digits ?? DEFAULT_TOTP_DIGITS);
  const current = timeStep(atMs, options.period ?? DEFAULT_TOTP_PERIOD);
  return verifyStepWindow(code, current, options, digits, (step) => generateHotp(secret, step, options));
}

/** 160 bits, the HMAC-SHA1 block-friendly size RFC 4226 recommends. */
export const newTotpSecret = (): Buffer => randomBytes(20);

const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 Base32, upper case, without `=` padding (what authenticator apps take). */
export function base32Encode(data: Buffer): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of data) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += BASE32_ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32_ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/**
 * Decodes Base32 as people copy it: any case, with or without `=` padding, spaces and hyphens
 * between groups ignored. Throws on any other character or on a length no encoder produces.
 */
export function base32Decode(text: string): Buffer {
  const cleaned = text.replace(/[\s-]/g, '').toUpperCase();
  const body = cleaned.replace(/=+$/, '');
  if (body.includes('=')) throw new Error('invalid Base32: padding inside the text');
  // 8 characters carry 5 bytes; a final group of 1, 3 or 6 characters cannot end a byte.
  if ([1, 3, 6].includes(body.length % 8)) throw new Error('invalid Base32: impossible length');
  const out: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of body) {
    const value = BASE32_ALPHABET.indexOf(char);
    if (value < 0) throw new Error(`invalid Base32 character ${JSON.stringify(char)}`);
    buffer = ((buffer << 5) | value) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((buffer >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

export interface OtpauthUriInput {
  issuer: string;
  account: string;
  secret: Buffer;
  algorithm?: OtpAlgorithm;
  digits?: number;
  period?: number;
}

/** Label parts are percent-encoded; `@` stays readable as in Google's Key URI examples. */
const encodeLabelPart = (value: string) => encodeURIComponent(value).replace(/%40/g, '@');

/**
 * The Key URI of Google Authenticator (and every app that copied it), for QR codes:
 * `otpauth://totp/Issuer:account?secret=...&issuer=...&algorithm=...&digits=...&period=...`.
 * The issuer is both in the label (older apps) and in the parameter (newer ones). A colon in
 * either part would be read as the separator, so it is refused.
 */
export function otpauthUri(input: OtpauthUriInput): string {
  const { issuer, account } = input;
  if (!issuer.trim() || !account.trim()) throw new Error('otpauth URI needs an issuer and an account');
  if (issuer.includes(':') || account.includes(':'))
    throw new Error('otpauth issuer and account cannot contain ":"');
  checkSecret(input.secret);
  const algorithm = input.algorithm ?? 'SHA1';
  checkAlgorithm(algorithm);
  const digits = checkDigits(input.digits ?? DEFAULT_TOTP_DIGITS);
  const period = input.period ?? DEFAULT_TOTP_PERIOD;
  timeStep(0, period);
  const label = `${encodeLabelPart(issuer)}:${encodeLabelPart(account)}`;
  const query = [
    `secret=${base32Encode(input.secret)}`,
    `issuer=${encodeURIComponent(issuer)}`,
    `algorithm=${algorithm}`,
    `digits=${digits}`,
    `period=${period}`,
  ].join('&');
  return `otpauth://totp/${label}?${query}`;
}
