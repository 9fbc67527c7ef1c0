import { createCipheriv, timingSafeEqual } from 'node:crypto';
import type { Sealer } from '../../lib/crypto.ts';

/**
 * Pairwise subject identifiers (OIDC Core §8.1) with the company as the sector: every
 * application of one company sees the same `sub` for a person, applications of two companies
 * see two unrelated values, so they cannot correlate the person. Tessera's own clients
 * (console, user centre) see the account id.
 *
 * Applications name people back by that `sub` (the decision API), so it must resolve to the
 * account without a table or a scan: it is the account id sealed deterministically for the
 * company (SIV, RFC 5297's construction with HMAC-SHA-256 and AES-256-CTR): the synthetic IV is
 * an HMAC of company and account, the rest the account id encrypted under that IV. Resolving
 * decrypts and recomputes the HMAC for the asking company, so a value of another company's
 * subject space (or anything else) resolves to nobody. Nothing is stored; the master key
 * derives both keys.
 */
const MAC_PURPOSE = 'oidc-pairwise-subject';
const CIPHER_PURPOSE = 'oidc-pairwise-subject-cipher';
const IV_BYTES = 16;
/** Account ids are UUIDs (lib/ids.ts): packed into 16 bytes, so a `sub` is 44 characters. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PACKED_UUID = 1;
const TEXT = 0;
/** A `sub` is at most 255 characters (OIDC Core §2); an account id longer than this gets none. */
const SUBJECT_MAX = 255;

function packAccountId(accountId: string): Buffer {
  return UUID.test(accountId)
    ? Buffer.concat([Buffer.of(PACKED_UUID), Buffer.from(accountId.replace(/-/g, ''), 'hex')])
    : Buffer.concat([Buffer.of(TEXT), Buffer.from(accountId, 'utf8')]);
}

function unpackAccountId(packed: Buffer): string | null {
  if (packed[0] === PACKED_UUID && packed.length === 17) {
    const hex = packed.subarray(1).toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  return packed[0] === TEXT && packed.length > 1 ? packed.subarray(1).toString('utf8') : null;
}

/** The one place that derives a person's `sub` in a company and resolves it back. */
export function pairwiseSubjects(sealer: Sealer) {
  const cipherKey = sealer.derive(CIPHER_PURPOSE);
  const syntheticIv = (companyId: string, accountId: string) =>
    Buffer.from(sealer.hmac(MAC_PURPOSE, `${companyId}:${accountId}`), 'base64url').subarray(0, IV_BYTES);
  const ctr = (iv: Buffer, input: Buffer) => {
    const cipher = createCipheriv('aes-256-ctr', cipherKey, iv);
    return Buffer.concat([cipher.update(input), cipher.final()]);
  };

  /** The `sub` of an account at every application of a company. */
  function subjectOf(companyId: string, accountId: string): string {
    const iv = syntheticIv(companyId, accountId);
    return Buffer.concat([iv, ctr(iv, packAccountId(accountId))]).toString('base64url');
  }

  /**
   * The account behind a `sub` an application of the company received, or null for anything
   * that is not one (another company's, an account id, a guess): an unknown person.
   */
  function accountOf(companyId: string, subject: string): string | null {
    if (subject.length > SUBJECT_MAX || !/^[\w-]+$/.test(subject)) return null;
    const bytes = Buffer.from(subject, 'base64url');
    if (bytes.length <= IV_BYTES + 1 || bytes.toString('base64url') !== subject) return null;
    const iv = bytes.subarray(0, IV_BYTES);
    // CTR decrypts as it encrypts.
    const accountId = unpackAccountId(ctr(iv, bytes.subarray(IV_BYTES)));
    if (accountId === null) return null;
    return timingSafeEqual(iv, syntheticIv(companyId, accountId)) ? accountId : null;
  }

  return { subjectOf, accountOf };
}

export type PairwiseSubjects = ReturnType<typeof pairwiseSubjects>;

/** The derivation alone, as the provider and the sign-in policy take it. */
export const pairwiseSubject = (sealer: Sealer) => pairwiseSubjects(sealer).subjectOf;

/**
 * oidc-provider asks a pairwise client whose callback URLs are on several hosts for a
 * `sector_identifier_uri` (and would fetch it to compare the URLs). The company is the sector
 * here, so this names it, under a reserved name (RFC 2606) that is never fetched: see
 * `sectorIdentifierUriValidate` in provider.ts.
 */
export const COMPANY_SECTOR_BASE = 'https://sector.tessera.invalid/companies/';
export const companySectorUri = (companyId: string) =>
  `${COMPANY_SECTOR_BASE}${encodeURIComponent(companyId)}`;
