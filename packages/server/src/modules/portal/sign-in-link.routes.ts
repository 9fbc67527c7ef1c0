import { portalPhrases, renderErrorPage, renderSignInLinkPage } from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { randomToken, type Sealer, safeEqual, sha256 } from '../../lib/crypto.ts';
import type { SignInLinksRepo } from '../mail/sign-in-links.repo.ts';
import { HANDOFF_COOKIE, handoffCookieOptions, sealHandoff } from '../oidc/first-factor-handoff.ts';
import type { SignInService } from '../signin/signin.service.ts';
import { PORTAL_CLIENT_ID, type PortalSignIn } from './portal.routes.ts';
import { userCentreContext } from './portal-brand.ts';

export interface SignInLinkDeps {
  db: Db;
  sealer: Sealer;
  links: SignInLinksRepo;
  signIn: Pick<SignInService, 'recordLoginEvent'>;
  startSignIn: PortalSignIn;
  secureCookies: boolean;
}

export const SIGN_IN_LINK_PATH = '/portal/link';
/** Binds the confirmation form to the browser that loaded it (against login CSRF). */
const CSRF_COOKIE = 'tessera_link_csrf';

const pageContext = (request: FastifyRequest) => userCentreContext(request);

const wellFormed = (token: string) => token.length <= 128 && /^[A-Za-z0-9_-]+$/.test(token);

/**
 * The page of a sign-in link sent by email. GET only shows a confirmation (mail scanners fetch
 * links, and must not use them up); its POST uses the link in one atomic statement, checks that
 * the account may still sign in to the company, and hands the first factor to the provider's
 * normal sign-in for the user centre, which then runs the rest of the pipeline (a forced
 * password change, for instance) and issues its session.
 */
export function signInLinkRoutes(app: FastifyInstance, deps: SignInLinkDeps) {
  const csrfCookieOptions = {
    path: SIGN_IN_LINK_PATH,
    httpOnly: true,
    sameSite: 'strict' as const,
    secure: deps.secureCookies,
  };
  const csrfFor = (browser: string, tokenHash: string) =>
    deps.sealer.hmac('portal-sign-in-link', `${browser}.${tokenHash}`);

  const invalid = (request: FastifyRequest, reply: FastifyReply) =>
    reply
      .status(410)
      .type('text/html; charset=utf-8')
      .send(
        renderErrorPage(pageContext(request), { message: portalPhrases[request.lang].signInLink.invalid }),
      );

  app.get<{ Params: { token: string } }>(`${SIGN_IN_LINK_PATH}/:token`, async (request, reply) => {
    const { token } = request.params;
    const link = wellFormed(token) ? await deps.links.findUsableSignInLink(sha256(token)) : undefined;
    if (!link) return invalid(request, reply);
    const browser = randomToken(16);
    reply.setCookie(CSRF_COOKIE, browser, { ...csrfCookieOptions, maxAge: 3600 });
    return reply.type('text/html; charset=utf-8').send(
      renderSignInLinkPage(pageContext(request), {
        action: `${SIGN_IN_LINK_PATH}/${token}`,
        csrfToken: csrfFor(browser, sha256(token)),
        username: link.username,
        companyName: link.company_name ?? '',
      }),
    );
  });

  app.post<{ Params: { token: string }; Body: { csrf?: string } }>(
    `${SIGN_IN_LINK_PATH}/:token`,
    async (request, reply) => {
      const { token } = request.params;
      if (!wellFormed(token)) return invalid(request, reply);
      const tokenHash = sha256(token);
      const browser = request.cookies[CSRF_COOKIE];
      const csrf = request.body?.csrf;
      if (!browser || typeof csrf !== 'string' || !safeEqual(csrf, csrfFor(browser, tokenHash))) {
        // Not from the confirmation page of this browser: show it again, the link stays unused.
        return reply.redirect(`${SIGN_IN_LINK_PATH}/${token}`, 303);
      }
      reply.clearCookie(CSRF_COOKIE, csrfCookieOptions);

      const link = await deps.links.consumeSignInLink(tokenHash);
      if (!link) return invalid(request, reply);

      const standing = await deps.db
        .selectFrom('accounts as a')
        .leftJoin('company_members as m', (join) =>
          join.onRef('m.account_id', '=', 'a.id').on('m.company_id', '=', link.company_id ?? ''),
        )
        .select(['a.username', 'a.status', 'a.locked_until', 'm.status as member_status'])
        .where('a.id', '=', link.account_id)
        .executeTakeFirst();
      const event = {
        companyId: link.company_id,
        accountId: link.account_id,
        identifier: standing?.username ?? '',
        clientId: PORTAL_CLIENT_ID,
        ip: request.ip,
        userAgent: request.headers['user-agent'] ?? null,
      };
      const locked = Boolean(standing?.locked_until && standing.locked_until > new Date());
      const enabled =
        standing?.status === 'enabled' &&
        !locked &&
        (link.company_id === null || standing.member_status === 'enabled');
      if (!enabled) {
        await deps.signIn.recordLoginEvent({
          ...event,
          result: 'failure',
          failureCause:
            locked || standing?.member_status === 'locked' ? 'account_locked' : 'account_disabled',
        });
        return reply
          .status(403)
          .type('text/html; charset=utf-8')
          .send(
            renderErrorPage(pageContext(request), {
              message: portalPhrases[request.lang].signInLink.notEnabled,
            }),
          );
      }

      await deps.db
        .updateTable('accounts')
        .set((eb) => ({
          failed_count: 0,
          // Counted as the sign-in log shows it: in the link's company only (signin-outcome.ts).
          ...(link.company_id ? { login_count: eb('login_count', '+', 1) } : {}),
          last_login_at: sql<Date>`now()`,
        }))
        .where('id', '=', link.account_id)
        .execute();
      await deps.signIn.recordLoginEvent({ ...event, result: 'success', failureCause: null });

      const state = randomToken(16);
      const handoff = sealHandoff(deps.sealer, {
        accountId: link.account_id,
        companyId: link.company_id,
        amr: ['link'],
        clientId: PORTAL_CLIENT_ID,
        state,
      });
      reply.setCookie(HANDOFF_COOKIE, handoff.value, {
        ...handoffCookieOptions(deps.secureCookies),
        maxAge: handoff.maxAge,
      });
      return deps.startSignIn(request, reply, { returnTo: '/portal/account', state, prompt: 'login' });
    },
  );
}
