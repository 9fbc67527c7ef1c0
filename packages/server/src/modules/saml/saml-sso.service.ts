import { createHash } from 'node:crypto';
import { samlBindingUris, samlLimits, samlNameIdFormatUris } from '@tessera/contract';
import type { Element } from '@xmldom/xmldom';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.ts';
import type { Account, App } from '../../db/schema.ts';
import type { AppSamlConfig } from '../../db/schema-saml.ts';
import { randomToken, type Sealer } from '../../lib/crypto.ts';
import type { AppAccessRefusal } from '../app/app-access.ts';
import { finishInternalSignIn } from '../app/protocol-app.ts';
import type { TokenEndpoint } from '../session/session.service.ts';
import { consumeFlow, findLiveSamlSession, findSamlApp, insertFlow, saveSamlSession } from './saml.repo.ts';
import { attributeValues } from './saml-attributes.ts';
import { buildErrorResponse, buildResponse, type Outgoing, postForm } from './saml-build.ts';
import type { SamlKeys } from './saml-keys.ts';
import { idpEndpoints, SAML_MOUNT } from './saml-metadata.ts';
import { receiveMessage } from './saml-receive.ts';
import { attributeOf, NS, newSamlId, onlyChild, SamlInputError, STATUS } from './saml-xml.ts';

export const SAML_CALLBACK_PATH = `${SAML_MOUNT}/callback`;
const FLOW_PURPOSE = 'saml-flow';
const FLOW_TTL_MS = 10 * 60_000;

/** The cookie that binds a sign-in under way to the browser that started it. */
export const flowCookieName = (flowId: string) => `tessera_saml_${flowId.slice(0, 16)}`;

export interface SamlSsoDeps {
  db: Db;
  sealer: Sealer;
  keys: SamlKeys;
  publicUrl: string;
  /** The OIDC provider's issuer: SAML sign-ins are authorizations of the app's internal client. */
  issuer: string;
  tokenEndpoint: TokenEndpoint;
  findAccount(id: string): Promise<Account | undefined>;
  departmentPaths(companyId: string, accountId: string): Promise<string[]>;
}

/** Where a sign-in starts: the provider's authorization, with the cookie to set. */
export interface Started {
  authorizeUrl: string;
  cookie: { name: string; value: string };
}

export type Finished =
  | { kind: 'post'; app: App; message: Outgoing }
  | { kind: 'refused'; app: App; cause: AppAccessRefusal }
  | { kind: 'no_email'; app: App }
  | { kind: 'back_to_portal' };

/** The Assertion Consumer Service a request names (by URL or index), or the default one. */
function chooseAcs(config: AppSamlConfig, message: Element): string {
  const url = attributeOf(message, 'AssertionConsumerServiceURL');
  const index = attributeOf(message, 'AssertionConsumerServiceIndex');
  const binding = attributeOf(message, 'ProtocolBinding');
  if (binding !== undefined && binding !== samlBindingUris.post)
    throw new SamlInputError('unsupported', `ProtocolBinding ${binding}`);
  if (url !== undefined && index !== undefined) throw new SamlInputError('malformed', 'ACS URL and index');
  if (url !== undefined) {
    if (!config.acs.some((acs) => acs.url === url)) throw new SamlInputError('acs_not_registered', url);
    return url;
  }
  if (index !== undefined) {
    const found = config.acs.find((acs) => String(acs.index) === index);
    if (!found) throw new SamlInputError('acs_not_registered', `index ${index}`);
    return found.url;
  }
  return defaultAcs(config);
}

const defaultAcs = (config: AppSamlConfig): string => {
  const sorted = [...config.acs].sort((a, b) => a.index - b.index);
  const chosen = config.acs.find((acs) => acs.isDefault) ?? sorted[0];
  if (!chosen) throw new SamlInputError('unknown_service_provider', 'no ACS');
  return chosen.url;
};

/**
 * SAML sign-in (SP-initiated over HTTP-Redirect and HTTP-POST, and IdP-initiated from "My apps").
 * A SAML sign-in is an authorization of the application's internal OIDC client
 * (app-clients.ts): the person signs in on the one sign-in page, or not at all when the
 * provider's single sign-on session exists, and the provider applies the same rules as to OIDC
 * apps (the app access prompt with its "no access" page, credentials changed, login events).
 * Its code comes back here, is exchanged (checking access once more), and becomes the SAML
 * Response posted to the Assertion Consumer Service.
 */
