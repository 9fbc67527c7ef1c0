import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  generateSm3Otp,
  generateSm3OtpForStep,
  sm3OtpId,
  sm3OtpStep,
  sm3Truncate,
  verifySm3Otp,
} from './sm3-otp.ts';
import {
  base32Decode,
  base32Encode,
  generateHotp,
  generateTotp,
  newTotpSecret,
  normalizeCode,
  type OtpAlgorithm,
  otpauthUri,
  verifyTotp,
} from './totp.ts';

const ascii = (text: string) => Buffer.from(text, 'ascii');

// RFC 4226 appendix D and RFC 6238 appendix B seeds.
const SEED_SHA1 = ascii('12345678901234567890');
const SEED_SHA256 = ascii('12345678901234567890123456789012');
const SEED_SHA512 = ascii(`${'1234567890'.repeat(6)}1234`);

describe('HOTP (RFC 4226 appendix D)', () => {
  const expected = [
    '755224',
    '287082',
    '359152',
    '969429',
    '338314',
    '254676',
    '287922',
    '162583',
    '399871',
    '520489',
  ];
  it.each(expected.map((code, counter) => [counter, code] as const))(
    'counter %i gives %s',
    (counter, code) => {
      expect(generateHotp(SEED_SHA1, counter)).toBe(code);
    },
  );
});

describe('TOTP (RFC 6238 appendix B, 8 digits)', () => {
  const seeds: Record<OtpAlgorithm, Buffer> = { SHA1: SEED_SHA1, SHA256: SEED_SHA256, SHA512: SEED_SHA512 };
  const table: [number, string, OtpAlgorithm][] = [
    [59, '94287082', 'SHA1'],
    [59, '46119246', 'SHA256'],
    [59, '90693936', 'SHA512'],
    [1111111109, '07081804', 'SHA1'],
    [1111111109, '68084774', 'SHA256'],
    [1111111109, '25091201', 'SHA512'],
    [1111111111, '14050471', 'SHA1'],
    [1111111111, '67062674', 'SHA256'],
    [1111111111, '99943326', 'SHA512'],
    [1234567890, '89005924', 'SHA1'],
    [1234567890, '91819424', 'SHA256'],
    [1234567890, '93441116', 'SHA512'],
    [2000000000, '69279037', 'SHA1'],
    [2000000000, '90698825', 'SHA256'],
    [2000000000, '38618901', 'SHA512'],
    [20000000000, '65353130', 'SHA1'],
    [20000000000, '77737706', 'SHA256'],
    [20000000000, '47863826', 'SHA512'],
  ];
  it.each(table)('at %i s gives %s with %s', (seconds, code, algorithm) => {
    const options = { algorithm, digits: 8 };
    expect(generateTotp(seeds[algorithm], seconds * 1000, options)).toBe(code);
    expect(verifyTotp(seeds[algorithm], code, seconds * 1000, { ...options, window: 0 })).toBe(
      Math.floor(seconds / 30),
    );
  });

  it('defaults to SHA-1, 6 digits, 30 s steps', () => {
    // The last 6 digits of the 8-digit value: the modulus is the only difference.
    expect(generateTotp(SEED_SHA1, 59_000)).toBe('287082');
    expect(generateTotp(SEED_SHA1, 1111111109_000)).toBe('081804');
    expect(generateTotp(SEED_SHA1, 60_000)).not.toBe(generateTotp(SEED_SHA1, 59_999));
  });
});

