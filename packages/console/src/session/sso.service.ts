import type { ConsoleVariant } from '@tessera/contract/shell-constants';
import type { ApiResponse, CallApi } from '../api/http-client.ts';

/** What the console remembers in sessionStorage between leaving for sign-in and coming back. */
interface PendingSignIn {
  state: string;
  verifier: string;
  returnTo: string;
}

export class SignInStateMismatch extends Error {
  constructor() {
    super('The sign-in answer does not belong to a sign-in this tab started');
    this.name = 'SignInStateMismatch';
  }
}

export interface SsoDeps {
  variant: ConsoleVariant;
  callApi: CallApi;
  /** sessionStorage: per tab, gone when the tab closes. */
  storage: Storage;
  /** Leaves the console for another address (window.location.assign). */
  goTo(url: string): void;
}

type SsoConfig = ApiResponse<'/api/v1/sso/config'>;

/** The console as an OpenID Connect client with PKCE (spec §4 step 3). */
export function createSsoService(deps: SsoDeps) {
  const key = `tessera_sso_${deps.variant}`;
  let config: Promise<SsoConfig> | undefined;
  const ssoConfig = () => {
    config ??= deps.callApi('/api/v1/sso/config', { variant: deps.variant }).catch((error: unknown) => {
      config = undefined;
      throw error;
    });
    return config;
  };

  const readPending = (): PendingSignIn | undefined => {
    try {
      const value = JSON.parse(deps.storage.getItem(key) ?? 'null') as Partial<PendingSignIn> | null;
      return value && typeof value.state === 'string' && typeof value.verifier === 'string'
        ? { state: value.state, verifier: value.verifier, returnTo: value.returnTo ?? '/' }
        : undefined;
    } catch {
      return undefined;
    }
  };

  /**
   * Sends the browser to the authorization endpoint; `returnTo` is where to land afterwards.
   * PKCE is fetched with the configuration: a console opened with a token never needs it.
   */
  async function startSignIn(returnTo: string) {
    const [sso, { buildAuthorizationUrl, codeChallengeOf, createCodeVerifier, randomBase64Url }] =
      await Promise.all([ssoConfig(), import('./pkce.ts')]);
    const verifier = createCodeVerifier();
    const state = randomBase64Url(16);
    const pending: PendingSignIn = { state, verifier, returnTo };
    deps.storage.setItem(key, JSON.stringify(pending));
    deps.goTo(
      buildAuthorizationUrl({
        authorizationEndpoint: sso.authorizationEndpoint,
        clientId: sso.clientId,
        redirectUri: sso.redirectUri,
        scope: sso.scope,
        state,
        codeChallenge: await codeChallengeOf(verifier),
      }),
    );
  }

  /**
   * Exchanges the authorization code. Throws SignInStateMismatch when the state is not the one
   * this tab sent (a stale or foreign answer), ApiError when the server refuses the code.
   */
  async function completeSignIn(code: string, state: string | null) {
    const pending = readPending();
    deps.storage.removeItem(key);
    if (!pending || pending.state !== state) throw new SignInStateMismatch();
    const result = await deps.callApi(
      `/api/v1/${deps.variant}/oidc/token`,
      { code, codeVerifier: pending.verifier },
      { silent: true },
    );
    return { ...result, returnTo: pending.returnTo };
  }

  /** Ends the single sign-on session without a console token (to sign in as someone else). */
  async function switchAccount() {
    const sso = await ssoConfig();
    const url = new URL(sso.endSessionEndpoint);
    url.searchParams.set('client_id', sso.clientId);
    url.searchParams.set('post_logout_redirect_uri', sso.redirectUri);
    deps.goTo(url.toString());
  }

  return { startSignIn, completeSignIn, switchAccount };
}

export type SsoService = ReturnType<typeof createSsoService>;
