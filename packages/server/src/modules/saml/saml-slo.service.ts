import type { FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { App } from '../../db/schema.ts';
import type { AppSamlConfig } from '../../db/schema-saml.ts';
import { randomToken, type Sealer } from '../../lib/crypto.ts';
import { findSsoSession } from '../app/internal-client.repo.ts';
import {
  consumeLogoutRequest,
  endSamlSession,
  findLogoutChain,
  findSamlApp,
  findSessionForLogout,
  sessionsOfSso,
  takeNextForLogout,
} from './saml.repo.ts';
import { buildLogoutRequest, buildLogoutResponse, type Outgoing, outgoing } from './saml-build.ts';
import type { SamlKeys } from './saml-keys.ts';
import { idpEndpoints, SAML_MOUNT } from './saml-metadata.ts';
import { receiveMessage } from './saml-receive.ts';
import {
  attributeOf,
  childElements,
  NS,
  newSamlId,
  onlyChild,
  SamlInputError,
  STATUS,
  textOf,
} from './saml-xml.ts';

export const SAML_LOGOUT_NEXT_PATH = `${SAML_MOUNT}/logout/next`;
export const SAML_LOGOUT_RETURN_PATH = `${SAML_MOUNT}/logout/return`;
const RETURN_PURPOSE = 'saml-logout-return';
const CHAIN_TTL_MS = 10 * 60_000;

export type LogoutStep =
  | { kind: 'redirect'; url: string }
  | { kind: 'send'; app: App; message: Outgoing }
  | { kind: 'done'; app?: App };

/**
 * Single logout. IdP-initiated: when the provider's single sign-on session ends (a sign-out at
 * Tessera, at an OIDC application, or at a SAML one), the browser goes through every service
 * provider the session signed in to, each told by a LogoutRequest and answering with a
 * LogoutResponse, then on to where the provider was sending it. SP-initiated: a service
 * provider's LogoutRequest ends its own session and sends the person to the provider's sign-out
 * (the same page as for OIDC applications), which ends the single sign-on session and the others;
 * the LogoutResponse goes back to the service provider last.
 */
export function createSamlSlo(deps: {
  db: Db;
  sealer: Sealer;
  keys: SamlKeys;
  publicUrl: string;
  issuer: string;
}) {
  const { db, sealer } = deps;

  /**
   * Called as the provider ends a single sign-on session: where the browser goes instead of
   * `next` while service providers of the session are to be told; undefined when none are.
   */
  async function afterSsoLogout(ssoSessionUid: string, accountId: string, next: string) {
    if (!(await sessionsOfSso(db, ssoSessionUid, accountId)).length) return undefined;
    const id = randomToken(16);
    await db
      .insertInto('saml_logout_chains')
      .values({
        id,
        sso_session_uid: ssoSessionUid,
        account_id: accountId,
        next_url: next,
        expires_at: new Date(Date.now() + CHAIN_TTL_MS),
      })
      .execute();
    return `${deps.publicUrl}${SAML_LOGOUT_NEXT_PATH}?chain=${id}`;
  }

  /** The next service provider to tell, or the end of the chain. */
  async function continueChain(chainId: string): Promise<LogoutStep> {
    const chain = await db
      .selectFrom('saml_logout_chains')
      .selectAll()
      .where('id', '=', chainId)
      .where('expires_at', '>', sql<Date>`now()`)
      .executeTakeFirst();
    if (!chain) return { kind: 'done' };
    for (;;) {
      const requestId = newSamlId();
      const session = await takeNextForLogout(db, chain.sso_session_uid, chain.account_id, requestId);
      if (!session) {
        await db.deleteFrom('saml_logout_chains').where('id', '=', chain.id).execute();
        return { kind: 'redirect', url: chain.next_url };
      }
      const found = await findSamlApp(db, session.app_id);
      if (!found?.config.slo_url) continue;
      const { app, config } = found;
      const key = await deps.keys.activeKey(app.company_id);
      const xml = buildLogoutRequest({
        id: requestId,
        idpEntityId: idpEndpoints(deps.publicUrl, app.company_id).entityId,
        destination: config.slo_url as string,
        nameId: { value: session.name_id, format: session.name_id_format },
        sessionIndex: session.id,
      });
      const message = outgoing({
        xml,
        binding: config.slo_binding,
        parameter: 'SAMLRequest',
        destination: config.slo_url as string,
        relayState: chain.id,
        key,
        algorithm: config.signature_algorithm,
      });
      return { kind: 'send', app, message };
    }
  }

  async function logoutResponse(
    app: App,
    config: AppSamlConfig,
    inResponseTo: string,
    relayState: string | undefined,
    partial: boolean,
  ): Promise<LogoutStep> {
    const destination = config.slo_response_url ?? config.slo_url;
    if (!destination) return { kind: 'done', app };
    const key = await deps.keys.activeKey(app.company_id);
    const xml = buildLogoutResponse({
      idpEntityId: idpEndpoints(deps.publicUrl, app.company_id).entityId,
      destination,
      inResponseTo,
      partial,
    });
    const message = outgoing({
      xml,
      binding: config.slo_binding,
      parameter: 'SAMLResponse',
      destination,
      relayState,
      key,
      algorithm: config.signature_algorithm,
    });
    return { kind: 'send', app, message };
  }

  /** A service provider's LogoutRequest (SP-initiated single logout). */
  async function receiveLogoutRequest(companyId: string, request: FastifyRequest): Promise<LogoutStep> {
    const endpoint = idpEndpoints(deps.publicUrl, companyId).sloUrl;
    const received = await receiveMessage(db, request, { companyId, kind: 'LogoutRequest', endpoint });
    const { app, config, message } = received;
    const nameIdElement = onlyChild(message, NS.assertion, 'NameID');
    if (!nameIdElement) throw new SamlInputError('unsupported', 'a LogoutRequest without a plain NameID');
    const nameId = textOf(nameIdElement);
    const indexes = childElements(message, NS.protocol, 'SessionIndex').map(textOf);
    const session = await findSessionForLogout(db, app.id, nameId, indexes);
    const live =
      session && (await findSsoSession(db, session.sso_session_uid))?.accountId === session.account_id;
    if (session) await endSamlSession(db, session.id);
    if (!session || !live) return logoutResponse(app, config, received.id, received.relayState, false);
    const state = sealer.seal(
      JSON.stringify({
        appId: app.id,
        requestId: received.id,
        relayState: received.relayState,
        ssoSessionUid: session.sso_session_uid,
        accountId: session.account_id,
        expiresAt: Date.now() + CHAIN_TTL_MS,
      }),
      RETURN_PURPOSE,
    );
    const url = new URL(`${deps.issuer}/session/end`);
    url.search = new URLSearchParams({
      client_id: app.client_id,
      post_logout_redirect_uri: `${deps.publicUrl}${SAML_LOGOUT_RETURN_PATH}`,
      state,
    }).toString();
    return { kind: 'redirect', url: url.toString() };
  }

  /** Back from the provider's sign-out: the LogoutResponse for the service provider that asked. */
  async function returnAfterLogout(state: string | undefined): Promise<LogoutStep> {
    let opened: {
      appId: string;
      requestId: string;
      relayState?: string;
      ssoSessionUid: string;
      accountId: string;
      expiresAt: number;
    };
    try {
      opened = JSON.parse(sealer.open(state ?? '', RETURN_PURPOSE));
    } catch {
      return { kind: 'done' };
    }
    const found = opened.expiresAt > Date.now() ? await findSamlApp(db, opened.appId) : undefined;
    if (!found) return { kind: 'done' };
    // The person chose to stay signed in to Tessera: the service provider's session ended alone.
    const partial = (await findSsoSession(db, opened.ssoSessionUid))?.accountId === opened.accountId;
    return logoutResponse(found.app, found.config, opened.requestId, opened.relayState, partial);
  }

  /** A service provider's LogoutResponse within a chain: the chain goes on. */
  async function receiveLogoutResponse(companyId: string, request: FastifyRequest): Promise<LogoutStep> {
    const endpoint = idpEndpoints(deps.publicUrl, companyId).sloUrl;
    const received = await receiveMessage(db, request, { companyId, kind: 'LogoutResponse', endpoint });
    const inResponseTo = attributeOf(received.message, 'InResponseTo');
    // Answers only a LogoutRequest Tessera sent and is still waiting for: once.
    const session = inResponseTo && (await consumeLogoutRequest(db, received.app.id, inResponseTo));
    if (!session) throw new SamlInputError('replayed', `InResponseTo ${inResponseTo ?? 'missing'}`);
    const status = onlyChild(received.message, NS.protocol, 'Status');
    const code = status && onlyChild(status, NS.protocol, 'StatusCode');
    if ((code && attributeOf(code, 'Value')) !== STATUS.success)
      request.log.warn({ app: received.app.id }, 'a service provider did not confirm single logout');
    // The chain is the one of the session the request ended (a service provider that drops the
    // RelayState does not stop the others from being told).
    const chain = await findLogoutChain(db, session.sso_session_uid, session.account_id);
    return chain ? continueChain(chain.id) : { kind: 'done', app: received.app };
  }

  return { afterSsoLogout, continueChain, receiveLogoutRequest, receiveLogoutResponse, returnAfterLogout };
}

export type SamlSlo = ReturnType<typeof createSamlSlo>;
