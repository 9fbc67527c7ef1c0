import { type CasAttributeSource, casServiceMatches } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import type { Account } from '../../db/schema.ts';
import type { OutboundPolicy } from '../../lib/outbound-address.ts';
import { appAccessRefusal, logAppSignIn } from '../app/app-access.ts';
import { findSsoSession } from '../app/internal-client.repo.ts';
import {
  consumeTicket,
  findCasApp,
  findCasAppForService,
  findLivePgt,
  insertTicket,
  markValidated,
  ticketKindOf,
} from './cas.repo.ts';
import { type Authentication, CasFailure, newTicketId } from './cas-wire.ts';

/** Which validation endpoint was called (§2.4–2.6, §2.8–2.9). */
export type Endpoint =
  | 'validate'
  | 'serviceValidate'
  | 'proxyValidate'
  | 'p3/serviceValidate'
  | 'p3/proxyValidate';

export interface ValidationParams {
  service?: string;
  ticket?: string;
  pgtUrl?: string;
  renew?: string;
}

export interface CasValidateDeps {
  db: Db;
  outbound: OutboundPolicy;
  findAccount(id: string): Promise<Account | undefined>;
  departmentPaths(companyId: string, accountId: string): Promise<string[]>;
  /** The `permissions` claim: resource name → allowed actions. */
  permissions(
    app: { appId: string; companyId: string },
    accountId: string,
  ): Promise<Record<string, string[]>>;
}

/** A proxy callback gets this long to answer (§2.5.4). */
const CALLBACK_TIMEOUT_MS = 3_000;
/** A proxy-granting ticket lives as long as the sign-on session, at most this long. */
const PGT_MAX_MS = 8 * 3600_000;

const isSet = (value: string | undefined) => value !== undefined && value !== 'false' && value !== '0';

/**
 * A proxy callback address: https (http on localhost only, for development), no credentials,
 * and one the application's service URL patterns allow.
 */
function callbackAllowed(pgtUrl: string, patterns: Parameters<typeof casServiceMatches>[0][]): boolean {
  let url: URL;
  try {
    url = new URL(pgtUrl);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  const local = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local)) return false;
  return patterns.some((pattern) => casServiceMatches(pattern, pgtUrl));
}

/**
 * Ticket validation and proxy tickets. A ticket is used up by its first validation, whatever the
 * answer (one atomic statement: of parallel validations exactly one gets it); then it must be
 * for this company and service, not expired, from a fresh sign-in when `renew` asks, and the
 * person must still be allowed into the application with their sign-on session alive.
 */
