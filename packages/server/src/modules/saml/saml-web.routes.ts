import fastifyFormbody from '@fastify/formbody';
import { interpolate } from '@tessera/contract';
import {
  type PageContext,
  portalPhrases,
  renderAppProblemPage,
  renderAutoPostPage,
  renderErrorPage,
  renderLoggedOutPage,
} from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.ts';
import type { App } from '../../db/schema.ts';
import { PORTAL_ASSETS_PATH } from '../oidc/provider.ts';
import type { Outgoing } from './saml-build.ts';
import type { SamlKeys } from './saml-keys.ts';
import { idpEndpoints, idpMetadataXml, SAML_MOUNT } from './saml-metadata.ts';
import {
  type LogoutStep,
  SAML_LOGOUT_NEXT_PATH,
  SAML_LOGOUT_RETURN_PATH,
  type SamlSlo,
} from './saml-slo.service.ts';
import { flowCookieName, SAML_CALLBACK_PATH, type SamlSso, type Started } from './saml-sso.service.ts';
import { MESSAGE_MAX_BYTES, SamlInputError } from './saml-xml.ts';

const pageHeaders = {
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
};

/** The page that posts a SAML message: script from the portal's assets only, posting to that origin only. */
const postHeaders = (origin: string) => ({
  ...pageHeaders,
  'content-security-policy': `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action ${origin}; base-uri 'none'; frame-ancestors 'none'`,
});

export interface SamlWebDeps {
  db: Db;
  keys: SamlKeys;
  sso: SamlSso;
  slo: SamlSlo;
  publicUrl: string;
  secureCookies: boolean;
}

type CompanyParams = { Params: { companyId: string } };

/**
 * The SAML endpoints of each company's identity provider (`/saml/<company id>/…`): metadata,
 * single sign-on and single logout over HTTP-Redirect (GET) and HTTP-POST, the start of an
 * IdP-initiated sign-in, and the return from the provider's sign-in and sign-out.
 */
export async function samlWebRoutes(app: FastifyInstance, deps: SamlWebDeps) {
  await app.register(async (scope) => {
    // HTTP-POST messages: base64 of at most 64 KiB, with a RelayState.
    await scope.register(fastifyFormbody, { bodyLimit: Math.ceil((MESSAGE_MAX_BYTES * 4) / 3) + 8192 });
    routes(scope, deps);
  });
}

