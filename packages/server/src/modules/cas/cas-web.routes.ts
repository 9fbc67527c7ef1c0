import fastifyFormbody from '@fastify/formbody';
import { interpolate } from '@tessera/contract';
import {
  type PageContext,
  portalPhrases,
  renderAppProblemPage,
  renderAutoPostPage,
  renderErrorPage,
} from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { pageCsp } from '../../http/security-headers.ts';
import { PORTAL_ASSETS_PATH } from '../oidc/provider.ts';
import { CAS_MOUNT } from './cas-config.service.ts';
import {
  CAS_CALLBACK_PATH,
  CAS_LOGOUT_RETURN_PATH,
  type CasLogin,
  casFlowCookieName,
  type LoginEnd,
  type LoginQuery,
} from './cas-login.service.ts';
import type { CasValidation, Endpoint } from './cas-validate.service.ts';
import {
  authenticationFailure,
  authenticationSuccess,
  type CasAnswer,
  CasFailure,
  type CasFormat,
  proxyFailure,
  proxySuccess,
  validateText,
} from './cas-wire.ts';

const pageHeaders = {
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
};

export interface CasWebDeps {
  login: CasLogin;
  validation: CasValidation;
  secureCookies: boolean;
}

type CompanyParams = { Params: { companyId: string } };
type Query = Record<string, string | undefined>;

/** Every parameter once, as a string (a repeated parameter counts as its first value). */
const paramsOf = (request: FastifyRequest): Query => {
  const source = {
    ...(request.query as Record<string, unknown>),
    ...(request.method === 'POST' ? ((request.body ?? {}) as Record<string, unknown>) : {}),
  };
  const out: Query = {};
  for (const [key, value] of Object.entries(source)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') out[key] = first.slice(0, 4096);
  }
  return out;
};

const formatOf = (params: Query): CasFormat => (params.format?.toUpperCase() === 'JSON' ? 'JSON' : 'XML');

/**
 * The CAS server of each company (`/cas/<company id>/…`, Apereo CAS Protocol 3.0): `/login`,
 * `/logout`, `/validate` (1.0), `/serviceValidate` and `/proxyValidate` (2.0),
 * `/p3/serviceValidate` and `/p3/proxyValidate` (3.0, with attributes) and `/proxy`; and the
 * return from the provider's sign-in and sign-out.
 */
export async function casWebRoutes(app: FastifyInstance, deps: CasWebDeps) {
  await app.register(async (scope) => {
    await scope.register(fastifyFormbody, { bodyLimit: 64 * 1024 });
    routes(scope, deps);
  });
}

