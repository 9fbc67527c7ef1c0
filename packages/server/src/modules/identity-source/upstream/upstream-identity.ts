/**
 * Who an upstream identity provider says signed in, whatever its protocol: what an OpenID
 * Connect ID token (oidc/oidc-upstream.ts) or a SAML assertion gives to the shared finish of
 * an upstream sign-in (upstream-signin.ts).
 */
export interface UpstreamIdentity {
  /** The stable id of the person at the provider (OIDC `sub`, SAML persistent NameID): the link's external id. */
  externalId: string;
  /** From the claims or attributes the source's settings name. */
  username: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  groups: string[];
  /**
   * The provider asserted a second factor that counts as the company's, as the source's settings
   * define it (OIDC: trusted, and one of the acr/amr values; SAML: one of the AuthnContext values).
   */
  upstreamMfa: boolean;
  /**
   * What the provider's logout needs (OIDC: the ID token as id_token_hint and its sid; SAML: the
   * NameID with its format and qualifiers, and the SessionIndex).
   */
  session?: {
    idToken?: string;
    sid: string | null;
    nameId?: string;
    nameIdFormat?: string | null;
    nameQualifier?: string | null;
    spNameQualifier?: string | null;
    sessionIndex?: string | null;
  };
}
