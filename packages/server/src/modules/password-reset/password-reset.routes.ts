import { interpolate, type Language } from '@tessera/contract';
import {
  portalPhrases,
  renderErrorPage,
  renderForgotPasswordPage,
  renderResetCodePage,
  renderResetPasswordPage,
} from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Sealer } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { translateError } from '../../lib/i18n.ts';
import { describeClasses, type PasswordPolicy } from '../account/password-policy.ts';
import type { InteractionHelpers } from '../oidc/interaction.routes.ts';
import type { Interaction } from '../oidc/interaction-kit.ts';
import { COMPANY_CODE_PARAM, INTERACTION_PATH } from '../oidc/provider.ts';
import type { PasswordReset, ResetContext } from './password-reset.service.ts';

type Body = Record<string, string | undefined>;
type Req = FastifyRequest<{ Params: { uid: string }; Body: Body }>;

/** A reset's request and grant live as long as its code: ten minutes. */
const STATE_MINUTES = 10;
const REQUEST_PURPOSE = 'password-reset-request';
const GRANT_PURPOSE = 'password-reset-grant';

/**
 * The pages of a forgotten password, under the sign-in interaction they start from (its brand,
 * language and CSRF token; the interaction cookie ties them to this browser): the identifier, the
 * code, the new password. What the browser carries between them is sealed and bound to the
 * interaction: the code's request (which code, asked for under which identifier) and, once the
 * code was right, the grant to set one password (the person and their credential version, which
 * the new password raises: the grant works once).
 */
