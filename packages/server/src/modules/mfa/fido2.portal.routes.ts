import {
  type PageContext,
  portalPhrases,
  renderErrorPage,
  renderPasskeyRegisterPage,
  renderRecoveryCodesPage,
} from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../db/schema.ts';
import { type Sealer, safeEqual } from '../../lib/crypto.ts';
import { PORTAL_ASSETS_PATH } from '../oidc/provider.ts';
import { type Fido2Service, parseCredential } from './fido2.service.ts';
import { bindTypesOf, csrfOf, PASSKEY_PATH } from './mfa.portal.routes.ts';
import type { MfaService } from './mfa.service.ts';

const ACCOUNT_PATH = '/portal/account';

const pageHeaders = {
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  // webauthn.js is served from 'self'; no inline script is needed.
  'content-security-policy': "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
};

/**
 * The user centre's "add a passkey": GET shows the page with fresh options (the challenge bound
 * to the portal session), POST takes the browser's answer with the CSRF token of the MFA forms.
 */
export function fido2PortalRoutes(
  app: FastifyInstance,
  deps: {
    mfa: MfaService;
    fido2: Fido2Service;
    sealer: Sealer;
    signedIn(request: FastifyRequest): Promise<{ sessionId: string; account: Account } | undefined>;
  },
) {
  const pageContext = (request: FastifyRequest): PageContext => ({
    lang: request.lang,
    currentUrl: PASSKEY_PATH,
    assetsBase: PORTAL_ASSETS_PATH,
  });
  const send = (reply: FastifyReply, status: number, body: string) =>
    reply.status(status).headers(pageHeaders).type('text/html; charset=utf-8').send(body);
  const subjectOf = (sessionId: string) => `portal:${sessionId}`;

  async function showPage(
    request: FastifyRequest,
    reply: FastifyReply,
    current: { sessionId: string; account: Account },
    error?: string,
  ) {
    const options = await deps.fido2.registrationOptions(current.account, subjectOf(current.sessionId));
    return send(
      reply,
      error ? 400 : 200,
      renderPasskeyRegisterPage(pageContext(request), {
        action: PASSKEY_PATH,
        csrfToken: csrfOf(deps.sealer, current.sessionId),
        username: current.account.username,
        options: JSON.stringify(options),
        backHref: ACCOUNT_PATH,
        error,
      }),
    );
  }

  /** The signed-in person who may bind a passkey; otherwise back to the account page. */
  async function allowed(request: FastifyRequest) {
    const current = await deps.signedIn(request);
    if (!current) return undefined;
    return (await bindTypesOf(deps.mfa, current.account)).includes('fido2') ? current : undefined;
  }

  app.get(PASSKEY_PATH, async (request, reply) => {
    const current = await allowed(request);
    if (!current) return reply.redirect(ACCOUNT_PATH, 303);
    return showPage(request, reply, current);
  });

  app.post<{ Body: Record<string, string | undefined> }>(PASSKEY_PATH, async (request, reply) => {
    const current = await allowed(request);
    if (!current) return reply.redirect(ACCOUNT_PATH, 303);
    const csrf = request.body?.csrf;
    if (typeof csrf !== 'string' || !safeEqual(csrf, csrfOf(deps.sealer, current.sessionId))) {
      return send(
        reply,
        403,
        renderErrorPage(pageContext(request), { message: portalPhrases[request.lang].signIn.sessionExpired }),
      );
    }
    const credential = parseCredential(request.body?.credential);
    const bound =
      credential &&
      (await deps.fido2.finishRegistration(
        current.account,
        subjectOf(current.sessionId),
        credential,
        request.ip,
      ));
    if (!bound) return showPage(request, reply, current, portalPhrases[request.lang].passkey.rejected);
    if (bound.recoveryCodes?.length) {
      return send(
        reply,
        200,
        renderRecoveryCodesPage(pageContext(request), {
          codes: bound.recoveryCodes,
          continueAction: ACCOUNT_PATH,
        }),
      );
    }
    return reply.redirect(ACCOUNT_PATH, 303);
  });
}
