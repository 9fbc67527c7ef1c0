import { appLimits, interpolate } from '@tessera/contract';
import {
  portalPhrases,
  renderAppCredentialsPage,
  renderAppOpenPage,
  renderAppProblemPage,
  renderFormLaunchPage,
  renderMyAppsPage,
} from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.ts';
import type { Account, App } from '../../db/schema.ts';
import { pageCsp } from '../../http/security-headers.ts';
import { type Sealer, safeEqual } from '../../lib/crypto.ts';
import { fileUrl } from '../files/files.ts';
import { userCentreContext } from '../portal/portal-brand.ts';
import type { AppAccessRefusal } from './app-access.ts';
import { type CredentialProblems, createMyAppsService } from './my-apps.service.ts';

export const MY_APPS_PATH = '/portal/apps';
const ACCOUNT_PATH = '/portal/account';
const launchPath = (appId: string) => `${MY_APPS_PATH}/${encodeURIComponent(appId)}/launch`;
const credentialsPath = (appId: string) => `${MY_APPS_PATH}/${encodeURIComponent(appId)}/credentials`;

/**
 * The page that posts an app's login form carries a password: the pages' policy (never stored,
 * never framed, no referrer, script from the portal's assets only, nothing inline). No
 * `form-action`: browsers check it along the redirects that answer the post too, and many apps
 * answer a good login with a redirect to another of their hosts. The form's one action is the
 * address the administrator saved, written by the server; no script of the page can change it.
 */
const launchHeaders = { 'content-security-policy': pageCsp() };

const csrfOf = (sealer: Sealer, sessionId: string) => sealer.hmac('portal-apps', sessionId);

type SignedIn = (request: FastifyRequest) => Promise<{ sessionId: string; account: Account } | undefined>;

export interface MyAppsPortalDeps {
  db: Db;
  sealer: Sealer;
  /** The provider's issuer (`${publicUrl}/oidc`): the `iss` of a third-party initiated login. */
  issuer: string;
  signedIn: SignedIn;
  /** Sends the browser to sign in to the user centre, coming back to this page. */
  startSignIn(request: FastifyRequest, reply: FastifyReply): unknown;
}

type AppParams = { Params: { appId: string } };
type FormBody = { Body: Record<string, string | undefined> };

/**
 * The user centre's "my apps" (`/portal/apps`): the apps the person may open, launching each the
 * right way (OIDC: third-party initiated login; form-fill: the app's login form posted for them)
 * and the form-fill credentials the person saves for an app.
 */