export function createSamlSso(deps: SamlSsoDeps) {
  const { db, sealer } = deps;
  const callbackUrl = `${deps.publicUrl}${SAML_CALLBACK_PATH}`;

  async function begin(
    app: App,
    flow: {
      requestId: string | null;
      acsUrl: string;
      relayState: string | undefined;
      passive: boolean;
      force: boolean;
    },
  ): Promise<Started> {
    if ((flow.relayState?.length ?? 0) > samlLimits.relayStateMax)
      throw new SamlInputError('too_large', 'RelayState');
    const id = randomToken(24);
    const verifier = randomToken(32);
    await insertFlow(db, {
      id,
      app_id: app.id,
      request_id: flow.requestId,
      acs_url: flow.acsUrl,
      relay_state: flow.relayState ?? null,
      passive: flow.passive,
      expires_at: new Date(Date.now() + FLOW_TTL_MS),
    });
    const url = new URL(`${deps.issuer}/auth`);
    url.search = new URLSearchParams({
      client_id: app.client_id,
      redirect_uri: callbackUrl,
      response_type: 'code',
      scope: 'openid',
      state: id,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      ...(flow.passive ? { prompt: 'none' } : flow.force ? { prompt: 'login' } : {}),
    }).toString();
    return {
      authorizeUrl: url.toString(),
      cookie: {
        name: flowCookieName(id),
        value: sealer.seal(JSON.stringify({ id, verifier }), FLOW_PURPOSE),
      },
    };
  }

  /** An AuthnRequest at the company's SSO endpoint; answers where the browser goes next. */
  async function startSpInitiated(
    companyId: string,
    request: FastifyRequest,
  ): Promise<{ kind: 'authorize'; started: Started } | { kind: 'respond'; app: App; message: Outgoing }> {
    const endpoints = idpEndpoints(deps.publicUrl, companyId);
    const received = await receiveMessage(db, request, {
      companyId,
      kind: 'AuthnRequest',
      endpoint: endpoints.ssoUrl,
    });
    const { app, config, message } = received;
    const acsUrl = chooseAcs(config, message);
    const policy = onlyChild(message, NS.protocol, 'NameIDPolicy');
    const format = policy && attributeOf(policy, 'Format');
    if (
      format &&
      format !== samlNameIdFormatUris.unspecified &&
      format !== samlNameIdFormatUris[config.name_id_format]
    ) {
      const key = await deps.keys.activeKey(companyId);
      const xml = buildErrorResponse(
        {
          idpEntityId: endpoints.entityId,
          acsUrl,
          inResponseTo: received.id,
          status: STATUS.requester,
          subStatus: STATUS.invalidNameIdPolicy,
        },
        key,
        config.signature_algorithm,
      );
      return { kind: 'respond', app, message: postForm('SAMLResponse', xml, acsUrl, received.relayState) };
    }
    const started = await begin(app, {
      requestId: received.id,
      acsUrl,
      relayState: received.relayState,
      passive: attributeOf(message, 'IsPassive') === 'true',
      force: attributeOf(message, 'ForceAuthn') === 'true',
    });
    return { kind: 'authorize', started };
  }

  /** A sign-in started at Tessera ("My apps"): to the default ACS, with the app's default RelayState. */
  async function startIdpInitiated(appId: string): Promise<Started> {
    const found = await findSamlApp(db, appId);
    if (!found?.config.entity_id) throw new SamlInputError('unknown_service_provider', appId);
    return begin(found.app, {
      requestId: null,
      acsUrl: defaultAcs(found.config),
      relayState: found.config.default_relay_state ?? undefined,
      passive: false,
      force: false,
    });
  }

  /** The provider's refusal as a SAML status, posted back to the service provider that asked. */
  async function refusal(
    app: App,
    config: AppSamlConfig,
    flow: { request_id: string | null; acs_url: string; relay_state: string | null },
    error: string,
  ) {
    const status =
      error === 'login_required' || error === 'interaction_required' || error === 'consent_required'
        ? STATUS.noPassive
        : error === 'access_denied'
          ? STATUS.authnFailed
          : STATUS.requestDenied;
    const key = await deps.keys.activeKey(app.company_id);
    const xml = buildErrorResponse(
      {
        idpEntityId: idpEndpoints(deps.publicUrl, app.company_id).entityId,
        acsUrl: flow.acs_url,
        inResponseTo: flow.request_id,
        status: status === STATUS.requestDenied ? STATUS.requester : STATUS.responder,
        subStatus: status,
      },
      key,
      config.signature_algorithm,
    );
    return postForm('SAMLResponse', xml, flow.acs_url, flow.relay_state);
  }

  /** The provider's answer at the callback: the SAML Response for the service provider. */
  async function finish(
    query: { code?: string; state?: string; error?: string },
    readCookie: (name: string) => string | undefined,
  ): Promise<Finished> {
    const state = query.state ?? '';
    let bound: { id?: string; verifier?: string } = {};
    try {
      const sealed = state && readCookie(flowCookieName(state));
      bound = sealed ? JSON.parse(sealer.open(sealed, FLOW_PURPOSE)) : {};
    } catch {
      bound = {};
    }
    if (!state || bound.id !== state || !bound.verifier)
      throw new SamlInputError('no_session', 'flow cookie');
    const flow = await consumeFlow(db, state);
    const found = flow && (await findSamlApp(db, flow.app_id));
    if (!flow || !found) throw new SamlInputError('no_session', 'flow');
    const { app, config } = found;
    if (query.error || !query.code) {
      if (!flow.request_id) return { kind: 'back_to_portal' };
      return { kind: 'post', app, message: await refusal(app, config, flow, query.error ?? 'server_error') };
    }
    const signIn = await finishInternalSignIn(deps, app, {
      code: query.code,
      verifier: bound.verifier,
      redirectUri: callbackUrl,
    });
    if (signIn.kind === 'refused') {
      if (signIn.cause) return { kind: 'refused', app, cause: signIn.cause };
      throw new SamlInputError('no_session', `token endpoint answered ${signIn.status}`);
    }
    const account = signIn.kind === 'signed_in' ? await deps.findAccount(signIn.accountId) : undefined;
    if (signIn.kind !== 'signed_in' || !account) throw new SamlInputError('no_session', 'SSO session');
    if (config.name_id_source === 'email' && !account.email && config.name_id_format !== 'transient')
      return { kind: 'no_email', app };
    return { kind: 'post', app, message: await respond(app, config, flow, account, signIn) };
  }

  async function respond(
    app: App,
    config: AppSamlConfig,
    flow: { request_id: string | null; acs_url: string; relay_state: string | null },
    account: Account,
    signIn: { sessionUid: string; authTime?: number; amr: string[]; ssoExpiresAt: Date | null },
  ): Promise<Outgoing> {
    const existing = await findLiveSamlSession(db, app.id, account.id, signIn.sessionUid);
    const format = samlNameIdFormatUris[config.name_id_format];
    const nameId =
      config.name_id_format === 'transient'
        ? existing?.name_id_format === format
          ? existing.name_id
          : newSamlId()
        : config.name_id_source === 'email'
          ? (account.email as string)
          : config.name_id_source === 'persistent'
            ? sealer.hmac('saml-persistent-id', `${app.id}:${account.id}`)
            : account.username;
    const expiresAt = signIn.ssoExpiresAt ?? new Date(Date.now() + 12 * 3600_000);
    const sessionIndex = existing?.id ?? newSamlId();
    await saveSamlSession(
      db,
      {
        id: sessionIndex,
        company_id: app.company_id,
        app_id: app.id,
        account_id: account.id,
        sso_session_uid: signIn.sessionUid,
        name_id: nameId,
        name_id_format: format,
        expires_at: expiresAt,
      },
      Boolean(existing),
    );
    const key = await deps.keys.activeKey(app.company_id);
    const xml = await buildResponse(
      {
        idpEntityId: idpEndpoints(deps.publicUrl, app.company_id).entityId,
        spEntityId: config.entity_id as string,
        acsUrl: flow.acs_url,
        inResponseTo: flow.request_id,
        nameId: { value: nameId, format },
        sessionIndex,
        authnInstant: new Date((signIn.authTime ?? Math.floor(Date.now() / 1000)) * 1000),
        sessionNotOnOrAfter: expiresAt,
        amr: signIn.amr,
        attributes: await attributeValues(
          db,
          deps.departmentPaths,
          app.company_id,
          account,
          config.attributes,
        ),
      },
      {
        key,
        algorithm: config.signature_algorithm,
        signResponse: config.sign_response,
        signAssertion: config.sign_assertion,
        encryptFor: config.encrypt_assertion ? config.encryption_certificate : null,
      },
    );
    return postForm('SAMLResponse', xml, flow.acs_url, flow.relay_state);
  }

  return { startSpInitiated, startIdpInitiated, finish };
}

export type SamlSso = ReturnType<typeof createSamlSso>;
