import { createHash } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import type { App } from '../../db/schema.ts';
import { randomToken, type Sealer } from '../../lib/crypto.ts';
import type { AppAccessRefusal } from '../app/app-access.ts';
import { finishInternalSignIn } from '../app/protocol-app.ts';
import type { TokenEndpoint } from '../session/session.service.ts';
import { consumeCasFlow, findCasApp, findCasAppForService, insertCasFlow, insertTicket } from './cas.repo.ts';
import { CAS_MOUNT } from './cas-config.service.ts';
import { newTicketId } from './cas-wire.ts';

export const CAS_CALLBACK_PATH = `${CAS_MOUNT}/callback`;
export const CAS_LOGOUT_RETURN_PATH = `${CAS_MOUNT}/logout/done`;
const FLOW_PURPOSE = 'cas-flow';
const LOGOUT_PURPOSE = 'cas-logout';
const FLOW_TTL_MS = 10 * 60_000;

/** The cookie that binds a sign-in under way to the browser that started it. */
export const casFlowCookieName = (flowId: string) => `tessera_cas_${flowId.slice(0, 16)}`;

export interface CasLoginDeps {
  db: Db;
  sealer: Sealer;
  publicUrl: string;
  issuer: string;
  tokenEndpoint: TokenEndpoint;
}

export interface LoginQuery {
  service?: string;
  renew?: string;
  gateway?: string;
  method?: string;
}

/** Where the browser goes from `/login`. */
export type LoginStart =
  | { kind: 'authorize'; url: string; cookie: { name: string; value: string } }
  | { kind: 'no_service' }
  | { kind: 'unknown_service' };

/** Where the browser goes from the provider's answer. */
export type LoginEnd =
  | { kind: 'redirect'; url: string }
  | { kind: 'post'; app: App; action: string; fields: Record<string, string> }
  | { kind: 'refused'; app: App; cause: AppAccessRefusal }
  | { kind: 'failed' };

/** `true`, or a parameter given without a value (`?renew`): the specification's "set". */
const isSet = (value: string | undefined) => value !== undefined && value !== 'false' && value !== '0';

const isWebAddress = (value: string) => {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password;
  } catch {
    return false;
  }
};

/** The service URL with its ticket (§2.2.4), keeping the service's own query. */
const withTicket = (service: string, ticket: string) => {
  const url = new URL(service);
  url.searchParams.append('ticket', ticket);
  return url.toString();
};

/**
 * CAS sign-in (`/login`, §2.1). Like a SAML sign-in, it is an authorization of the application's
 * internal OIDC client (app-clients.ts): the person signs in on the one sign-in page, or not at
 * all inside the provider's single sign-on session; the provider applies the app access rule and
 * writes the sign-in log event with the application. Its code comes back here, is exchanged
 * (checking access once more) and becomes a service ticket for the exact service asked for.
 */
