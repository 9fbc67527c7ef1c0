import { portalPhrases, renderPasskeyRegisterPage } from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../db/schema.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { userCentreContext } from '../portal/portal-brand.ts';
import { type Fido2Service, parseCredential } from './fido2.service.ts';
import {
  afterBinding,
  bindTypesOf,
  csrfOf,
  mfaFormSender,
  PASSKEY_PATH,
  sendMfaPage,
} from './mfa.portal.routes.ts';
import type { MfaService } from './mfa.service.ts';

const ACCOUNT_PATH = '/portal/account';

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
  const pageContext = (request: FastifyRequest) => userCentreContext(request, PASSKEY_PATH);
  const send = sendMfaPage;
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
    const current = await mfaFormSender(request, reply, {
      sealer: deps.sealer,
      signedIn: allowed,
      pageContext: pageContext(request),
    });
    if (!current) return reply;
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
    return afterBinding(reply, pageContext(request), bound.recoveryCodes);
  });
}
