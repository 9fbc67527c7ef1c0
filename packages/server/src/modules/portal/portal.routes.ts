import { createHash } from 'node:crypto';
import type { MemberRole } from '@tessera/contract';
import {
  type AccountBindingsSection,
  type AccountDevicesSection,
  type AccountMfaSection,
  type PageBrand,
  portalPhrases,
  renderAccountPage,
  renderErrorPage,
} from '@tessera/portal';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { decodeJwt } from 'jose';
import type { ClientMetadata } from 'oidc-provider';
import type { Db } from '../../db/database.ts';
import type { Account } from '../../db/schema.ts';
import { randomToken, type Sealer, safeEqual, sha256 } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import type { AccountsRepo } from '../account/account.repo.ts';
import { wearPageBrand } from '../oidc/interaction-page.ts';
import { COMPANY_CODE_PARAM } from '../oidc/provider.ts';
import type { SessionsRepo } from '../session/session.repo.ts';
import type { TokenEndpoint } from '../session/session.service.ts';
import {
  hasOwnPassword,
  PASSWORD_CHANGED_QUERY,
  PASSWORD_PATH,
  passwordChangeRoutes,
} from './password-change.routes.ts';
import { portalBrand, userCentreContext } from './portal-brand.ts';
import { PROFILE_PATH } from './profile.routes.ts';

export const PORTAL_CLIENT_ID = 'tessera-portal';
/** The user centre's address for people: its front door (see `frontDoor`). */
export const USER_CENTRE_PATH = '/portal/';
/** Where a company's user centre address starts: /portal/c/<code>/. */
export const COMPANY_ADDRESS_PATH = '/portal/c';
export const companyAddress = (code: string) => `${COMPANY_ADDRESS_PATH}/${encodeURIComponent(code)}/`;
const SESSION_COOKIE = 'tessera_portal';
const FLOW_COOKIE = 'tessera_portal_flow';
const FLOW_PURPOSE = 'portal-sign-in-flow';

export const portalClient = (publicUrl: string, sealer: Sealer) => ({
  clientId: PORTAL_CLIENT_ID,
  clientSecret: sealer.derive('portal-client-secret').toString('base64url'),
  redirectUri: `${publicUrl}/portal/callback`,
});

export const portalClientMetadata = (client: ReturnType<typeof portalClient>): ClientMetadata => ({
  client_id: client.clientId,
  client_secret: client.clientSecret,
  client_name: 'Tessera user centre',
  redirect_uris: [client.redirectUri],
  grant_types: ['authorization_code'],
  response_types: ['code'],
  token_endpoint_auth_method: 'client_secret_basic',
  id_token_signed_response_alg: 'ES256',
});

export interface PortalDeps {
  db: Db;
  sealer: Sealer;
  accounts: AccountsRepo;
  sessions: SessionsRepo;
  tokenEndpoint: TokenEndpoint;
  issuer: string;
  publicUrl: string;
  lifetimes: { idleSeconds: number; absoluteSeconds: number };
  /** The second-factor section of the account page (modules/mfa). */
  mfaSection?: (account: Account, sessionId: string) => Promise<AccountMfaSection>;
  /** The Exchange devices section of the account page (modules/exchange). */
  devicesSection?: (account: Account, sessionId: string) => Promise<AccountDevicesSection>;
  /** The third-party accounts section (modules/identity-source), set once those routes exist. */
  bindingsSection?: (account: Account, sessionId: string) => Promise<AccountBindingsSection>;
  /** The brand of the company a user centre address names (modules/brand). */
  brandOfCode?: (code: string) => Promise<CompanyPageBrand | null>;
  /** The brand a company saved, null while it has none (modules/brand). */
  savedBrandOf?: (companyId: string) => Promise<CompanyPageBrand | null>;
}

type CompanyPageBrand = PageBrand & { companyId: string; companyCode: string; defaultLanguage: 'en' | 'zh' };

