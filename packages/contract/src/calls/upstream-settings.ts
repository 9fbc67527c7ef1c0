import { z } from 'zod';
import { identitySourceLimits as limits } from '../constants.ts';

/**
 * What the sign-in page needs of every upstream source (OpenID Connect, SAML: issue 33), whatever
 * its protocol: its button's logo, and the email domains home-realm discovery sends to it.
 */

/** The email domains whose people the sign-in page sends to this source (home-realm discovery). */
const emailDomains = z
  .array(
    z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, {
        error: 'upstream.domain_invalid',
      }),
  )
  .max(limits.emailDomainsMax, { error: 'upstream.domain_invalid' })
  .default([]);
/** The button of an upstream source on the sign-in page: its name is the source's; a logo (https). */
const logoUrl = z
  .string()
  .trim()
  .max(limits.urlMax, { error: 'upstream.logo_invalid' })
  .refine((value) => value === '' || /^https:\/\/[^\s"'<>]+$/.test(value), { error: 'upstream.logo_invalid' })
  .transform((value) => (value === '' ? null : value))
  .nullable()
  .optional();
/** The button (its name is the source's) and home-realm discovery of an upstream source. */
export const upstreamButton = { logoUrl, emailDomains };
/** Whether signing out of Tessera signs out at the upstream provider too (where it offers a logout endpoint). */
export const upstreamSignOut = { signOutUpstream: z.boolean().default(true) };