function routes(app: FastifyInstance, deps: CasWebDeps) {
  const context = (request: FastifyRequest): PageContext => ({
    lang: request.lang,
    currentUrl: request.url,
    assetsBase: PORTAL_ASSETS_PATH,
  });
  const page = (reply: FastifyReply, status: number, body: string) =>
    reply.status(status).headers(pageHeaders).type('text/html; charset=utf-8').send(body);
  const problem = (
    request: FastifyRequest,
    reply: FastifyReply,
    kind: 'unknown_service_provider' | 'no_session',
  ) =>
    page(
      reply,
      400,
      renderErrorPage(context(request), { message: portalPhrases[request.lang].saml.problem[kind] }),
    );
  const answer = (reply: FastifyReply, result: CasAnswer) =>
    reply.status(200).header('cache-control', 'no-store').type(result.type).send(result.body);

  const ended = (request: FastifyRequest, reply: FastifyReply, end: LoginEnd) => {
    if (end.kind === 'redirect') return reply.redirect(end.url, 303);
    if (end.kind === 'failed') return problem(request, reply, 'no_session');
    const t = portalPhrases[request.lang];
    if (end.kind === 'refused')
      return page(
        reply,
        403,
        renderAppProblemPage(context(request), {
          title: t.apps.refusedTitle,
          message: t.apps.refused[end.cause],
          appName: end.app.name,
          backHref: '/portal/apps',
        }),
      );
    // method=POST: the ticket in a form posted to the service (no form-action, as for SAML).
    return reply
      .status(200)
      .headers({ ...pageHeaders, 'content-security-policy': pageCsp() })
      .type('text/html; charset=utf-8')
      .send(
        renderAutoPostPage(context(request), {
          title: interpolate(t.apps.launchTitle, { app: end.app.name }),
          intro: interpolate(t.apps.launchIntro, { app: end.app.name }),
          action: end.action,
          fields: Object.entries(end.fields).map(([name, value]) => ({ name, value })),
        }),
      );
  };

  const login = async (request: FastifyRequest<CompanyParams>, reply: FastifyReply) => {
    const started = await deps.login.start(request.params.companyId, paramsOf(request) as LoginQuery);
    if (started.kind === 'no_service') return reply.redirect('/portal/', 303);
    if (started.kind === 'unknown_service') return problem(request, reply, 'unknown_service_provider');
    return reply
      .setCookie(started.cookie.name, started.cookie.value, {
        path: CAS_CALLBACK_PATH,
        httpOnly: true,
        sameSite: 'lax',
        secure: deps.secureCookies,
        maxAge: 600,
      })
      .redirect(started.url, 303);
  };
  app.get<CompanyParams>(`${CAS_MOUNT}/:companyId/login`, login);
  app.post<CompanyParams>(`${CAS_MOUNT}/:companyId/login`, login);

  app.get<{ Querystring: { code?: string; state?: string; error?: string } }>(
    CAS_CALLBACK_PATH,
    async (request, reply) => {
      const state = String(request.query.state ?? '');
      if (state) reply.clearCookie(casFlowCookieName(state), { path: CAS_CALLBACK_PATH });
      const query = paramsOf(request);
      return ended(request, reply, await deps.login.finish(query, (name) => request.cookies[name]));
    },
  );

  app.get<CompanyParams>(`${CAS_MOUNT}/:companyId/logout`, async (request, reply) =>
    reply.redirect(await deps.login.logoutUrl(request.params.companyId, paramsOf(request).service), 303),
  );
  app.get(CAS_LOGOUT_RETURN_PATH, async (request, reply) => {
    const service = await deps.login.afterLogout(paramsOf(request).state);
    return reply.redirect(service ?? '/portal/', 303);
  });

  const validation =
    (endpoint: Endpoint) => async (request: FastifyRequest<CompanyParams>, reply: FastifyReply) => {
      const params = paramsOf(request);
      const format = formatOf(params);
      try {
        const auth = await deps.validation.validate(request.params.companyId, endpoint, params);
        return answer(
          reply,
          endpoint === 'validate' ? validateText(auth.user) : authenticationSuccess(auth, format),
        );
      } catch (error) {
        if (!(error instanceof CasFailure)) throw error;
        request.log.info({ code: error.code, endpoint }, 'CAS ticket validation refused');
        return answer(
          reply,
          endpoint === 'validate' ? validateText(null) : authenticationFailure(error, format),
        );
      }
    };
  for (const endpoint of [
    'validate',
    'serviceValidate',
    'proxyValidate',
    'p3/serviceValidate',
    'p3/proxyValidate',
  ] as const)
    app.get<CompanyParams>(`${CAS_MOUNT}/:companyId/${endpoint}`, validation(endpoint));

  app.get<CompanyParams>(`${CAS_MOUNT}/:companyId/proxy`, async (request, reply) => {
    const params = paramsOf(request);
    const format = formatOf(params);
    try {
      return answer(
        reply,
        proxySuccess(await deps.validation.proxy(request.params.companyId, params), format),
      );
    } catch (error) {
      if (!(error instanceof CasFailure)) throw error;
      return answer(reply, proxyFailure(error, format));
    }
  });
}
