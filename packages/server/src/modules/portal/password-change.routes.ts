import { portalPhrases, renderErrorPage, renderOwnPasswordPage } from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Account } from '../../db/schema.ts';
import { randomToken, type Sealer, safeEqual, sha256 } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { translateError } from '../../lib/i18n.ts';
import { changeOwnPassword } from '../account/own-password.ts';
import { UNUSABLE_PASSWORD_HASH, verifyPassword } from '../account/password.ts';
import { assertPasswordAllowed, passwordPolicyFor } from '../account/password-policy.ts';
import { insertLoginEvent } from '../signin/login-events.repo.ts';
import { userCentreContext } from './portal-brand.ts';

const ACCOUNT_PATH = '/portal/account';
export const PASSWORD_PATH = '/portal/account/password';
/** The account page shows the success notice when it is reached with this query. */
export const PASSWORD_CHANGED_QUERY = 'password_changed';
/** Wrong current passwords allowed per account within the window before the page refuses to check. */
const WRONG_CURRENT_LIMIT = 5;
const WRONG_CURRENT_WINDOW_MINUTES = 15;
/** Longer input is refused unread (the policy's own maximum is far below). */
const MAX_INPUT = 1024;

/** Whether the person has a password to change (imported accounts get theirs through a sign-in link). */
export const hasOwnPassword = (account: Account) => account.password_hash !== UNUSABLE_PASSWORD_HASH;

export interface PasswordChangeDeps {
  db: Db;
  sealer: Sealer;
  /** The signed-in person of the user centre, or undefined. */
  signedIn(request: FastifyRequest): Promise<{ sessionId: string; account: Account } | undefined>;
  startSignIn(request: FastifyRequest, reply: FastifyReply): FastifyReply;
  /** Sets the user centre's session cookie to a new token (portal.routes.ts). */
  setSessionCookie(reply: FastifyReply, token: string): void;
  /** The client the login events of this page are recorded for. */
  clientId: string;
}

/**
 * The user centre's own password change. The current password is required (a wrong one is
 * logged as a failed sign-in, `wrong_password`, and a few of them in a row stop the checking for
 * a while); the new one must match its confirmation, differ from the current one and meet the
 * home company's rules. The change raises the credential version, which ends every other session
 * of the account (consoles, other user-centre sessions); the session of this browser is carried
 * over to the new version with a fresh token, so the person stays signed in.
 */
export function passwordChangeRoutes(app: FastifyInstance, deps: PasswordChangeDeps) {
  const csrfFor = (sessionId: string) => deps.sealer.hmac('portal-password', sessionId);
  const pageContext = (request: FastifyRequest) => userCentreContext(request, PASSWORD_PATH);
  const send = (reply: FastifyReply, status: number, body: string) =>
    reply.status(status).type('text/html; charset=utf-8').send(body);
  const showForm = (
    request: FastifyRequest,
    reply: FastifyReply,
    current: { sessionId: string; account: Account },
    error?: string,
  ) =>
    send(
      reply,
      error ? 400 : 200,
      renderOwnPasswordPage(pageContext(request), {
        action: PASSWORD_PATH,
        backHref: ACCOUNT_PATH,
        csrfToken: csrfFor(current.sessionId),
        username: current.account.username,
        error,
      }),
    );

  /** Recent wrong current passwords of the account (this page and the sign-in page alike). */
  async function recentWrongPasswords(accountId: string): Promise<number> {
    const row = await deps.db
      .selectFrom('login_events')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', accountId)
      .where('failure_cause', '=', 'wrong_password')
      .where('created_at', '>', sql<Date>`now() - make_interval(mins => ${WRONG_CURRENT_WINDOW_MINUTES})`)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  app.get(PASSWORD_PATH, async (request, reply) => {
    const current = await deps.signedIn(request);
    if (!current) return deps.startSignIn(request, reply);
    if (!hasOwnPassword(current.account)) return reply.redirect(ACCOUNT_PATH, 303);
    return showForm(request, reply, current);
  });

  app.post<{ Body: Record<string, string | undefined> }>(PASSWORD_PATH, async (request, reply) => {
    const lang = request.lang;
    const current = await deps.signedIn(request);
    if (!current) return reply.redirect(ACCOUNT_PATH, 303);
    const csrf = request.body?.csrf;
    if (typeof csrf !== 'string' || !safeEqual(csrf, csrfFor(current.sessionId))) {
      return send(
        reply,
        403,
        renderErrorPage(pageContext(request), { message: portalPhrases[lang].signIn.sessionExpired }),
      );
    }
    const { account } = current;
    if (!hasOwnPassword(account)) return reply.redirect(ACCOUNT_PATH, 303);
    const field = (name: string) => {
      const value = request.body?.[name];
      return typeof value === 'string' ? value : '';
    };
    const currentPassword = field('currentPassword');
    const newPassword = field('newPassword');
    const confirmation = field('confirmPassword');
    const t = portalPhrases[lang].ownPassword;

    if (!currentPassword || currentPassword.length > MAX_INPUT) {
      return showForm(request, reply, current, t.wrongCurrent);
    }
    if ((await recentWrongPasswords(account.id)) >= WRONG_CURRENT_LIMIT) {
      return showForm(request, reply, current, t.throttled);
    }
    if (!(await verifyPassword(account.password_hash, currentPassword))) {
      // Counts like a failed sign-in: it shows in the person's recent sign-ins and in the logs.
      await insertLoginEvent(deps.db, {
        companyId: account.home_company_id,
        accountId: account.id,
        identifier: account.username,
        clientId: deps.clientId,
        ip: request.ip,
        userAgent: request.headers['user-agent'] ?? null,
        result: 'failure',
        failureCause: 'wrong_password',
      });
      return showForm(request, reply, current, t.wrongCurrent);
    }
    if (!newPassword)
      return showForm(request, reply, current, translateError(lang, 'user.password_required'));
    if (newPassword !== confirmation) {
      return showForm(request, reply, current, translateError(lang, 'user.password_mismatch'));
    }
    if (newPassword === currentPassword) {
      return showForm(request, reply, current, translateError(lang, 'password.same_as_current'));
    }
    try {
      assertPasswordAllowed(
        newPassword,
        { username: account.username, lang, field: 'newPassword' },
        await passwordPolicyFor(deps.db, account.home_company_id),
      );
    } catch (error) {
      if (error instanceof AppError) {
        return showForm(
          request,
          reply,
          current,
          error.localisedMessage ?? translateError(lang, error.reason, error.params),
        );
      }
      throw error;
    }

    const token = randomToken();
    const changed = await changeOwnPassword(deps.db, {
      account,
      newPassword,
      // Only over the password that was checked: a change meanwhile (an administrator's reset) wins.
      onlyIfUnchanged: true,
      audit: {
        before: { mustChangePassword: account.must_change_password },
        after: { mustChangePassword: false, sessionsEnded: true, selfService: true },
        ip: request.ip,
      },
      // Every other session ends with the new credential version; this one is carried over under
      // a fresh token.
      alsoInTransaction: async (trx, credentialVersion) => {
        await trx
          .updateTable('console_sessions')
          .set({ credential_version: credentialVersion, token_hash: sha256(token) })
          .where('id', '=', current.sessionId)
          .where('revoked_at', 'is', null)
          .execute();
      },
    });
    if (!changed) return reply.redirect(ACCOUNT_PATH, 303);
    deps.setSessionCookie(reply, token);
    return reply.redirect(`${ACCOUNT_PATH}?notice=${PASSWORD_CHANGED_QUERY}`, 303);
  });
}
