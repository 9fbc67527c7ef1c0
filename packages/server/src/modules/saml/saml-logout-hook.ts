import type { KoaContextWithOIDC } from 'oidc-provider';
import type { SamlSlo } from './saml-slo.service.ts';

type Next = () => Promise<unknown>;

/**
 * A post-middleware of the OIDC provider (its `provider.use`): when a sign-out ends a single
 * sign-on session (the confirmation of end_session with "sign out"), the browser goes through
 * single logout at the SAML service providers of that session before it continues where the
 * provider sends it. Nothing else of the provider's logout changes.
 */
export function samlLogoutHook(slo: Pick<SamlSlo, 'afterSsoLogout'>) {
  return async (ctx: KoaContextWithOIDC, next: Next) => {
    await next();
    if (ctx.oidc?.route !== 'end_session_confirm' || ctx.status !== 303) return;
    const session = ctx.oidc.session as
      | (NonNullable<KoaContextWithOIDC['oidc']['session']> & { destroyed?: boolean })
      | undefined;
    const location = ctx.response.get('location');
    if (!session?.destroyed || !session.accountId || !session.uid || !location) return;
    const detour = await slo.afterSsoLogout(session.uid, session.accountId, location);
    if (detour) {
      ctx.status = 303;
      ctx.redirect(detour);
    }
  };
}
