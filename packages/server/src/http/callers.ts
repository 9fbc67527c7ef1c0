/** Who calls the API besides a signed-in person (bind.ts): kept apart so services need no HTTP types. */

/** An application calling with its own OIDC client id and secret, or its own access token. */
export interface AppCaller {
  appId: string;
  companyId: string;
  clientId: string;
}

/** A programmatic access account calling with a client credentials token. */
export interface ApiCaller {
  apiAccountId: string;
  companyId: string;
}
