import type { Language } from '@tessera/contract';
import type { Db } from '../../../db/database.ts';
import { fieldError } from '../source-settings.ts';
import { findDomainOwner } from './upstream-sources.repo.ts';

/** What the settings of the upstream sources (OpenID Connect, SAML) need besides their schema. */

/** Home-realm discovery sends an email domain to one source of a company: refuses a domain another has. */
export async function assertDomainsFree(
  db: Db,
  lang: Language,
  companyId: string,
  sourceId: string,
  domains: string[],
) {
  const owner = await findDomainOwner(db, companyId, sourceId, domains);
  if (owner) throw fieldError(lang, 'emailDomains', 'upstream.domain_taken', owner);
}

/** The addresses an upstream OpenID provider is given: redirect URI, Tessera's JWKS, back-channel logout. */
export const upstreamUrlsOf = (publicUrl: string, sourceId: string) => ({
  callbackUrl: `${publicUrl}/portal/upstream/${sourceId}/callback`,
  jwksUrl: `${publicUrl}/portal/upstream/${sourceId}/jwks`,
  backchannelLogoutUrl: `${publicUrl}/portal/upstream/${sourceId}/backchannel-logout`,
  postLogoutRedirectUrl: `${publicUrl}/portal/upstream/${sourceId}/logged-out`,
});
