import { interpolate } from '@tessera/contract';
import { type PageContext, portalPhrases, renderErrorPage, renderSignInPage } from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { Sealer } from '../../lib/crypto.ts';
import { safeEqual } from '../../lib/crypto.ts';
import type { LoginFailureCause } from '../signin/login-events.repo.ts';
import type { SignInService } from '../signin/signin.service.ts';
import { INTERACTION_PATH, PORTAL_ASSETS_PATH } from './provider.ts';

export interface InteractionDeps {
  provider(): Provider;
  signIn: SignInService;
  sealer: Sealer;
  /** Who may use a client at all (the admin console is for platform administrators only). */
  clientAccessDenied(clientId: string, account: { is_platform_admin: boolean }): boolean;
}

const pageContext = (request: FastifyRequest): PageContext => ({
  lang: request.lang,
  currentUrl: request.url,
  assetsBase: PORTAL_ASSETS_PATH,
});

const securityHeaders = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
};

/**
 * The OIDC interaction: the sign-in form (plain HTML, works without JavaScript) and its
 * submission. CSRF: the form carries an HMAC of the interaction id, and the provider only
 * accepts the submission together with its own interaction cookie (SameSite=Lax).
 */
export function interactionRoutes(app: FastifyInstance, deps: InteractionDeps) {
  const csrfFor = (uid: string) => deps.sealer.hmac('interaction-csrf', uid);

  const sendPage = (reply: FastifyReply, status: number, body: string) =>
    reply.status(status).headers(securityHeaders).send(body);

  async function details(request: FastifyRequest, reply: FastifyReply) {
    try {
      return await deps.provider().interactionDetails(request.raw, reply.raw);
    } catch {
      const t = portalPhrases[request.lang].signIn;
      sendPage(reply, 400, renderErrorPage(pageContext(request), { message: t.sessionExpired }));
      return undefined;
    }
  }

  async function clientName(clientId: string, request: FastifyRequest) {
    const own = portalPhrases[request.lang].clients[clientId];
    if (own) return own;
    const client = await deps.provider().Client.find(clientId);
    return client?.clientName ?? clientId;
  }

  async function showSignIn(
    request: FastifyRequest,
    reply: FastifyReply,
    uid: string,
    clientId: string,
    extra: { error?: string; identifier?: string; status?: number } = {},
  ) {
    return sendPage(
      reply,
      extra.status ?? 200,
      renderSignInPage(pageContext(request), {
        action: `${INTERACTION_PATH}/${uid}/login`,
        abortAction: `${INTERACTION_PATH}/${uid}/abort`,
        csrfToken: csrfFor(uid),
        clientName: await clientName(clientId, request),
        identifier: extra.identifier,
        error: extra.error,
      }),
    );
  }

  /** Hands the reply to the provider, which redirects back into the authorization. */
  async function finish(
    request: FastifyRequest,
    reply: FastifyReply,
    result: Parameters<Provider['interactionFinished']>[2],
    mergeWithLastSubmission: boolean,
  ) {
    reply.hijack();
    await deps.provider().interactionFinished(request.raw, reply.raw, result, { mergeWithLastSubmission });
    return reply;
  }

  /** The interaction of a submitted form whose CSRF token checks out; otherwise answers and returns undefined. */
  async function submitted(
    request: FastifyRequest<{ Body: Record<string, string | undefined> }>,
    reply: FastifyReply,
  ) {
    const interaction = await details(request, reply);
    if (!interaction) return undefined;
    const csrf = request.body?.csrf;
    if (typeof csrf !== 'string' || !safeEqual(csrf, csrfFor(interaction.uid))) {
      const message = portalPhrases[request.lang].signIn.sessionExpired;
      sendPage(reply, 403, renderErrorPage(pageContext(request), { message }));
      return undefined;
    }
    return interaction;
  }

  app.get<{ Params: { uid: string } }>(`${INTERACTION_PATH}/:uid`, async (request, reply) => {
    const interaction = await details(request, reply);
    if (!interaction) return reply;
    if (interaction.prompt.name === 'login') {
      return showSignIn(request, reply, interaction.uid, String(interaction.params.client_id));
    }
    // Consent is granted by loadExistingGrant; any other prompt ends the interaction as it is.
    return finish(request, reply, {}, true);
  });

  app.post<{ Params: { uid: string }; Body: Record<string, string | undefined> }>(
    `${INTERACTION_PATH}/:uid/login`,
    async (request, reply) => {
      const interaction = await submitted(request, reply);
      if (!interaction) return reply;
      const clientId = String(interaction.params.client_id);
      const form = request.body ?? {};
      const identifier = String(form.identifier ?? '').slice(0, 254);
      const t = portalPhrases[request.lang].signIn;
      const result = await deps.signIn.signInWithPassword({
        identifier,
        password: String(form.password ?? '').slice(0, 1024),
        ip: request.ip,
        userAgent: request.headers['user-agent'] ?? null,
        clientId,
        companyId: null,
        authorize: (account) => (deps.clientAccessDenied(clientId, account) ? 'not_platform_admin' : null),
      });
      if (!result.ok) {
        const messages: Record<LoginFailureCause, string> = {
          missing_credentials: t.missingFields,
          unknown_account: t.invalidCredentials,
          wrong_password: t.invalidCredentials,
          throttled: t.throttled,
          account_disabled: t.accountDisabled,
          account_locked: interpolate(t.accountLocked, {
            until: result.lockedUntil?.toLocaleString(request.lang === 'zh' ? 'zh-CN' : 'en-GB') ?? '',
          }),
          not_platform_admin: interpolate(t.notAllowed, { client: await clientName(clientId, request) }),
        };
        const status = result.cause === 'throttled' ? 429 : 401;
        return showSignIn(request, reply, interaction.uid, clientId, {
          error: messages[result.cause],
          identifier,
          status,
        });
      }
      return finish(request, reply, { login: { accountId: result.account.id, amr: ['pwd'] } }, false);
    },
  );

  app.post<{ Params: { uid: string }; Body: Record<string, string | undefined> }>(
    `${INTERACTION_PATH}/:uid/abort`,
    async (request, reply) => {
      const interaction = await submitted(request, reply);
      if (!interaction) return reply;
      return finish(
        request,
        reply,
        { error: 'access_denied', error_description: 'The sign-in was cancelled' },
        false,
      );
    },
  );
}
