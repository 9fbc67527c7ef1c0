import { type PageContext, renderFrontChannelLogoutPage, renderLogoutConfirmPage } from '@tessera/portal';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { pickLanguage } from '../../lib/i18n.ts';
import { appOf } from './clients.ts';

export const OIDC_MOUNT = '/oidc';
export const PORTAL_ASSETS_PATH = '/portal';

/** Discovery changes with a release; signing keys with `npm run keys -- rotate` (kept short). */
export const DISCOVERY_CACHE = 'public, max-age=3600';
export const JWKS_CACHE = 'public, max-age=300';

export const pageContextOf = (ctx: KoaContextWithOIDC): PageContext => ({
  lang: pickLanguage(
    ctx.cookies.get('lang', { signed: false }),
    ctx.get('accept-language'),
    (ctx.oidc?.params as { ui_locales?: unknown } | undefined)?.ui_locales,
  ),
  currentUrl: OIDC_MOUNT + ctx.originalUrl,
  assetsBase: PORTAL_ASSETS_PATH,
});

interface SessionLike {
  accountId?: string;
  authorizations?: Record<string, { sid?: string }>;
  state?: { clientId?: string; postLogoutRedirectUri?: string };
}

/**
 * The provider's answers that Tessera shapes:
 * - discovery and JWKS carry cache headers;
 * - a sign-out request from an application for a visitor without a session and without an
 *   `id_token_hint` asks before sending the browser to the application's post-logout address
 *   (anyone could otherwise use it as a redirector);
 * - when a sign-out ends applications' sessions that registered a front-channel logout URI
 *   (OIDC Front-Channel Logout 1.0), a page loads them in frames before going on;
 * - that page may frame exactly those applications' origins.
 */
/**
 * Work an event handler of the provider starts (a login event, a counted failed client
 * authentication) is stored before the provider answers: the next request sees it, and a client
 * that sends one request after another meets its budget exactly. The provider's events do not
 * wait for their handlers; this does.
 */
export function beforeAnswer(ctx: object, work: Promise<unknown>): void {
  const state = (ctx as { state?: { beforeAnswer?: Promise<unknown>[] } }).state;
  if (!state) return;
  state.beforeAnswer ??= [];
  state.beforeAnswer.push(work);
}

export function shapeProviderResponses(provider: Provider, issuer: string) {
  provider.use(async (ctx, next) => {
    const confirming = ctx.method === 'POST' && ctx.path === '/session/end/confirm';
    // What the session held before the confirmation ends it (its applications and their sids).
    const before: SessionLike | undefined = confirming
      ? ({ ...(await provider.Session.get(ctx as never)) } as SessionLike)
      : undefined;
    await next();
    const started = (ctx.state as { beforeAnswer?: Promise<unknown>[] }).beforeAnswer;
    if (started) await Promise.allSettled(started);
    const oidc = (ctx as KoaContextWithOIDC).oidc;
    const route = oidc?.route;
    if (ctx.status === 200 && route === 'discovery') ctx.set('cache-control', DISCOVERY_CACHE);
    if (ctx.status === 200 && route === 'jwks') ctx.set('cache-control', JWKS_CACHE);

    if (route === 'end_session' && ctx.status === 200) await confirmWithoutSession(ctx as KoaContextWithOIDC);
    if (route === 'end_session_confirm' && ctx.status === 303 && before)
      await frontChannelLogout(ctx as KoaContextWithOIDC, before);

    // The pages policy (http/security-headers.ts) is set before the provider writes; the page
    // that loads front-channel logout URIs may frame exactly their origins.
    const frames = (ctx.state as { logoutFrames?: string[] }).logoutFrames;
    const csp = ctx.response.get('content-security-policy');
    if (frames?.length && csp) ctx.set('content-security-policy', `${csp}; frame-src ${frames.join(' ')}`);
  });

  async function confirmWithoutSession(ctx: KoaContextWithOIDC) {
    const { oidc } = ctx;
    const params = oidc.params as { post_logout_redirect_uri?: string; id_token_hint?: string };
    if (!oidc.session || oidc.session.accountId || !params.post_logout_redirect_uri || params.id_token_hint)
      return;
    const secret = (oidc.session.state as { secret?: string } | undefined)?.secret;
    if (!secret) return;
    ctx.type = 'html';
    ctx.body = renderLogoutConfirmPage(pageContextOf(ctx), {
      action: oidc.urlFor('end_session_confirm'),
      xsrf: secret,
      clientName: oidc.client?.clientName ?? oidc.client?.clientId ?? '',
      destination: new URL(params.post_logout_redirect_uri).host,
    });
  }

  async function frontChannelLogout(ctx: KoaContextWithOIDC, before: SessionLike) {
    const { oidc } = ctx;
    const everything = Boolean((oidc.params as { logout?: string }).logout);
    const ended = everything
      ? Object.keys(before.authorizations ?? {})
      : [before.state?.clientId].filter((id): id is string => Boolean(id));
    const frames: { url: string; name: string }[] = [];
    for (const clientId of ended) {
      const client = await provider.Client.find(clientId).catch(() => undefined);
      const uri = appOf(client as never)?.frontchannelLogoutUri;
      if (!client || !uri) continue;
      const url = new URL(uri);
      url.searchParams.set('iss', issuer);
      const sid = before.authorizations?.[clientId]?.sid;
      if (sid) url.searchParams.set('sid', sid);
      frames.push({ url: url.toString(), name: client.clientName ?? clientId });
    }
    if (!frames.length) return;
    const next = ctx.response.get('location');
    ctx.remove('location');
    ctx.status = 200;
    ctx.type = 'html';
    (ctx.state as { logoutFrames?: string[] }).logoutFrames = [
      ...new Set(frames.map((f) => new URL(f.url).origin)),
    ];
    ctx.body = renderFrontChannelLogoutPage(pageContextOf(ctx), {
      frames: frames.map((f) => f.url),
      applications: frames.map((f) => f.name),
      continueUrl: next,
    });
  }
}
