import { z } from 'zod';
import {
  identitySourceLimits as limits,
  oidcClientAuthMethods,
  upstreamIdTokenAlgorithms,
} from '../constants.ts';
import { common, firstScan, secret, text } from './identity-source-fields.ts';
import { upstreamButton, upstreamSignOut } from './upstream-settings.ts';

/** The settings of an upstream OpenID Connect identity source (issue 33). */

/** An issuer: https, or http on the machine itself (a development upstream); no query or fragment. */
export const ISSUER_PATTERN =
  /^(?:https:\/\/[^\s?#]+|http:\/\/(?:localhost|127\.0\.0\.1|\[::1\])(?::[0-9]{1,5})?(?:\/[^\s?#]*)?)$/;
/** A claim name of an ID token or userinfo answer. */
const claim = z
  .string({ error: 'upstream.claim_invalid' })
  .trim()
  .min(1, { error: 'upstream.claim_invalid' })
  .max(limits.attributeMax, { error: 'upstream.claim_invalid' })
  .regex(/^[A-Za-z0-9_:.\-/]+$/, { error: 'upstream.claim_invalid' });
const optionalClaim = z
  .string()
  .trim()
  .max(limits.attributeMax, { error: 'upstream.claim_invalid' })
  .refine((value) => value === '' || /^[A-Za-z0-9_:.\-/]+$/.test(value), { error: 'upstream.claim_invalid' })
  .transform((value) => (value === '' ? null : value))
  .nullable()
  .optional();
/** acr or amr values: short tokens without spaces. */
const assertionValues = z
  .array(
    z
      .string()
      .trim()
      .min(1, { error: 'upstream.value_invalid' })
      .max(limits.urlMax, { error: 'upstream.value_invalid' })
      .regex(/^\S+$/, { error: 'upstream.value_invalid' }),
  )
  .max(limits.assertionValuesMax, { error: 'upstream.value_invalid' })
  .default([]);
/** What every upstream source (OpenID Connect, SAML) has: the button, home-realm discovery, MFA, first sign-in. */
export const upstreamCommon = {
  ...upstreamButton,
  ...upstreamSignOut,
  /** The upstream's assertion (acr/amr) of a second factor counts as the company's second factor. */
  trustUpstreamMfa: z.boolean().default(false),
  firstScan,
};

/** An upstream OpenID Connect provider (Entra ID, Okta, Keycloak, another Tessera...). */
export const oidcSettings = z.object({
  ...common,
  issuer: z
    .string({ error: 'upstream.issuer_invalid' })
    .trim()
    .max(limits.urlMax, { error: 'upstream.issuer_invalid' })
    .regex(ISSUER_PATTERN, { error: 'upstream.issuer_invalid' }),
  clientId: text(limits.credentialMax, 'upstream.client_id_required'),
  clientAuth: z.enum(oidcClientAuthMethods).default('client_secret_basic'),
  /** Needed for client_secret_basic and client_secret_post. */
  clientSecret: secret,
  scopes: z
    .string()
    .trim()
    .max(limits.urlMax, { error: 'upstream.scopes_invalid' })
    .regex(/^[\x21\x23-\x5B\x5D-\x7E]+(?: [\x21\x23-\x5B\x5D-\x7E]+)*$/, { error: 'upstream.scopes_invalid' })
    .refine((value) => value.split(' ').includes('openid'), { error: 'upstream.scopes_invalid' })
    .default('openid profile email'),
  /** Algorithms the ID token may be signed with (empty: all of upstreamIdTokenAlgorithms). */
  idTokenAlgorithms: z.array(z.enum(upstreamIdTokenAlgorithms)).default([]),
  usernameClaim: claim.default('preferred_username'),
  nameClaim: optionalClaim.default('name'),
  emailClaim: optionalClaim.default('email'),
  phoneClaim: optionalClaim.default('phone_number'),
  groupsClaim: optionalClaim,
  /** acr values that mean a second factor (any one of them). */
  mfaAcrValues: assertionValues,
  /** amr values that mean a second factor (any one of them), e.g. mfa, otp, hwk. */
  mfaAmrValues: assertionValues,
  ...upstreamCommon,
});
