import { type SignatureMfaType, signatureMfaTypes } from '@tessera/contract';
import {
  type AccountMfaSection,
  type PageContext,
  portalPhrases,
  renderBindFactorPage,
  renderErrorPage,
  renderRecoveryCodesPage,
} from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../db/schema.ts';
import { type Sealer, safeEqual } from '../../lib/crypto.ts';
import { userCentreContext } from '../portal/portal-brand.ts';
import { type MfaService, OTP_TYPES, type OtpBinding, type OtpType } from './mfa.service.ts';
import { isOtpType } from './mfa-requirement.ts';

const ACCOUNT_PATH = '/portal/account';
const BIND_PATH = '/portal/account/mfa/bind';
const CONFIRM_PATH = '/portal/account/mfa/confirm';
const UNBIND_PATH = '/portal/account/mfa/unbind';

export interface MfaPortalDeps {
  mfa: MfaService;
  sealer: Sealer;
}

export const csrfOf = (sealer: Sealer, sessionId: string) => sealer.hmac('portal-mfa', sessionId);
/** The user centre's passkey registration (fido2.portal.routes.ts). */
export const PASSKEY_PATH = '/portal/account/mfa/passkey';
/** The user centre's UKEY and soft-lock binding (signature.portal.routes.ts). */
export const KEY_PATH = '/portal/account/mfa/key';

/** Sends a page of the user centre's MFA screens (http/security-headers.ts: no caching, no framing). */
export const sendMfaPage = (reply: FastifyReply, status: number, body: string) =>
  reply.status(status).type('text/html; charset=utf-8').send(body);

/**
 * The person who submitted a user-centre MFA form: the one `signedIn` gives, when the form's CSRF
 * token is that of their session. Otherwise answers (back to the account page when there is no
 * such person, the 403 "session expired" page when the token is wrong) and returns undefined.
 */
export async function mfaFormSender(
  request: FastifyRequest<{ Body: Record<string, string | undefined> }>,
  reply: FastifyReply,
  options: {
    sealer: Sealer;
    signedIn(request: FastifyRequest): Promise<{ sessionId: string; account: Account } | undefined>;
    pageContext: PageContext;
  },
) {
  const current = await options.signedIn(request);
  if (!current) {
    reply.redirect(ACCOUNT_PATH, 303);
    return undefined;
  }
  const csrf = request.body?.csrf;
  if (typeof csrf !== 'string' || !safeEqual(csrf, csrfOf(options.sealer, current.sessionId))) {
    sendMfaPage(
      reply,
      403,
      renderErrorPage(options.pageContext, { message: portalPhrases[request.lang].signIn.sessionExpired }),
    );
    return undefined;
  }
  return current;
}

/** After a factor is bound: its recovery codes, shown once when it made some; else back to the account page. */
export function afterBinding(
  reply: FastifyReply,
  context: PageContext,
  recoveryCodes: string[] | null | undefined,
) {
  if (recoveryCodes?.length) {
    return sendMfaPage(
      reply,
      200,
      renderRecoveryCodesPage(context, { codes: recoveryCodes, continueAction: ACCOUNT_PATH }),
    );
  }
  return reply.redirect(ACCOUNT_PATH, 303);
}

/** Kinds the person may bind: those their companies allow (any kind when MFA is off). */
export async function bindTypesOf(
  mfa: MfaService,
  account: Account,
): Promise<(OtpType | 'fido2' | SignatureMfaType)[]> {
  const requirement = await mfa.requirementFor(account);
  const off = requirement.mode === 'off';
  // OTP standing in for passkeys or keys (mfa-requirement.ts) is not offered: those are bound
  // instead, and an authenticator app would be a kind the company did not choose.
  const alternatives = requirement.fido2 || requirement.signature.length > 0;
  const codes = requirement.otpStandsIn ? [] : requirement.types;
  const otp = off || (!codes.length && !alternatives) ? [...OTP_TYPES] : codes;
  return [
    ...otp,
    ...(off || requirement.fido2 ? (['fido2'] as const) : []),
    ...(off ? signatureMfaTypes : requirement.signature),
  ];
}