function routes(app: FastifyInstance, deps: SamlWebDeps) {
  const context = (request: FastifyRequest): PageContext => ({
    lang: request.lang,
    currentUrl: request.url,
    assetsBase: PORTAL_ASSETS_PATH,
  });
  const page = (reply: FastifyReply, status: number, body: string) =>
    reply.status(status).headers(pageHeaders).type('text/html; charset=utf-8').send(body);

  /** A refused message: the reason on the page, the details in the log. */
  const refused = (request: FastifyRequest, reply: FastifyReply, error: unknown) => {
    if (!(error instanceof SamlInputError)) throw error;
    request.log.warn({ problem: error.problem, detail: error.message }, 'SAML message refused');
    const t = portalPhrases[request.lang].saml;
    return page(reply, 400, renderErrorPage(context(request), { message: t.problem[error.problem] }));
  };

  const send = (
    request: FastifyRequest,
    reply: FastifyReply,
    app: App,
    message: Outgoing,
    signOut = false,
  ) => {
    if (message.kind === 'redirect') return reply.redirect(message.url, 303);
    const t = portalPhrases[request.lang];
    const words = signOut
      ? { title: t.saml.signingOutTitle, intro: t.saml.signingOutIntro }
      : { title: t.apps.launchTitle, intro: t.apps.launchIntro };
    const title = interpolate(words.title, { app: app.name });
    const intro = interpolate(words.intro, { app: app.name });
    return reply
      .status(200)
      .headers(postHeaders(new URL(message.action).origin))
      .type('text/html; charset=utf-8')
      .send(
        renderAutoPostPage(context(request), {
          title,
          intro,
          action: message.action,
          fields: message.fields,
        }),
      );
  };

  const authorize = (reply: FastifyReply, started: Started) =>
    reply
      .setCookie(started.cookie.name, started.cookie.value, {
        path: SAML_CALLBACK_PATH,
        httpOnly: true,
        sameSite: 'lax',
        secure: deps.secureCookies,
        maxAge: 600,
      })
      .redirect(started.authorizeUrl, 303);

  const logoutStep = (request: FastifyRequest, reply: FastifyReply, step: LogoutStep) => {
    if (step.kind === 'redirect') return reply.redirect(step.url, 303);
    if (step.kind === 'send') return send(request, reply, step.app, step.message, true);
    return page(reply, 200, renderLoggedOutPage(context(request), { clientName: step.app?.name }));
  };

  app.get<CompanyParams & { Querystring: { download?: string } }>(
    `${SAML_MOUNT}/:companyId/metadata`,
    async (request, reply) => {
      const { companyId } = request.params;
      const company = await deps.db
        .selectFrom('companies')
        .select('id')
        .where('id', '=', companyId)
        .executeTakeFirst();
      if (!company) return reply.status(404).type('text/plain; charset=utf-8').send('Not found');
      const rows = await deps.keys.publishedCertificates(company.id);
      const xml = idpMetadataXml(
        idpEndpoints(deps.publicUrl, company.id),
        rows.map((row) => row.certificate),
      );
      if (request.query.download !== undefined)
        reply.header('content-disposition', 'attachment; filename="tessera-idp-metadata.xml"');
      return reply
        .header('cache-control', 'public, max-age=300')
        .type('application/samlmetadata+xml; charset=utf-8')
        .send(xml);
    },
  );

  const sso = async (request: FastifyRequest<CompanyParams>, reply: FastifyReply) => {
    try {
      const started = await deps.sso.startSpInitiated(request.params.companyId, request);
      if (started.kind === 'respond') return send(request, reply, started.app, started.message);
      return authorize(reply, started.started);
    } catch (error) {
      return refused(request, reply, error);
    }
  };
  app.get<CompanyParams>(`${SAML_MOUNT}/:companyId/sso`, sso);
  app.post<CompanyParams>(`${SAML_MOUNT}/:companyId/sso`, sso);

  /** IdP-initiated sign-in ("My apps" opens a SAML app here). */
  app.get<{ Params: { appId: string } }>(`${SAML_MOUNT}/apps/:appId/start`, async (request, reply) => {
    try {
      return authorize(reply, await deps.sso.startIdpInitiated(request.params.appId));
    } catch (error) {
      return refused(request, reply, error);
    }
  });

  app.get<{ Querystring: { code?: string; state?: string; error?: string } }>(
    SAML_CALLBACK_PATH,
    async (request, reply) => {
      const state = request.query.state ?? '';
      if (state) reply.clearCookie(flowCookieName(state), { path: SAML_CALLBACK_PATH });
      try {
        const finished = await deps.sso.finish(request.query, (name) => request.cookies[name]);
        if (finished.kind === 'back_to_portal') return reply.redirect('/portal/apps', 303);
        if (finished.kind === 'post') return send(request, reply, finished.app, finished.message);
        const t = portalPhrases[request.lang];
        const message =
          finished.kind === 'no_email'
            ? interpolate(t.saml.noEmail, { app: finished.app.name })
            : t.apps.refused[finished.cause];
        const title = finished.kind === 'no_email' ? t.saml.problemTitle : t.apps.refusedTitle;
        return page(
          reply,
          403,
          renderAppProblemPage(context(request), {
            title,
            message,
            appName: finished.app.name,
            backHref: '/portal/apps',
          }),
        );
      } catch (error) {
        return refused(request, reply, error);
      }
    },
  );

  const slo = async (request: FastifyRequest<CompanyParams>, reply: FastifyReply) => {
    try {
      const source =
        request.method === 'GET'
          ? (request.query as Record<string, unknown>)
          : ((request.body ?? {}) as Record<string, unknown>);
      const { companyId } = request.params;
      const step =
        source.SAMLResponse !== undefined
          ? await deps.slo.receiveLogoutResponse(companyId, request)
          : await deps.slo.receiveLogoutRequest(companyId, request);
      return logoutStep(request, reply, step);
    } catch (error) {
      return refused(request, reply, error);
    }
  };
  app.get<CompanyParams>(`${SAML_MOUNT}/:companyId/slo`, slo);
  app.post<CompanyParams>(`${SAML_MOUNT}/:companyId/slo`, slo);

  app.get<{ Querystring: { chain?: string } }>(SAML_LOGOUT_NEXT_PATH, async (request, reply) =>
    logoutStep(request, reply, await deps.slo.continueChain(String(request.query.chain ?? '').slice(0, 64))),
  );
  app.get<{ Querystring: { state?: string } }>(SAML_LOGOUT_RETURN_PATH, async (request, reply) =>
    logoutStep(request, reply, await deps.slo.returnAfterLogout(request.query.state)),
  );
}
