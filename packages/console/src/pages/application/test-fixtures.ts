import type { AppDetail, AppSummary } from './app-view.ts';

/** An application as the server answers it, for the screen tests. */
export function appSummary(overrides: Partial<AppSummary> = {}): AppSummary {
  return {
    appId: 'app-1',
    name: 'Sales portal',
    description: null,
    type: 'self_built',
    protocol: 'oidc',
    template: null,
    status: 'to_be_configured',
    logo: null,
    clientId: 'client-sales-1',
    createdAt: 1_790_000_000,
    ...overrides,
  };
}

export function appDetail(overrides: Partial<AppDetail> = {}): AppDetail {
  const issuer = 'http://localhost:8080/oidc';
  return {
    ...appSummary(),
    readyToEnable: true,
    oidc: {
      redirectUris: ['https://sales.example.com/callback'],
      postLogoutRedirectUris: [],
      initiateLoginUri: null,
      backchannelLogoutUri: null,
      frontchannelLogoutUri: null,
      homeUrl: null,
      scopes: ['openid', 'profile'],
      signingAlg: 'ES256',
      tokenAuthMethod: 'client_secret_basic',
      requirePkce: true,
      lifetimes: { authorizationCode: 120, idToken: 3600, accessToken: 3600, refreshToken: 86_400 },
    },
    defaultAccess: 'allow_all',
    askConsent: false,
    metadata: {
      issuer,
      discoveryUrl: `${issuer}/.well-known/openid-configuration`,
      jwksUri: `${issuer}/jwks`,
      authorizationEndpoint: `${issuer}/auth`,
      tokenEndpoint: `${issuer}/token`,
      userinfoEndpoint: `${issuer}/me`,
      endSessionEndpoint: `${issuer}/session/end`,
    },
    updatedAt: 1_790_000_100,
    ...overrides,
  };
}