/** The MFA section of the user centre's account page. */
export function accountMfaSection(deps: MfaPortalDeps) {
  return async (account: Account, sessionId: string): Promise<AccountMfaSection> => {
    const own = await deps.mfa.listOwn(account.id);
    return {
      factors: own.list.map((f) => ({
        factorId: f.factorId,
        type: f.type,
        name: f.name,
        status: f.status,
        boundAt: f.boundAt ? new Date(f.boundAt) : null,
        lastUsedAt: f.lastUsedAt ? new Date(f.lastUsedAt) : null,
      })),
      recoveryCodesLeft: own.recoveryCodesLeft,
      bindTypes: await bindTypesOf(deps.mfa, account),
      bindAction: BIND_PATH,
      unbindAction: UNBIND_PATH,
      csrfToken: csrfOf(deps.sealer, sessionId),
    };
  };
}

/**
 * The user centre's own factors: bind (OTP or national-secret OTP, QR code, confirming code,
 * recovery codes once) and unbind. Forms carry an HMAC of the portal session as CSRF token.
 */
export function mfaPortalRoutes(
  app: FastifyInstance,
  deps: MfaPortalDeps & {
    /** The signed-in person of the user centre, or undefined. */
    signedIn(request: FastifyRequest): Promise<{ sessionId: string; account: Account } | undefined>;
  },
) {
  const csrfFor = (sessionId: string) => csrfOf(deps.sealer, sessionId);
  const pageContext = (request: FastifyRequest) => userCentreContext(request, ACCOUNT_PATH);
  const send = sendMfaPage;

  /** The signed-in person of a form whose CSRF token checks out; otherwise answers and returns undefined. */
  const submitted = (
    request: FastifyRequest<{ Body: Record<string, string | undefined> }>,
    reply: FastifyReply,
  ) =>
    mfaFormSender(request, reply, {
      sealer: deps.sealer,
      signedIn: deps.signedIn,
      pageContext: pageContext(request),
    });

  const showBinding = (
    request: FastifyRequest,
    reply: FastifyReply,
    current: { sessionId: string; account: Account },
    binding: OtpBinding,
    error?: string,
  ) =>
    send(
      reply,
      error ? 400 : 200,
      renderBindFactorPage(pageContext(request), {
        action: CONFIRM_PATH,
        abortAction: ACCOUNT_PATH,
        csrfToken: csrfFor(current.sessionId),
        username: current.account.username,
        type: binding.type,
        factorId: binding.factorId,
        qrCode: binding.qrCode,
        secret: binding.secret,
        backHref: ACCOUNT_PATH,
        error,
      }),
    );

  app.post<{ Body: Record<string, string | undefined> }>(BIND_PATH, async (request, reply) => {
    const current = await submitted(request, reply);
    if (!current) return reply;
    const allowed = await bindTypesOf(deps.mfa, current.account);
    const type = allowed.find((t) => t === request.body?.type);
    if (!type) return reply.redirect(ACCOUNT_PATH, 303);
    if (type === 'fido2') return reply.redirect(PASSKEY_PATH, 303);
    if (!isOtpType(type)) return reply.redirect(`${KEY_PATH}?type=${type}`, 303);
    return showBinding(request, reply, current, await deps.mfa.startBinding(current.account, type));
  });

  app.post<{ Body: Record<string, string | undefined> }>(CONFIRM_PATH, async (request, reply) => {
    const current = await submitted(request, reply);
    if (!current) return reply;
    const confirmed = await deps.mfa.confirmBinding(
      current.account,
      String(request.body?.factorId ?? '').slice(0, 64),
      String(request.body?.code ?? '').slice(0, 16),
      request.ip,
    );
    if (!confirmed) {
      const pending = await deps.mfa.pendingBinding(current.account);
      if (!pending) return reply.redirect(ACCOUNT_PATH, 303);
      return showBinding(request, reply, current, pending, portalPhrases[request.lang].mfa.wrongCode);
    }
    return afterBinding(reply, pageContext(request), confirmed.recoveryCodes);
  });

  app.post<{ Body: Record<string, string | undefined> }>(UNBIND_PATH, async (request, reply) => {
    const current = await submitted(request, reply);
    if (!current) return reply;
    const factorId = String(request.body?.factorId ?? '').slice(0, 64);
    const own = await deps.mfa.listOwn(current.account.id);
    if (own.list.some((f) => f.factorId === factorId)) {
      // The person's own unbinding keeps their sessions (an administrator's ends them).
      await deps.mfa.unbind(
        { accountId: current.account.id, ip: request.ip },
        current.account.home_company_id,
        current.account.id,
        factorId,
        {
          endSessions: false,
        },
      );
    }
    return reply.redirect(ACCOUNT_PATH, 303);
  });
}
