import { renderAutoLogoutPage, renderLoggedOutPage, renderLogoutPage } from '@tessera/portal';
import type Provider from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { pageContextOf } from './provider-responses.ts';

type OidcClient = NonNullable<KoaContextWithOIDC['oidc']['client']>;
/** A person's `sub` at a client, as the provider gives it in that client's ID tokens. */
type SubjectFor = (client: OidcClient, accountId: string) => Promise<string>;

/**
 * The provider's end-session pages (RP-Initiated Logout): the sign-out question, or a page that
 * posts itself when the application named this very session (`hintNamesSession`), and the page
 * that says the person is signed out.
 */
export function endSessionPages(
  subjectFor: SubjectFor,
): NonNullable<NonNullable<Configuration['features']>['rpInitiatedLogout']> {
  return {
    enabled: true,
    async logoutSource(ctx, form) {
      ctx.type = 'html';
      // An application that names this session with its ID token signs the person out
      // without asking: the form posts itself, as oidc-provider's own page without a session
      // does; anything else asks, as before.
      const xsrf = ctx.oidc.session?.state?.secret;
      if (typeof xsrf === 'string' && (await hintNamesSession(ctx, subjectFor))) {
        ctx.body = renderAutoLogoutPage(pageContextOf(ctx), {
          action: ctx.oidc.urlFor('end_session_confirm'),
          xsrf,
        });
        return;
      }
      ctx.body = renderLogoutPage(pageContextOf(ctx), { form });
    },
    async postLogoutSuccessSource(ctx) {
      ctx.type = 'html';
      ctx.body = renderLoggedOutPage(pageContextOf(ctx), {
        clientName: ctx.oidc.client?.clientName ?? undefined,
      });
    },
  };
}

/**
 * Whether an end-session request names the very session it would end, so the person need not
 * confirm (OpenID Connect RP-Initiated Logout 1.0 §2 and §6 leave the confirmation to the OP: it
 * protects against someone else's page logging the person out).
 *
 * Called from `logoutSource`, that is after oidc-provider validated the `id_token_hint` (its
 * signature, our issuer, the requesting client as its audience; a hint that fails any of these
 * is refused before) and only when the browser has a signed-in session. The hint's `sub` must be
 * the session's account as that client sees it, and its `sid` the session's id at that client: a
 * hint of another person, of an earlier session or of another application's session asks.
 */
async function hintNamesSession(ctx: KoaContextWithOIDC, subjectFor: SubjectFor): Promise<boolean> {
  const { client, session, entities } = ctx.oidc;
  const hint = (entities as { IdTokenHint?: { payload?: { sub?: unknown; sid?: unknown; aud?: unknown } } })
    .IdTokenHint?.payload;
  const accountId = session?.accountId;
  if (!hint || !client || !accountId || hint.aud !== client.clientId) return false;
  const sid = session.sidFor(client.clientId);
  if (typeof hint.sid !== 'string' || !sid || hint.sid !== sid) return false;
  return typeof hint.sub === 'string' && hint.sub === (await subjectFor(client, accountId));
}

/** Logs each back-channel logout token an application did not accept. */
export function logBackchannelFailures(
  provider: Provider,
  log: { warn(object: object, message: string): void },
): void {
  provider.on(
    'backchannel.error',
    (
      _ctx: unknown,
      error: Error & { response?: Response },
      client: { clientId: string; backchannelLogoutUri?: string },
    ) => {
      // The address without its query, and why: never the logout token, nor the query (it may carry a secret).
      const uri = client.backchannelLogoutUri ? new URL(client.backchannelLogoutUri) : undefined;
      const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
      log.warn(
        {
          clientId: client.clientId,
          backchannelLogoutUri: uri ? `${uri.origin}${uri.pathname}` : undefined,
          reason: error.response ? `answered HTTP ${error.response.status}` : `${error.message}${cause}`,
        },
        'back-channel logout failed',
      );
    },
  );
}
