import type { FastifyInstance } from 'fastify';
import type { InteractionHelpers } from '../../oidc/interaction.routes.ts';
import { createOidcKind, type OidcSourceDeps, oidcSourceRoutes } from '../oidc/oidc-signin.routes.ts';
import { createSamlKind, type SamlSourceDeps, samlSourceRoutes } from '../saml-source/saml-source.routes.ts';
import { upstreamLogoutRoutes } from './upstream-logout.ts';
import type { UpstreamKinds, UpstreamOffer, UpstreamSignIn } from './upstream-signin.ts';

/**
 * Every kind of upstream source, in one place: how each starts a sign-in (the buttons and
 * home-realm discovery call it), and each kind's own routes (its callback or ACS, its keys or
 * metadata), which hand what they verified to the shared finish.
 */

export type UpstreamKindDeps = OidcSourceDeps & SamlSourceDeps;

export function createUpstreamKinds(deps: UpstreamKindDeps): UpstreamKinds {
  return { oidc: createOidcKind(deps), saml: createSamlKind(deps) };
}

export function upstreamKindRoutes(
  app: FastifyInstance,
  deps: UpstreamKindDeps & { offer: UpstreamOffer; signIn: UpstreamSignIn },
  helpers: InteractionHelpers,
) {
  oidcSourceRoutes(app, deps, helpers);
  samlSourceRoutes(app, deps, helpers);
  upstreamLogoutRoutes(app, deps);
}