describe('verifyTotp', () => {
  const now = 1_700_000_015_000; // inside step 56666667
  const step = Math.floor(now / 30_000);
  const codeAt = (s: number) => generateTotp(SEED_SHA1, s * 30_000);

  it('returns the matched step within one step either side and refuses two steps away', () => {
    expect(verifyTotp(SEED_SHA1, codeAt(step), now, { window: 1 })).toBe(step);
    expect(verifyTotp(SEED_SHA1, codeAt(step - 1), now, { window: 1 })).toBe(step - 1);
    expect(verifyTotp(SEED_SHA1, codeAt(step + 1), now, { window: 1 })).toBe(step + 1);
    expect(verifyTotp(SEED_SHA1, codeAt(step - 2), now, { window: 1 })).toBeNull();
    expect(verifyTotp(SEED_SHA1, codeAt(step + 2), now, { window: 1 })).toBeNull();
    expect(verifyTotp(SEED_SHA1, codeAt(step - 1), now, { window: 0 })).toBeNull();
  });

  it('defaults to a window of one step', () => {
    expect(verifyTotp(SEED_SHA1, codeAt(step - 1), now)).toBe(step - 1);
    expect(verifyTotp(SEED_SHA1, codeAt(step + 2), now)).toBeNull();
  });

  it('refuses a step at or before the last accepted one (replay)', () => {
    const first = verifyTotp(SEED_SHA1, codeAt(step), now);
    expect(first).toBe(step);
    expect(verifyTotp(SEED_SHA1, codeAt(step), now, { lastAcceptedStep: step })).toBeNull();
    expect(verifyTotp(SEED_SHA1, codeAt(step - 1), now, { lastAcceptedStep: step })).toBeNull();
    expect(verifyTotp(SEED_SHA1, codeAt(step + 1), now, { lastAcceptedStep: step })).toBe(step + 1);
  });

  it('tolerates spaces and refuses non-digits, wrong lengths and another secret', () => {
    const code = codeAt(step);
    expect(verifyTotp(SEED_SHA1, `${code.slice(0, 3)} ${code.slice(3)}`, now)).toBe(step);
    expect(verifyTotp(SEED_SHA1, ` ${code} `, now)).toBe(step);
    expect(verifyTotp(SEED_SHA1, `${code.slice(0, 3)}-${code.slice(3)}`, now)).toBeNull();
    expect(verifyTotp(SEED_SHA1, `${code.slice(0, 5)}x`, now)).toBeNull();
    expect(verifyTotp(SEED_SHA1, code.slice(0, 5), now)).toBeNull();
    expect(verifyTotp(SEED_SHA1, `${code}0`, now)).toBeNull();
    expect(verifyTotp(SEED_SHA1, '', now)).toBeNull();
    expect(verifyTotp(SEED_SHA1, '１２３４５６', now)).toBeNull(); // full-width digits
    expect(verifyTotp(SEED_SHA256, code, now)).toBeNull();
    expect(normalizeCode('12 34 56', 6)).toBe('123456');
    expect(normalizeCode('+12345', 6)).toBeNull();
  });

  it('refuses bad parameters loudly', () => {
    expect(() => generateTotp(SEED_SHA1, now, { digits: 5 })).toThrow(RangeError);
    expect(() => generateTotp(SEED_SHA1, now, { period: 0 })).toThrow(RangeError);
    expect(() => generateTotp(Buffer.alloc(0), now)).toThrow(TypeError);
    expect(() => generateTotp(SEED_SHA1, Number.NaN)).toThrow(RangeError);
    expect(() => verifyTotp(SEED_SHA1, '123456', now, { window: 11 })).toThrow(RangeError);
    expect(() => generateTotp(SEED_SHA1, now, { algorithm: 'MD5' as OtpAlgorithm })).toThrow(RangeError);
  });

  it('makes 20-byte random secrets', () => {
    const a = newTotpSecret();
    expect(a).toHaveLength(20);
    expect(a.equals(newTotpSecret())).toBe(false);
  });
});