export function passwordResetRoutes(
  app: FastifyInstance,
  deps: {
    reset: PasswordReset;
    sealer: Sealer;
    /** The company of a sign-in (its client's, or its user centre address's); null on the shared pages. */
    signInCompany(clientId: string, companyCode?: string): Promise<string | null>;
  },
  helpers: Pick<
    InteractionHelpers,
    'csrfFor' | 'details' | 'submitted' | 'showSignIn' | 'pageContext' | 'sendPage'
  >,
) {
  const path = (uid: string, step = '') => `${INTERACTION_PATH}/${uid}/forgot${step}`;
  const phrases = (request: FastifyRequest) => portalPhrases[request.lang].forgotPassword;

  const seal = (purpose: string, uid: string, value: Record<string, unknown>) =>
    deps.sealer.seal(JSON.stringify({ ...value, uid, exp: Date.now() + STATE_MINUTES * 60_000 }), purpose);
  function unseal<T>(purpose: string, uid: string, sealed: string | undefined): T | undefined {
    try {
      const value = JSON.parse(deps.sealer.open(String(sealed ?? ''), purpose));
      return value.uid === uid && value.exp > Date.now() ? (value as T) : undefined;
    } catch {
      return undefined;
    }
  }

  /** The company of the interaction's sign-in, if it allows a reset; else answers and returns undefined. */
  async function resetContext(request: FastifyRequest, reply: FastifyReply, interaction: Interaction) {
    const clientId = String(interaction.params.client_id);
    const code = interaction.params[COMPANY_CODE_PARAM];
    const companyId = await deps.signInCompany(clientId, typeof code === 'string' ? code : undefined);
    if (!(await deps.reset.offered(companyId))) {
      helpers.sendPage(
        reply,
        404,
        renderErrorPage(helpers.pageContext(request), { message: phrases(request).notOffered }),
      );
      return undefined;
    }
    const context: ResetContext = {
      companyId,
      clientId,
      ip: request.ip,
      userAgent: request.headers['user-agent'] ?? null,
      lang: request.lang,
      // A code goes out once the page has left, so that no answer waits for (or shares its time with) a send.
      afterAnswer: (work) => reply.raw.once('close', work),
    };
    return context;
  }

  const step = (uid: string) => ({ csrfToken: helpers.csrfFor(uid), backHref: `${INTERACTION_PATH}/${uid}` });

  const showIdentifier = (
    request: FastifyRequest,
    reply: FastifyReply,
    uid: string,
    extra: { identifier?: string; error?: string; status?: number } = {},
  ) =>
    helpers.sendPage(
      reply,
      extra.status ?? 200,
      renderForgotPasswordPage(helpers.pageContext(request), {
        ...step(uid),
        action: path(uid),
        identifier: extra.identifier,
        error: extra.error,
      }),
    );

  const showCode = (
    request: FastifyRequest,
    reply: FastifyReply,
    uid: string,
    input: { identifier: string; sealedRequest: string; error?: string; status?: number },
  ) =>
    helpers.sendPage(
      reply,
      input.status ?? 200,
      renderResetCodePage(helpers.pageContext(request), {
        ...step(uid),
        action: path(uid, '/code'),
        resendAction: path(uid),
        identifier: input.identifier,
        request: input.sealedRequest,
        error: input.error,
      }),
    );

  const showPassword = (
    request: FastifyRequest,
    reply: FastifyReply,
    uid: string,
    input: { username: string; grant: string; policy: PasswordPolicy; error?: string },
  ) =>
    helpers.sendPage(
      reply,
      input.error ? 400 : 200,
      renderResetPasswordPage(helpers.pageContext(request), {
        ...step(uid),
        action: path(uid, '/password'),
        username: input.username,
        grant: input.grant,
        rules: rulesText(request.lang, input.policy),
        error: input.error,
      }),
    );

  /** The start again: the identifier page saying the reset expired. */
  const expired = (request: FastifyRequest, reply: FastifyReply, uid: string) =>
    showIdentifier(request, reply, uid, { error: phrases(request).expired, status: 400 });

  app.get<{ Params: { uid: string } }>(path(':uid'), async (request, reply) => {
    const interaction = await helpers.details(request, reply);
    if (!interaction || !(await resetContext(request, reply, interaction))) return reply;
    return showIdentifier(request, reply, interaction.uid);
  });

  app.post<{ Params: { uid: string }; Body: Body }>(path(':uid'), async (request: Req, reply) => {
    const interaction = await helpers.submitted(request, reply);
    const context = interaction && (await resetContext(request, reply, interaction));
    if (!interaction || !context) return reply;
    const { uid } = interaction;
    const identifier = String(request.body?.identifier ?? '')
      .trim()
      .slice(0, 254);
    if (!identifier)
      return showIdentifier(request, reply, uid, { error: phrases(request).identifierMissing, status: 400 });
    try {
      const { codeId } = await deps.reset.request(identifier, context);
      const sealedRequest = seal(REQUEST_PURPOSE, uid, { codeId, identifier });
      return showCode(request, reply, uid, { identifier, sealedRequest });
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 429) throw error;
      const message = translateError(request.lang, error.reason, error.params);
      return showIdentifier(request, reply, uid, { identifier, error: message, status: 429 });
    }
  });

  app.post<{ Params: { uid: string }; Body: Body }>(path(':uid', '/code'), async (request: Req, reply) => {
    const interaction = await helpers.submitted(request, reply);
    const context = interaction && (await resetContext(request, reply, interaction));
    if (!interaction || !context) return reply;
    const { uid } = interaction;
    const sealedRequest = String(request.body?.request ?? '');
    const asked = unseal<{ codeId: string; identifier: string }>(REQUEST_PURPOSE, uid, sealedRequest);
    if (!asked) return expired(request, reply, uid);
    const code = String(request.body?.code ?? '')
      .replace(/\s/g, '')
      .slice(0, 16);
    const again = (error: string, status = 400) =>
      showCode(request, reply, uid, { identifier: asked.identifier, sealedRequest, error, status });
    const t = phrases(request);
    if (!code) return again(t.codeMissing);
    const checked = await deps.reset.checkCode({ ...asked, code }, context);
    if (checked.ok) {
      const { account } = checked;
      const grant = seal(GRANT_PURPOSE, uid, {
        accountId: account.id,
        credentialVersion: account.credential_version,
      });
      return showPassword(request, reply, uid, { grant, ...(await deps.reset.passwordRulesOf(account.id)) });
    }
    switch (checked.reason) {
      case 'wrong':
        return again(translateError(request.lang, 'code.wrong', { remaining: checked.remaining ?? 0 }));
      case 'locked':
        return again(interpolate(t.locked, { until: when(request.lang, checked.lockedUntil) }), 423);
      case 'throttled':
        return again(t.throttled, 429);
      default:
        return expired(request, reply, uid);
    }
  });

  app.post<{ Params: { uid: string }; Body: Body }>(
    path(':uid', '/password'),
    async (request: Req, reply) => {
      const interaction = await helpers.submitted(request, reply);
      const context = interaction && (await resetContext(request, reply, interaction));
      if (!interaction || !context) return reply;
      const { uid } = interaction;
      const sealedGrant = String(request.body?.grant ?? '');
      const grant = unseal<{ accountId: string; credentialVersion: number }>(GRANT_PURPOSE, uid, sealedGrant);
      if (!grant) return expired(request, reply, uid);
      const newPassword = String(request.body?.newPassword ?? '').slice(0, 1024);
      const confirmation = String(request.body?.confirmPassword ?? '').slice(0, 1024);
      const refuse = async (error: string) =>
        showPassword(request, reply, uid, {
          grant: sealedGrant,
          ...(await deps.reset.passwordRulesOf(grant.accountId)),
          error,
        });
      if (!newPassword) return refuse(translateError(request.lang, 'user.password_required'));
      if (newPassword !== confirmation) return refuse(translateError(request.lang, 'user.password_mismatch'));
      try {
        const account = await deps.reset.setPassword({ ...grant, newPassword }, context);
        const clientId = String(interaction.params.client_id);
        return helpers.showSignIn(request, reply, uid, clientId, {
          notice: phrases(request).done,
          identifier: account.username,
        });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        if (error.reason.startsWith('password.'))
          return refuse(error.localisedMessage ?? translateError(request.lang, error.reason, error.params));
        return expired(request, reply, uid);
      }
    },
  );
}

const when = (lang: Language, date: Date) => date.toLocaleString(lang === 'zh' ? 'zh-CN' : 'en-GB');

/** The company's password rules as the page lists them, before the new password is typed. */
export function rulesText(lang: Language, policy: PasswordPolicy): string[] {
  const t = portalPhrases[lang].forgotPassword;
  return [
    interpolate(t.ruleLength, { min: policy.minLength }),
    policy.classes.length
      ? interpolate(t.ruleClasses, { classes: describeClasses(policy.classes, lang) })
      : '',
    policy.forbidUsername ? t.ruleUsername : '',
    policy.forbidCommon ? t.ruleCommon : '',
  ].filter(Boolean);
}
