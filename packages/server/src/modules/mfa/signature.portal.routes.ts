import { interpolate, type SignatureMfaType, serverPhrases, signatureMfaTypes } from '@tessera/contract';
import { portalPhrases, renderSignatureBindPage } from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../db/schema.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { userCentreContext } from '../portal/portal-brand.ts';
import {
  afterBinding,
  bindTypesOf,
  csrfOf,
  KEY_PATH,
  mfaFormSender,
  sendMfaPage,
} from './mfa.portal.routes.ts';
import type { MfaService } from './mfa.service.ts';
import type { SignatureFactors, SignatureKeyInput } from './signature-factors.service.ts';

const ACCOUNT_PATH = '/portal/account';

const signatureTypeOf = (value: unknown): SignatureMfaType | undefined =>
  signatureMfaTypes.find((type) => type === value);

/**
 * What the person typed of a key, kept on the page when it is shown again (the signature is not);
 * the sign-in's key binding keeps the same (oidc/sign-in-binding.ts).
 */
export const typedValues = (body: Record<string, string | undefined>) => ({
  name: body.name?.slice(0, 50),
  keyId: body.keyId?.slice(0, 64),
  publicKey: body.publicKey?.slice(0, 16 * 1024),
  certificate: body.certificate?.slice(0, 16 * 1024),
});

/**
 * The user centre's "bind a key" (UKEY KeyId, public key or certificate, soft lock): GET shows
 * the form with a binding challenge tied to the portal session; POST takes the key and its
 * signature of that challenge (proof of possession) with the CSRF token of the MFA forms.
 */
export function signaturePortalRoutes(
  app: FastifyInstance,
  deps: {
    mfa: MfaService;
    signatures: SignatureFactors;
    sealer: Sealer;
    signedIn(request: FastifyRequest): Promise<{ sessionId: string; account: Account } | undefined>;
  },
) {
  const pageContext = (request: FastifyRequest) => userCentreContext(request, KEY_PATH);
  const subjectOf = (sessionId: string) => `portal:${sessionId}`;

  async function showPage(
    request: FastifyRequest,
    reply: FastifyReply,
    current: { sessionId: string; account: Account },
    type: SignatureMfaType,
    typed: Partial<ReturnType<typeof typedValues>> = {},
    error?: string,
  ) {
    const { challenge } = await deps.signatures.newChallenge(
      current.account.id,
      'bind',
      subjectOf(current.sessionId),
    );
    return sendMfaPage(
      reply,
      error ? 400 : 200,
      renderSignatureBindPage(pageContext(request), {
        action: KEY_PATH,
        csrfToken: csrfOf(deps.sealer, current.sessionId),
        type,
        challenge,
        values: typed,
        error,
        backHref: ACCOUNT_PATH,
      }),
    );
  }

  /** The signed-in person, when their companies allow binding `type`. */
  async function allowedFor(request: FastifyRequest, type: SignatureMfaType | undefined) {
    const current = await deps.signedIn(request);
    if (!current || !type) return undefined;
    return (await bindTypesOf(deps.mfa, current.account)).includes(type) ? current : undefined;
  }

  app.get<{ Querystring: { type?: string } }>(KEY_PATH, async (request, reply) => {
    const type = signatureTypeOf(request.query.type);
    const current = await allowedFor(request, type);
    if (!current || !type) return reply.redirect(ACCOUNT_PATH, 303);
    return showPage(request, reply, current, type);
  });

  app.post<{ Body: Record<string, string | undefined> }>(KEY_PATH, async (request, reply) => {
    const body = request.body ?? {};
    const type = signatureTypeOf(body.type);
    const current = await mfaFormSender(request, reply, {
      sealer: deps.sealer,
      signedIn: (r) => allowedFor(r, type),
      pageContext: pageContext(request),
    });
    if (!current || !type) return reply;
    const typed = typedValues(body);
    const input: SignatureKeyInput & { challenge?: string; signature?: string } = {
      type,
      ...typed,
      challenge: body.challenge?.slice(0, 128),
      signature: body.signature,
    };
    try {
      const bound = await deps.signatures.bindOwn(
        current.account,
        input,
        subjectOf(current.sessionId),
        request.ip,
      );
      if (!bound)
        return showPage(request, reply, current, type, typed, portalPhrases[request.lang].signature.rejected);
      return afterBinding(reply, pageContext(request), bound.recoveryCodes);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const message = interpolate(serverPhrases[request.lang].errors[error.reason], error.params);
      return showPage(request, reply, current, type, typed, message);
    }
  });
}