describe('Base32 (RFC 4648)', () => {
  // Section 10 test vectors; we write no padding and read it either way.
  const vectors: [string, string][] = [
    ['', ''],
    ['f', 'MY======'],
    ['fo', 'MZXQ===='],
    ['foo', 'MZXW6==='],
    ['foob', 'MZXW6YQ='],
    ['fooba', 'MZXW6YTB'],
    ['foobar', 'MZXW6YTBOI======'],
  ];
  it.each(vectors)('%j <-> %s', (plain, encoded) => {
    const unpadded = encoded.replace(/=+$/, '');
    expect(base32Encode(ascii(plain))).toBe(unpadded);
    expect(base32Decode(encoded).toString('ascii')).toBe(plain);
    expect(base32Decode(unpadded).toString('ascii')).toBe(plain);
    expect(base32Decode(unpadded.toLowerCase()).toString('ascii')).toBe(plain);
  });

  it('encodes the RFC seed as authenticator apps show it', () => {
    expect(base32Encode(SEED_SHA1)).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(base32Decode('gezd gnbv gy3t qojq gezd gnbv gy3t qojq').equals(SEED_SHA1)).toBe(true);
  });

  it('round-trips every length and byte value', () => {
    for (let length = 0; length <= 70; length++) {
      const data = Buffer.from(Array.from({ length }, (_, i) => (i * 97 + length * 31) & 0xff));
      expect(base32Decode(base32Encode(data)).equals(data)).toBe(true);
    }
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    expect(base32Decode(base32Encode(all)).equals(all)).toBe(true);
  });

  it('refuses characters outside the alphabet and impossible lengths', () => {
    expect(() => base32Decode('MZXW1')).toThrow(/character/);
    expect(() => base32Decode('MZXW8')).toThrow(/character/);
    expect(() => base32Decode('MZ=XW')).toThrow(/padding/);
    expect(() => base32Decode('M')).toThrow(/length/);
    expect(() => base32Decode('MZX')).toThrow(/length/);
    expect(() => base32Decode('MZXW6Y')).toThrow(/length/);
  });
});

describe('otpauthUri', () => {
  it('builds the Key URI with escaped label and issuer', () => {
    expect(
      otpauthUri({ issuer: 'ACME Co', account: 'john.doe@email.com', secret: SEED_SHA1, algorithm: 'SHA1' }),
    ).toBe(
      'otpauth://totp/ACME%20Co:john.doe@email.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ' +
        '&issuer=ACME%20Co&algorithm=SHA1&digits=6&period=30',
    );
  });

  it('escapes reserved and non-ASCII characters and carries the options', () => {
    const uri = otpauthUri({
      issuer: 'Tessera & Co/测试',
      account: 'a b?c#d',
      secret: Buffer.from([0xff, 0x00]),
      algorithm: 'SHA256',
      digits: 8,
      period: 60,
    });
    expect(uri).toBe(
      'otpauth://totp/Tessera%20%26%20Co%2F%E6%B5%8B%E8%AF%95:a%20b%3Fc%23d?secret=74AA' +
        '&issuer=Tessera%20%26%20Co%2F%E6%B5%8B%E8%AF%95&algorithm=SHA256&digits=8&period=60',
    );
    const parsed = new URL(uri);
    expect(parsed.protocol).toBe('otpauth:');
    expect(parsed.searchParams.get('issuer')).toBe('Tessera & Co/测试');
    expect(decodeURIComponent(parsed.pathname.split(':')[1]!)).toBe('a b?c#d');
  });

  it('refuses a colon in the issuer or account and empty parts', () => {
    expect(() => otpauthUri({ issuer: 'A:B', account: 'x', secret: SEED_SHA1 })).toThrow(/":"/);
    expect(() => otpauthUri({ issuer: 'A', account: 'x:y', secret: SEED_SHA1 })).toThrow(/":"/);
    expect(() => otpauthUri({ issuer: ' ', account: 'x', secret: SEED_SHA1 })).toThrow();
  });
});

describe('SM3 (GB/T 32905-2016 / GM/T 0004-2012 examples)', () => {
  it("Node's sm3 is the standard hash", () => {
    expect(createHash('sm3').update('abc').digest('hex')).toBe(
      '66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0',
    );
    expect(createHash('sm3').update('abcd'.repeat(16)).digest('hex')).toBe(
      'debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732',
    );
  });
});