export function myAppsPortalRoutes(app: FastifyInstance, deps: MyAppsPortalDeps) {
  const service = createMyAppsService(deps);
  const context = (request: FastifyRequest, currentUrl = request.url) =>
    userCentreContext(request, currentUrl);
  const send = (reply: FastifyReply, status: number, body: string) =>
    reply.status(status).type('text/html; charset=utf-8').send(body);

  /** A "no access", "not found", "not set up" or "not secure" page. */
  const problem = (
    request: FastifyRequest,
    reply: FastifyReply,
    kind: 'not_found' | 'not_configured' | 'insecure' | { cause: AppAccessRefusal },
  ) => {
    const t = portalPhrases[request.lang].apps;
    const message =
      kind === 'not_found'
        ? t.notFound
        : kind === 'not_configured'
          ? t.notConfigured
          : kind === 'insecure'
            ? t.insecure
            : t.refused[kind.cause];
    const status = kind === 'not_found' ? 404 : typeof kind === 'string' ? 409 : 403;
    const title = typeof kind === 'string' ? portalPhrases[request.lang].error.title : t.refusedTitle;
    return send(
      reply,
      status,
      renderAppProblemPage(context(request), { title, message, backHref: MY_APPS_PATH }),
    );
  };

  /** The sender of a form whose CSRF token is that of their session; otherwise answers and returns undefined. */
  const submitted = async (request: FastifyRequest<FormBody>, reply: FastifyReply) => {
    const current = await deps.signedIn(request);
    if (!current) {
      reply.redirect(MY_APPS_PATH, 303);
      return undefined;
    }
    const csrf = request.body?.csrf;
    if (typeof csrf !== 'string' || !safeEqual(csrf, csrfOf(deps.sealer, current.sessionId))) {
      send(
        reply,
        403,
        renderAppProblemPage(context(request), {
          title: portalPhrases[request.lang].error.title,
          message: portalPhrases[request.lang].signIn.sessionExpired,
          backHref: MY_APPS_PATH,
        }),
      );
      return undefined;
    }
    return current;
  };

  /** A refused launch: written to the sign-in log with its cause, then the "no access" page. */
  const refuse = async (
    request: FastifyRequest,
    reply: FastifyReply,
    account: Account,
    target: { app: App; cause: AppAccessRefusal },
  ) => {
    await service.recordLaunch({
      app: target.app,
      account,
      ip: request.ip,
      userAgent: request.headers['user-agent'] ?? null,
      cause: target.cause,
    });
    return problem(request, reply, target);
  };

  app.get<{ Querystring: { notice?: string } }>(MY_APPS_PATH, async (request, reply) => {
    const current = await deps.signedIn(request);
    if (!current) return deps.startSignIn(request, reply);
    const apps = await service.list(current.account.id);
    const t = portalPhrases[request.lang].apps;
    const html = renderMyAppsPage(context(request), {
      nav: { accountHref: ACCOUNT_PATH, appsHref: MY_APPS_PATH },
      apps: apps.map(({ app: a, companyName, credentialMode }) => ({
        appId: a.id,
        name: a.name,
        description: a.description,
        companyName,
        logo: fileUrl(a.logo_file_id),
        // A form-fill launch carries a password: it is a POST with the CSRF token.
        launch: { method: a.protocol === 'form' ? 'post' : 'get', href: launchPath(a.id) },
        detailsHref: a.protocol === 'form' && credentialMode === 'user' ? credentialsPath(a.id) : undefined,
      })),
      csrfToken: csrfOf(deps.sealer, current.sessionId),
      showCompany: new Set(apps.map((a) => a.app.company_id)).size > 1,
      notice: request.query.notice === 'removed' ? t.removed : undefined,
    });
    return send(reply, 200, html);
  });

  /**
   * Opening an app by link: an OIDC app is a redirect (nothing secret); a form-fill app shows a
   * button that posts the launch.
   */
  app.get<AppParams & { Querystring: { notice?: string } }>(
    `${MY_APPS_PATH}/:appId/launch`,
    async (request, reply) => {
      const current = await deps.signedIn(request);
      if (!current) return deps.startSignIn(request, reply);
      const target = await service.launchTarget(current.account.id, request.params.appId);
      if (target.kind === 'not_found' || target.kind === 'not_configured' || target.kind === 'insecure')
        return problem(request, reply, target.kind);
      if (target.kind === 'refused') return refuse(request, reply, current.account, target);
      if (target.kind === 'redirect') return reply.redirect(target.url, 302);
      const userMode = target.config.credential_mode === 'user';
      const t = portalPhrases[request.lang].apps;
      return send(
        reply,
        200,
        renderAppOpenPage(context(request), {
          appName: target.app.name,
          action: launchPath(target.app.id),
          csrfToken: csrfOf(deps.sealer, current.sessionId),
          backHref: MY_APPS_PATH,
          detailsHref: userMode ? credentialsPath(target.app.id) : undefined,
          notice: request.query.notice === 'saved' ? t.saved : undefined,
        }),
      );
    },
  );

  /** Launches an app (the "Open" button): redirect (OIDC) or the auto-posted login form (form-fill). */
  const launch = async (
    request: FastifyRequest<AppParams & FormBody>,
    reply: FastifyReply,
    account: Account,
  ) => {
    const target = await service.launchTarget(account.id, request.params.appId);
    if (target.kind === 'not_found' || target.kind === 'not_configured' || target.kind === 'insecure')
      return problem(request, reply, target.kind);
    if (target.kind === 'refused') return refuse(request, reply, account, target);
    if (target.kind === 'redirect') return reply.redirect(target.url, 303);
    const form = await service.formLaunch(account.id, target.app, target.config);
    if (form.kind === 'not_configured' || form.kind === 'insecure') return problem(request, reply, form.kind);
    if (form.kind === 'needs_credentials')
      return reply.redirect(`${credentialsPath(target.app.id)}?next=open`, 303);
    await service.recordLaunch({
      app: target.app,
      account,
      ip: request.ip,
      userAgent: request.headers['user-agent'] ?? null,
      cause: null,
    });
    return reply
      .status(200)
      .headers(launchHeaders)
      .type('text/html; charset=utf-8')
      .send(
        renderFormLaunchPage(context(request, launchPath(target.app.id)), {
          appName: target.app.name,
          action: form.action,
          fields: form.fields,
        }),
      );
  };

  app.post<AppParams & FormBody>(`${MY_APPS_PATH}/:appId/launch`, async (request, reply) => {
    const current = await submitted(request, reply);
    if (!current) return reply;
    return launch(request, reply, current.account);
  });

  const problemText = (request: FastifyRequest, problems: CredentialProblems) => {
    const t = portalPhrases[request.lang].apps;
    const text = (kind: 'required' | 'too_long' | undefined, required: string) =>
      kind === 'required'
        ? required
        : kind === 'too_long'
          ? interpolate(t.tooLong, { max: appLimits.credentialMax })
          : undefined;
    return {
      username: text(problems.username, t.usernameRequired),
      password: text(problems.password, t.passwordRequired),
    };
  };

  app.get<AppParams & { Querystring: { next?: string; notice?: string } }>(
    `${MY_APPS_PATH}/:appId/credentials`,
    async (request, reply) => {
      const current = await deps.signedIn(request);
      if (!current) return deps.startSignIn(request, reply);
      const target = await service.credentialsTarget(current.account.id, request.params.appId);
      if (target.kind === 'not_found' || target.kind === 'not_configured')
        return problem(request, reply, target.kind);
      if (target.kind === 'refused') return problem(request, reply, target);
      const t = portalPhrases[request.lang].apps;
      if (target.kind === 'shared')
        return send(
          reply,
          200,
          renderAppProblemPage(context(request), {
            title: interpolate(t.credentialsTitle, { app: target.app.name }),
            message: t.sharedAccount,
            backHref: MY_APPS_PATH,
          }),
        );
      return send(
        reply,
        200,
        renderAppCredentialsPage(context(request), {
          appName: target.app.name,
          action: credentialsPath(target.app.id),
          deleteAction: `${credentialsPath(target.app.id)}/delete`,
          csrfToken: csrfOf(deps.sealer, current.sessionId),
          backHref: MY_APPS_PATH,
          username: target.username ?? '',
          passwordSaved: target.passwordSaved,
          thenOpen: request.query.next === 'open',
          notice: request.query.notice === 'saved' ? t.saved : undefined,
        }),
      );
    },
  );

  app.post<AppParams & FormBody>(`${MY_APPS_PATH}/:appId/credentials`, async (request, reply) => {
    const current = await submitted(request, reply);
    if (!current) return reply;
    const target = await service.credentialsTarget(current.account.id, request.params.appId);
    if (target.kind === 'not_found' || target.kind === 'not_configured')
      return problem(request, reply, target.kind);
    if (target.kind === 'refused') return problem(request, reply, target);
    if (target.kind === 'shared') return reply.redirect(MY_APPS_PATH, 303);
    const thenOpen = request.body?.next === 'open';
    const checked = service.checkCredentials(request.body ?? {}, target.passwordSaved);
    if (!checked.ok) {
      const typed = typeof request.body?.username === 'string' ? request.body.username.slice(0, 256) : '';
      return send(
        reply,
        400,
        renderAppCredentialsPage(context(request, credentialsPath(target.app.id)), {
          appName: target.app.name,
          action: credentialsPath(target.app.id),
          deleteAction: `${credentialsPath(target.app.id)}/delete`,
          csrfToken: csrfOf(deps.sealer, current.sessionId),
          backHref: MY_APPS_PATH,
          username: typed,
          passwordSaved: target.passwordSaved,
          thenOpen,
          errors: problemText(request, checked.problems),
        }),
      );
    }
    await service.saveCredentials(
      { accountId: current.account.id, ip: request.ip },
      target.app,
      checked.value,
    );
    // "Save and open": the launch answers this POST (it carries the CSRF token already checked).
    if (thenOpen) return launch(request, reply, current.account);
    return reply.redirect(`${credentialsPath(target.app.id)}?notice=saved`, 303);
  });

  app.post<AppParams & FormBody>(`${MY_APPS_PATH}/:appId/credentials/delete`, async (request, reply) => {
    const current = await submitted(request, reply);
    if (!current) return reply;
    const found = await service.credentialsTarget(current.account.id, request.params.appId);
    if (found.kind === 'not_found') return problem(request, reply, 'not_found');
    // Removing one's own saved password is allowed even when access has since been taken away.
    await service.deleteCredentials({ accountId: current.account.id, ip: request.ip }, found.app);
    return reply.redirect(`${MY_APPS_PATH}?notice=removed`, 303);
  });
}
