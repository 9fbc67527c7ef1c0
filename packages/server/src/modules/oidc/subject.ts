import type { Sealer } from '../../lib/crypto.ts';

/**
 * Pairwise subject identifiers (OIDC Core §8.1) with the company as the sector: every
 * application of one company sees the same `sub` for a person, applications of two companies
 * see two unrelated values, so they cannot correlate the person. The value is derived from the
 * master key, the company and the account (nothing is stored); Tessera's own clients (console,
 * user centre) see the account id.
 */
const PURPOSE = 'oidc-pairwise-subject';

export const pairwiseSubject = (sealer: Sealer) => (companyId: string, accountId: string) =>
  sealer.hmac(PURPOSE, `${companyId}:${accountId}`);

/**
 * oidc-provider asks a pairwise client whose callback URLs are on several hosts for a
 * `sector_identifier_uri` (and would fetch it to compare the URLs). The company is the sector
 * here, so this names it, under a reserved name (RFC 2606) that is never fetched: see
 * `sectorIdentifierUriValidate` in provider.ts.
 */
export const COMPANY_SECTOR_BASE = 'https://sector.tessera.invalid/companies/';
export const companySectorUri = (companyId: string) =>
  `${COMPANY_SECTOR_BASE}${encodeURIComponent(companyId)}`;