export function createCasValidation(deps: CasValidateDeps) {
  const { db } = deps;

  async function attributesOf(
    app: { id: string; company_id: string },
    account: Account,
    sources: readonly CasAttributeSource[],
    ticket: { renewed: boolean; authenticated_at: Date },
  ): Promise<Record<string, string[]>> {
    const out: Record<string, string[]> = {
      authenticationDate: [ticket.authenticated_at.toISOString()],
      isFromNewLogin: [String(ticket.renewed)],
      longTermAuthenticationRequestTokenUsed: ['false'],
    };
    const put = (name: string, values: (string | null)[]) => {
      const present = values.filter((value): value is string => Boolean(value));
      if (present.length) out[name] = present;
    };
    for (const source of sources) {
      if (source === 'username') put('username', [account.username]);
      if (source === 'name') put('name', [account.display_name ?? account.username]);
      if (source === 'email') put('email', [account.email]);
      if (source === 'phone') put('phone', [account.phone]);
      if (source === 'departments')
        put('departments', await deps.departmentPaths(app.company_id, account.id));
      if (source === 'permissions') {
        const claim = await deps.permissions({ appId: app.id, companyId: app.company_id }, account.id);
        put(
          'permissions',
          Object.entries(claim).flatMap(([resource, actions]) =>
            actions.map((action) => `${resource}:${action}`),
          ),
        );
      }
    }
    return out;
  }

  /** Asks the proxy callback to take a proxy-granting ticket (§2.5.4); its IOU when it answered 200. */
  async function grantProxy(
    pgtUrl: string,
    ticket: Parameters<typeof insertTicket>[1],
  ): Promise<string | undefined> {
    const pgtId = newTicketId('PGT');
    const pgtIou = newTicketId('PGTIOU');
    const url = new URL(pgtUrl);
    url.searchParams.append('pgtId', pgtId);
    url.searchParams.append('pgtIou', pgtIou);
    try {
      const response = await deps.outbound.fetch(url, {
        redirect: 'manual',
        signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS),
      });
      await response.body?.cancel();
      if (response.status !== 200) return undefined;
    } catch {
      return undefined;
    }
    await insertTicket(db, { ...ticket, id: pgtId });
    return pgtIou;
  }

  async function validate(
    companyId: string,
    endpoint: Endpoint,
    params: ValidationParams,
  ): Promise<Authentication> {
    const { service, ticket: ticketId, pgtUrl } = params;
    if (!service || !ticketId)
      throw new CasFailure('INVALID_REQUEST', "'service' and 'ticket' parameters are both required");
    const proxyEndpoint = endpoint.endsWith('proxyValidate');
    const ticket = await consumeTicket(db, ticketId, proxyEndpoint ? ['ST', 'PT'] : ['ST']);
    if (!ticket) {
      if (!proxyEndpoint && (await ticketKindOf(db, ticketId)) === 'PT')
        throw new CasFailure(
          'INVALID_TICKET_SPEC',
          `Ticket ${ticketId} is a proxy ticket; validate it at /proxyValidate`,
        );
      throw new CasFailure('INVALID_TICKET', `Ticket ${ticketId} not recognized`);
    }
    if (ticket.company_id !== companyId || ticket.expired)
      throw new CasFailure('INVALID_TICKET', `Ticket ${ticketId} not recognized`);
    if (ticket.service !== service)
      throw new CasFailure('INVALID_SERVICE', `Ticket ${ticketId} does not match supplied service`);
    if (isSet(params.renew) && !ticket.renewed)
      throw new CasFailure('INVALID_TICKET', `Ticket ${ticketId} was not issued from a new sign-in`);
    const found = await findCasApp(db, ticket.app_id);
    const account = await deps.findAccount(ticket.account_id);
    const sso = await findSsoSession(db, ticket.sso_session_uid);
    if (!found || !account || account.status !== 'enabled' || sso?.accountId !== account.id)
      throw new CasFailure('INVALID_TICKET', `Ticket ${ticketId} not recognized`);
    const { app, config } = found;
    const cause = await appAccessRefusal(db, app, account.id);
    if (cause) {
      await logAppSignIn(db, {
        companyId,
        clientId: app.client_id,
        accountId: account.id,
        username: account.username,
        cause,
        ip: null,
        userAgent: null,
      });
      throw new CasFailure(
        'INVALID_TICKET',
        `Ticket ${ticketId} is for an application the person may not use`,
      );
    }
    let proxyGrantingTicketIou: string | undefined;
    if (pgtUrl) {
      if (!config.allow_proxy)
        throw new CasFailure(
          'UNAUTHORIZED_SERVICE_PROXY',
          'The service is not allowed to use proxy authentication',
        );
      if (!callbackAllowed(pgtUrl, config.service_patterns) || (await deps.outbound.refusesUrl(pgtUrl)))
        throw new CasFailure('INVALID_PROXY_CALLBACK', `The proxy callback ${pgtUrl} is not allowed`);
      proxyGrantingTicketIou = await grantProxy(pgtUrl, {
        id: '',
        kind: 'PGT',
        company_id: companyId,
        app_id: app.id,
        account_id: account.id,
        sso_session_uid: ticket.sso_session_uid,
        service: pgtUrl,
        renewed: false,
        proxies: [pgtUrl, ...ticket.proxies],
        authenticated_at: ticket.authenticated_at,
        expires_at: new Date(
          Math.min(sso.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY, Date.now() + PGT_MAX_MS),
        ),
      });
    }
    if (ticket.kind === 'ST') await markValidated(db, ticket.id);
    return {
      user: account.username,
      ...(endpoint.startsWith('p3/')
        ? { attributes: await attributesOf(app, account, config.attributes, ticket) }
        : {}),
      ...(proxyGrantingTicketIou ? { proxyGrantingTicketIou } : {}),
      ...(ticket.kind === 'PT' ? { proxies: ticket.proxies } : {}),
    };
  }

  /** `/proxy` (§2.7): a proxy ticket for a target service, from a proxy-granting ticket. */
  async function proxy(companyId: string, params: { pgt?: string; targetService?: string }): Promise<string> {
    const { pgt: pgtId, targetService } = params;
    if (!pgtId || !targetService)
      throw new CasFailure('INVALID_REQUEST', "'pgt' and 'targetService' parameters are both required");
    const pgt = await findLivePgt(db, pgtId);
    if (!pgt || pgt.company_id !== companyId)
      throw new CasFailure('INVALID_TICKET', `Ticket ${pgtId} not recognized`);
    const source = await findCasApp(db, pgt.app_id);
    const target = await findCasAppForService(db, companyId, targetService);
    const sso = await findSsoSession(db, pgt.sso_session_uid);
    if (!source?.config.allow_proxy || !target || sso?.accountId !== pgt.account_id)
      throw new CasFailure('UNAUTHORIZED_SERVICE', `The service ${targetService} cannot be proxied to`);
    const cause = await appAccessRefusal(db, target.app, pgt.account_id);
    if (cause)
      throw new CasFailure('UNAUTHORIZED_SERVICE', `The service ${targetService} cannot be proxied to`);
    const proxyTicket = newTicketId('PT');
    await insertTicket(db, {
      id: proxyTicket,
      kind: 'PT',
      company_id: companyId,
      app_id: target.app.id,
      account_id: pgt.account_id,
      sso_session_uid: pgt.sso_session_uid,
      service: targetService,
      renewed: false,
      proxies: pgt.proxies,
      authenticated_at: pgt.authenticated_at,
      expires_at: new Date(Date.now() + target.config.ticket_ttl * 1000),
    });
    return proxyTicket;
  }

  return { validate, proxy };
}

export type CasValidation = ReturnType<typeof createCasValidation>;