export function createCasLogin(deps: CasLoginDeps) {
  const { db, sealer } = deps;
  const callbackUrl = `${deps.publicUrl}${CAS_CALLBACK_PATH}`;

  async function start(companyId: string, query: LoginQuery): Promise<LoginStart> {
    const service = query.service?.trim();
    if (!service) return { kind: 'no_service' };
    // A loose regular expression could allow what is no web address: the browser goes only to one.
    if (!isWebAddress(service)) return { kind: 'unknown_service' };
    const found = await findCasAppForService(db, companyId, service);
    if (!found) return { kind: 'unknown_service' };
    const renew = isSet(query.renew);
    // renew wins over gateway (§2.1.1).
    const gateway = !renew && isSet(query.gateway);
    const id = randomToken(24);
    const verifier = randomToken(32);
    await insertCasFlow(db, {
      id,
      app_id: found.app.id,
      service,
      renew,
      gateway,
      post_response: query.method?.toUpperCase() === 'POST',
      expires_at: new Date(Date.now() + FLOW_TTL_MS),
    });
    const url = new URL(`${deps.issuer}/auth`);
    url.search = new URLSearchParams({
      client_id: found.app.client_id,
      redirect_uri: callbackUrl,
      response_type: 'code',
      scope: 'openid',
      state: id,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      ...(gateway ? { prompt: 'none' } : renew ? { prompt: 'login', max_age: '0' } : {}),
    }).toString();
    return {
      kind: 'authorize',
      url: url.toString(),
      cookie: {
        name: casFlowCookieName(id),
        value: sealer.seal(JSON.stringify({ id, verifier }), FLOW_PURPOSE),
      },
    };
  }

  async function issue(
    app: App,
    flow: { service: string; renew: boolean; created_at: Date; post_response: boolean },
    signIn: { accountId: string; sessionUid: string; authTime: number },
    ttlSeconds: number,
  ): Promise<LoginEnd> {
    const ticket = newTicketId('ST');
    await insertTicket(db, {
      id: ticket,
      kind: 'ST',
      company_id: app.company_id,
      app_id: app.id,
      account_id: signIn.accountId,
      sso_session_uid: signIn.sessionUid,
      service: flow.service,
      // renew=true made the provider ask for credentials; otherwise a sign-in known to be later
      // than this /login's start (auth_time has whole seconds: the same second counts as before).
      renewed: flow.renew || signIn.authTime * 1000 > flow.created_at.getTime(),
      proxies: [],
      authenticated_at: new Date(signIn.authTime * 1000),
      expires_at: new Date(Date.now() + ttlSeconds * 1000),
    });
    if (flow.post_response) return { kind: 'post', app, action: flow.service, fields: { ticket } };
    return { kind: 'redirect', url: withTicket(flow.service, ticket) };
  }

  /** The provider's answer at the callback: the service with its ticket. */
  async function finish(
    query: { code?: string; state?: string; error?: string },
    readCookie: (name: string) => string | undefined,
  ): Promise<LoginEnd> {
    const state = query.state ?? '';
    let bound: { id?: string; verifier?: string } = {};
    try {
      const sealed = state && readCookie(casFlowCookieName(state));
      bound = sealed ? JSON.parse(sealer.open(sealed, FLOW_PURPOSE)) : {};
    } catch {
      bound = {};
    }
    if (!state || bound.id !== state || !bound.verifier) return { kind: 'failed' };
    const flow = await consumeCasFlow(db, state);
    const found = flow && (await findCasApp(db, flow.app_id));
    if (!flow || !found) return { kind: 'failed' };
    const { app, config } = found;
    if (query.error || !query.code) {
      // gateway=true: back to the service without a ticket, whatever the reason (§2.1.1).
      if (flow.gateway) return { kind: 'redirect', url: flow.service };
      return { kind: 'failed' };
    }
    const signIn = await finishInternalSignIn(deps, app, {
      code: query.code,
      verifier: bound.verifier,
      redirectUri: callbackUrl,
    });
    if (signIn.kind === 'refused') {
      if (flow.gateway) return { kind: 'redirect', url: flow.service };
      return signIn.cause ? { kind: 'refused', app, cause: signIn.cause } : { kind: 'failed' };
    }
    if (signIn.kind === 'no_session') return { kind: 'failed' };
    return issue(
      app,
      flow,
      {
        accountId: signIn.accountId,
        sessionUid: signIn.sessionUid,
        authTime: signIn.authTime ?? Math.floor(Date.now() / 1000),
      },
      config.ticket_ttl,
    );
  }

  /**
   * `/logout` (§2.3): the provider's sign-out (which sends single logout to every CAS service of
   * the session), then back to the service when one of the company's CAS applications allows it.
   */
  async function logoutUrl(companyId: string, service: string | undefined): Promise<string> {
    const url = new URL(`${deps.issuer}/session/end`);
    const found = service ? await findCasAppForService(db, companyId, service) : undefined;
    if (found && service)
      url.search = new URLSearchParams({
        client_id: found.app.client_id,
        post_logout_redirect_uri: `${deps.publicUrl}${CAS_LOGOUT_RETURN_PATH}`,
        state: sealer.seal(JSON.stringify({ companyId, service }), LOGOUT_PURPOSE),
      }).toString();
    return url.toString();
  }

  /** Back from the provider's sign-out: the service, if it is still allowed. */
  async function afterLogout(state: string | undefined): Promise<string | null> {
    try {
      const { companyId, service } = JSON.parse(sealer.open(state ?? '', LOGOUT_PURPOSE));
      return (await findCasAppForService(db, companyId, service)) ? service : null;
    } catch {
      return null;
    }
  }

  return { start, finish, logoutUrl, afterLogout };
}

export type CasLogin = ReturnType<typeof createCasLogin>;
