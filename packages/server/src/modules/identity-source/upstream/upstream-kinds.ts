import type { FastifyInstance } from 'fastify';
import type { InteractionHelpers } from '../../oidc/interaction.routes.ts';
import { createOidcKind, type OidcSourceDeps, oidcSourceRoutes } from '../oidc/oidc-signin.routes.ts';
import type { UpstreamKinds, UpstreamOffer, UpstreamSignIn } from './upstream-signin.ts';

/**
 * Every kind of upstream source, in one place: how each starts a sign-in (the buttons and
 * home-realm discovery call it), and each kind's own routes (its callback, its keys or metadata).
 * A new kind (SAML) adds its entry to both.
 */

export type UpstreamKindDeps = OidcSourceDeps;

export function createUpstreamKinds(deps: UpstreamKindDeps): UpstreamKinds {
  return { oidc: createOidcKind(deps) };
}

export function upstreamKindRoutes(
  app: FastifyInstance,
  deps: UpstreamKindDeps & { offer: UpstreamOffer; signIn: UpstreamSignIn },
  helpers: InteractionHelpers,
) {
  oidcSourceRoutes(app, deps, helpers);
}