describe('SM3 dynamic password (GM/T 0021-2012)', () => {
  /*
   * The SM3 examples of the standard as carried (commented out) in GmSSL 2.x test/otptest.c
   * (github.com/guanzhi/GmSSL): Tc = 1, K hex, C the event counter, Q the challenge in ASCII,
   * 6 digits. Six keys there have an "e" transcribed as "c"; as transcribed they give other
   * codes, and each corrected key below is the only single-character fix (two for the seventh)
   * that gives the published code, so the codes are the standard's and the keys are repaired.
   */
  const examples: [key: string, t: number, c: number, q: string, p: string][] = [
    ['1234567890abcdef1234567890abcdef', 1313998979, 1234, '5678', '814095'], // GmSSL: ...abcdcf1234...
    ['1234567890abcdefabcdef1234567890', 1313998995, 5621, '3698', '959691'],
    ['1234567890abcdef0987654321abcdef', 1313999014, 5621, '3698', '063014'],
    ['1234567890abcdefabcdef0987654321', 1313999047, 2053, '6984', '302593'], // GmSSL: ...abcdcf0987...
    ['87524138025adcfe2584376195abfedc', 1313999067, 2058, '3024', '657337'],
    ['87524138025adcfeabfedc2584376195', 1313999098, 2056, '2018', '345821'], // GmSSL: ...abfcdc...
    ['adcfe87524138025abfedc2584376195', 1313999131, 2358, '1036', '629660'], // GmSSL: adcfc8..., abfcdc
    ['58ade3698fe280cb6925010dd236caef', 1313999155, 2547, '2058', '479821'], // GmSSL: 58adc3...
    ['58ade365201d80cbdd236caef6925010', 1313999174, 6031, '2058', '893826'], // GmSSL: ...cacf69...
    ['65201d80cb58ade3dd236caef6925010', 1313999189, 6580, '1047', '607614'],
  ];

  it.each(examples)('K=%s T=%i C=%i Q=%s gives %s', (key, t, counter, challenge, code) => {
    const seed = Buffer.from(key, 'hex');
    expect(generateSm3Otp(seed, t * 1000, { period: 1, counter, challenge })).toBe(code);
    expect(generateSm3OtpForStep(seed, t, { counter, challenge })).toBe(code);
    expect(verifySm3Otp(seed, code, t * 1000, { period: 1, counter, challenge, window: 0 })).toBe(t);
  });

  /**
   * A second formulation, written from the standard's text and sharing nothing with the
   * implementation: hex strings throughout, the eight words summed as BigInt.
   */
  function referenceSm3Otp(keyHex: string, seconds: number, period: number, counter = 0, q = ''): string {
    const tHex = BigInt(Math.floor(seconds / period))
      .toString(16)
      .padStart(16, '0');
    const cHex = counter.toString(16).padStart(8, '0');
    let idHex = tHex + cHex + Buffer.from(q, 'latin1').toString('hex');
    while (idHex.length < 32) idHex += '00';
    const s = createHash('sm3')
      .update(Buffer.from(keyHex + idHex, 'hex'))
      .digest('hex');
    let od = 0n;
    for (let i = 0; i < 64; i += 8) od += BigInt(`0x${s.slice(i, i + 8)}`);
    return ((od % 2n ** 32n) % 1_000_000n).toString().padStart(6, '0');
  }

  it('matches an independent formulation for time-only, counter and challenge inputs', () => {
    const keys = ['000102030405060708090a0b0c0d0e0f', 'ffeeddccbbaa99887766554433221100a5a5a5a5'];
    const instants = [0, 59, 60, 1_313_998_979, 1_700_000_000, 4_102_444_800];
    for (const key of keys) {
      for (const seconds of instants) {
        const seed = Buffer.from(key, 'hex');
        for (const period of [60, 30]) {
          expect(generateSm3Otp(seed, seconds * 1000, { period })).toBe(
            referenceSm3Otp(key, seconds, period),
          );
        }
        expect(generateSm3Otp(seed, seconds * 1000)).toBe(referenceSm3Otp(key, seconds, 60));
        expect(generateSm3Otp(seed, seconds * 1000, { counter: 0xfffffffe, challenge: 'abcd1234' })).toBe(
          referenceSm3Otp(key, seconds, 60, 0xfffffffe, 'abcd1234'),
        );
      }
    }
  });

  it('composes ID as T || C || Q padded to 16 bytes, big-endian', () => {
    expect(sm3OtpId(0x0102030405).toString('hex')).toBe('0000000102030405' + '00000000' + '00000000');
    expect(sm3OtpId(1, 0x0a0b0c0d, 'Q123').toString('hex')).toBe(
      '0000000000000001' + '0a0b0c0d' + '51313233',
    );
    expect(sm3OtpId(1, 0, 'challenge!').toString('hex')).toBe(
      ['0000000000000001', '00000000', Buffer.from('challenge!').toString('hex')].join(''),
    );
    expect(sm3OtpStep(1_313_998_979_999)).toBe(Math.floor(1_313_998_979 / 60));
    expect(sm3OtpStep(59_999, 30)).toBe(1);
  });

  it('truncates by summing the eight words mod 2^32', () => {
    expect(sm3Truncate(Buffer.alloc(32, 0xff))).toBe((8 * 0xffffffff) % 2 ** 32);
    const words = Buffer.alloc(32);
    words.writeUInt32BE(0x80000000, 0);
    words.writeUInt32BE(0x80000001, 28);
    expect(sm3Truncate(words)).toBe(1);
  });

  it('verifies within the window, returns the step, refuses replays and bad input', () => {
    const seed = Buffer.from('1234567890abcdef1234567890abcdef', 'hex');
    const now = 1_700_000_030_000;
    const step = Math.floor(now / 60_000);
    const codeAt = (s: number) => generateSm3Otp(seed, s * 60_000);
    expect(verifySm3Otp(seed, codeAt(step), now)).toBe(step);
    expect(verifySm3Otp(seed, codeAt(step - 1), now, { window: 1 })).toBe(step - 1);
    expect(verifySm3Otp(seed, codeAt(step + 1), now, { window: 1 })).toBe(step + 1);
    expect(verifySm3Otp(seed, codeAt(step - 2), now, { window: 1 })).toBeNull();
    expect(verifySm3Otp(seed, codeAt(step + 2), now, { window: 1 })).toBeNull();
    expect(verifySm3Otp(seed, codeAt(step), now, { lastAcceptedStep: step })).toBeNull();
    const code = codeAt(step);
    expect(verifySm3Otp(seed, `${code.slice(0, 3)} ${code.slice(3)}`, now)).toBe(step);
    expect(verifySm3Otp(seed, `${code.slice(0, 5)}a`, now)).toBeNull();
    expect(verifySm3Otp(seed, code, now, { counter: 1 })).toBeNull();
  });

  it('refuses parameters outside the standard', () => {
    const seed = Buffer.alloc(16, 1);
    expect(() => generateSm3Otp(Buffer.alloc(15, 1), 0)).toThrow(/at least 16 bytes/);
    expect(() => generateSm3Otp(seed, 0, { period: 61 })).toThrow(RangeError);
    expect(() => generateSm3Otp(seed, 0, { period: 0 })).toThrow(RangeError);
    expect(() => generateSm3Otp(seed, 0, { challenge: 'abc' })).toThrow(/at least 4 bytes/);
    expect(() => generateSm3Otp(seed, 0, { challenge: '挑战码码' })).toThrow(/ASCII/);
    expect(() => generateSm3Otp(seed, 0, { counter: 2 ** 32 })).toThrow(RangeError);
    expect(() => generateSm3Otp(seed, 0, { digits: 5 })).toThrow(RangeError);
  });
});