/** Confirmations the account page shows after a change elsewhere (`?notice=`). */
const notices = (lang: 'en' | 'zh') =>
  ({
    [PASSWORD_CHANGED_QUERY]: portalPhrases[lang].ownPassword.changed,
    scan_bound: portalPhrases[lang].scan.boundOk,
    scan_unbound: portalPhrases[lang].scan.unboundOk,
    ...portalPhrases[lang].devices.notices,
  }) as Record<string, string>;

/** The confirmation an account page address asks for, from the known ones only. */
function noticeOf(lang: 'en' | 'zh', notice: string | undefined): string | undefined {
  const known = notices(lang);
  return notice && Object.hasOwn(known, notice) ? known[notice] : undefined;
}

/**
 * The user centre is a client of Tessera's own provider, like any application: it has its own
 * session cookie (httpOnly, SameSite=Lax), stored hashed as a session of variant `portal`.
 */
export function portalRoutes(app: FastifyInstance, deps: PortalDeps) {
  const client = portalClient(deps.publicUrl, deps.sealer);
  const secure = deps.publicUrl.startsWith('https://');
  const cookieOptions = { path: '/portal', httpOnly: true, sameSite: 'lax' as const, secure };

  async function currentSession(request: FastifyRequest) {
    const token = request.cookies[SESSION_COOKIE];
    if (!token || token.length > 256) return undefined;
    return deps.sessions.findLiveSessionByTokenHash(sha256(token), ['portal']);
  }

  /**
   * Sends the browser to the provider's sign-in for the user centre. `state` lets a caller bind
   * a first factor it hands over (a used sign-in link) to exactly this authorization request;
   * `prompt: 'login'` makes the provider ask even when it already has a session.
   */
  function startSignIn(
    request: FastifyRequest,
    reply: FastifyReply,
    options: { returnTo?: string; state?: string; prompt?: 'login'; companyCode?: string } = {},
  ) {
    const verifier = randomToken();
    const state = options.state ?? randomToken(16);
    // A sign-in started from another user-centre page keeps the look of the address it came through.
    const companyCode = options.companyCode ?? remembered.addressCode(request);
    const returnTo =
      options.returnTo ?? (request.url.startsWith('/portal/') ? request.url : '/portal/account');
    reply.setCookie(
      FLOW_COOKIE,
      deps.sealer.seal(JSON.stringify({ verifier, state, returnTo }), FLOW_PURPOSE),
      {
        ...cookieOptions,
        maxAge: 600,
      },
    );
    const url = new URL(`${deps.issuer}/auth`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      scope: 'openid profile email',
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      ...(options.prompt ? { prompt: options.prompt } : {}),
      ...(companyCode ? { [COMPANY_CODE_PARAM]: companyCode } : {}),
    }).toString();
    return reply.redirect(url.toString());
  }

  const companiesOf = (accountId: string) =>
    deps.db
      .selectFrom('company_members as m')
      .innerJoin('companies as c', 'c.id', 'm.company_id')
      .select(['c.id', 'c.name', 'c.code', 'm.role'])
      .where('m.account_id', '=', accountId)
      .orderBy('m.created_at')
      .execute();

  const remembered = portalBrand(app, {
    brandOfCode: deps.brandOfCode,
    savedBrandOf: deps.savedBrandOf,
    signedInAccountId: async (request) => (await currentSession(request))?.account_id,
    companiesOf,
    cookieOptions,
  });

  app.get<{ Querystring: { code?: string; state?: string; error?: string } }>(
    '/portal/callback',
    async (request, reply) => {
      const sealed = request.cookies[FLOW_COOKIE];
      let flow: { verifier: string; state: string; returnTo: string } | undefined;
      try {
        flow = sealed ? JSON.parse(deps.sealer.open(sealed, FLOW_PURPOSE)) : undefined;
      } catch {
        flow = undefined;
      }
      reply.clearCookie(FLOW_COOKIE, cookieOptions);
      const { code, state } = request.query;
      if (!flow || !code || !state || !safeEqual(state, flow.state)) return startSignIn(request, reply);
      const { status, body } = await deps.tokenEndpoint(
        {
          grant_type: 'authorization_code',
          code,
          code_verifier: flow.verifier,
          redirect_uri: client.redirectUri,
        },
        client,
      );
      const sub =
        status === 200 && typeof body.id_token === 'string' ? decodeJwt(body.id_token).sub : undefined;
      if (!sub) return startSignIn(request, reply);
      const token = randomToken();
      await deps.sessions.insertSession({
        id: newId(),
        token_hash: sha256(token),
        account_id: sub,
        variant: 'portal',
        id_token: body.id_token as string,
        refresh_token_sealed: null,
        idle_expires_at: new Date(Date.now() + deps.lifetimes.idleSeconds * 1000),
        absolute_expires_at: new Date(Date.now() + deps.lifetimes.absoluteSeconds * 1000),
      });
      reply.setCookie(SESSION_COOKIE, token, { ...cookieOptions, maxAge: deps.lifetimes.absoluteSeconds });
      return reply.redirect(flow.returnTo);
    },
  );

  // The user centre's front door (what people type and bookmark): its account page, which signs
  // the person in first when needed. The query (a company, a notice) goes along.
  const frontDoor = (request: FastifyRequest, reply: FastifyReply) => {
    const query = request.url.indexOf('?');
    return reply.redirect(`/portal/account${query < 0 ? '' : request.url.slice(query)}`);
  };
  app.get('/portal', frontDoor);
  app.get('/portal/', frontDoor);

  /** The account page of the signed-in person; under a company's address, in its brand. */
  async function sendAccountPage(
    request: FastifyRequest<{ Querystring: { company_id?: string; notice?: string } }>,
    reply: FastifyReply,
    signedIn: { session: { id: string }; account: Account },
    companies: { id: string; name: string; role: MemberRole }[],
    company?: { companyId: string; home: string },
  ) {
    const { session, account } = signedIn;
    const signIns = await deps.db
      .selectFrom('login_events as e')
      // An application's sign-ins show its name; Tessera's own clients are named by the page.
      .leftJoin('apps as p', 'p.client_id', 'e.client_id')
      .select(['e.created_at', 'e.result', 'e.failure_cause', 'e.ip', 'e.client_id', 'p.name as app_name'])
      .where('e.account_id', '=', account.id)
      .orderBy('e.created_at', 'desc')
      .limit(10)
      .execute();
    const html = renderAccountPage(userCentreContext(request), {
      account: {
        username: account.username,
        name: account.display_name,
        email: account.email,
        phone: account.phone,
        emailVerified: Boolean(account.email_verified_at),
        phoneVerified: Boolean(account.phone_verified_at),
      },
      profileHref: PROFILE_PATH,
      companies: companies.map((c) => ({ companyId: c.id, name: c.name, role: c.role })),
      currentCompanyId: company?.companyId ?? request.query.company_id ?? null,
      signIns: signIns.map((e) => ({
        at: e.created_at,
        result: e.result,
        cause: e.failure_cause,
        ip: e.ip,
        application: e.app_name ?? e.client_id,
      })),
      logoutAction: '/portal/logout',
      csrfToken: deps.sealer.hmac('portal-logout', session.id),
      mfa: deps.mfaSection ? await deps.mfaSection(account, session.id) : undefined,
      devices: deps.devicesSection ? await deps.devicesSection(account, session.id) : undefined,
      bindings: deps.bindingsSection ? await deps.bindingsSection(account, session.id) : undefined,
      passwordHref: hasOwnPassword(account) ? PASSWORD_PATH : undefined,
      nav: { accountHref: company?.home ?? '/portal/account', appsHref: '/portal/apps' },
      notice: noticeOf(request.lang, request.query.notice),
    });
    return reply.type('text/html; charset=utf-8').send(html);
  }

  app.get<{ Querystring: { company_id?: string; notice?: string } }>(
    '/portal/account',
    async (request, reply) => {
      const session = await currentSession(request);
      if (!session) return startSignIn(request, reply);
      const account = await deps.accounts.findAccountById(session.account_id);
      if (!account) return startSignIn(request, reply);
      return sendAccountPage(request, reply, { session, account }, await companiesOf(account.id));
    },
  );

  /**
   * A company's user centre address, /portal/c/<code>/: the bookmark that shows its brand on the
   * sign-in page and the user centre. Anyone may sign in through it (it names a look, not who may
   * enter); a person who is not a member of that company lands in their own user centre.
   */
  app.get<{ Params: { code: string }; Querystring: { company_id?: string; notice?: string } }>(
    `${COMPANY_ADDRESS_PATH}/:code/`,
    async (request, reply) => {
      const brand = deps.brandOfCode ? await deps.brandOfCode(request.params.code) : null;
      if (!brand) {
        const message = portalPhrases[request.lang].account.noSuchCompany;
        return reply
          .status(404)
          .type('text/html; charset=utf-8')
          .send(renderErrorPage(userCentreContext(request), { message }));
      }
      const home = companyAddress(brand.companyCode);
      wearPageBrand(request, brand);
      remembered.remember(reply, brand.companyCode);
      const session = await currentSession(request);
      const account = session && (await deps.accounts.findAccountById(session.account_id));
      if (!session || !account)
        return startSignIn(request, reply, { returnTo: home, companyCode: brand.companyCode });
      const companies = await companiesOf(account.id);
      if (!companies.some((c) => c.id === brand.companyId)) {
        const own = companies[0];
        return reply.redirect(own ? companyAddress(own.code) : '/portal/account');
      }
      return sendAccountPage(request, reply, { session, account }, companies, {
        companyId: brand.companyId,
        home,
      });
    },
  );
  app.get<{ Params: { code: string } }>(`${COMPANY_ADDRESS_PATH}/:code`, (request, reply) =>
    reply.redirect(companyAddress(request.params.code)),
  );

  app.post<{ Body: { csrf?: string } }>('/portal/logout', async (request, reply) => {
    const session = await currentSession(request);
    reply.clearCookie(SESSION_COOKIE, cookieOptions);
    if (!session) return reply.redirect('/portal/account', 303);
    const csrf = request.body?.csrf;
    if (typeof csrf !== 'string' || !safeEqual(csrf, deps.sealer.hmac('portal-logout', session.id))) {
      return reply.redirect('/portal/account', 303);
    }
    const stored = await deps.sessions.findSessionById(session.id);
    await deps.sessions.revokeSession(session.id);
    // End the single sign-on session too; the provider confirms and then shows "signed out".
    const url = new URL(`${deps.issuer}/session/end`);
    url.searchParams.set('client_id', client.clientId);
    if (stored?.id_token) url.searchParams.set('id_token_hint', stored.id_token);
    return reply.redirect(url.toString(), 303);
  });

  /** The person signed in to the user centre (for the routes of other modules). */
  async function signedIn(request: FastifyRequest) {
    const session = await currentSession(request);
    const account = session && (await deps.accounts.findAccountById(session.account_id));
    return session && account ? { sessionId: session.id, account } : undefined;
  }

  // The own password change (password-change.routes.ts).
  passwordChangeRoutes(app, {
    db: deps.db,
    sealer: deps.sealer,
    signedIn,
    startSignIn: (request, reply) => startSignIn(request, reply),
    setSessionCookie: (reply, token) =>
      reply.setCookie(SESSION_COOKIE, token, { ...cookieOptions, maxAge: deps.lifetimes.absoluteSeconds }),
    clientId: PORTAL_CLIENT_ID,
  });

  return { startSignIn, signedIn };
}

export type PortalSignIn = ReturnType<typeof portalRoutes>['startSignIn'];
