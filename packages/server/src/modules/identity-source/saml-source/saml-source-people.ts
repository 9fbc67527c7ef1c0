import type { SamlSettings } from '../identity-source.repo.ts';
import { usernameFromLogin } from '../scan/contacts.ts';
import { cleanEmail, cleanPhone, cleanText } from '../sync/snapshot.ts';
import type { UpstreamIdentity } from '../upstream/upstream-identity.ts';
import type { VerifiedAssertion } from './saml-source-protocol.ts';

/**
 * Who a verified assertion is, in the shape every upstream kind hands to the shared finish
 * (upstream/upstream-signin.ts), which finds the linked person or creates one.
 */

/** The person an assertion describes, by the source's attribute names. */
export function personOf(settings: SamlSettings, assertion: VerifiedAssertion): UpstreamIdentity {
  const first = (name: string | null | undefined) =>
    name ? (assertion.attributes[name]?.[0] ?? null) : null;
  const username = first(settings.usernameAttribute) ?? assertion.nameId;
  return {
    externalId: assertion.nameId,
    username: usernameFromLogin(username),
    name: cleanText(first(settings.nameAttribute)),
    email: cleanEmail(first(settings.emailAttribute)),
    phone: cleanPhone(first(settings.phoneAttribute)),
    groups: settings.groupsAttribute
      ? (assertion.attributes[settings.groupsAttribute] ?? []).slice(0, 100)
      : [],
    // The authentication context is one the source lists as a second factor.
    upstreamMfa: Boolean(assertion.authnContext && settings.mfaContexts.includes(assertion.authnContext)),
    session: { sid: null, nameId: assertion.nameId, ...assertion.logout },
  };
}
