import type { ErrorReason } from '@tessera/contract';
import { decodeJwt } from 'jose';
import type { Db } from '../../db/database.ts';
import type { App } from '../../db/schema.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import type { TokenEndpoint } from '../session/session.service.ts';
import { type AppAccessRefusal, appAccessRefusal } from './app-access.ts';
import { CLIENT_SECRET_PURPOSE } from './app-clients.ts';
import { findAuthorizationCode, findCompanyApp, findSsoSession } from './internal-client.repo.ts';

/**
 * What the protocols built on an application's internal OIDC client (SAML, CAS) share: the end
 * of a sign-in at their callback, and the opening of their settings calls.
 */

/** How the provider's answer at a protocol's callback ended. */
export type InternalSignIn =
  | {
      kind: 'signed_in';
      accountId: string;
      sessionUid: string;
      authTime?: number;
      amr: string[];
      ssoExpiresAt: Date | null;
    }
  /** The provider did not exchange the code; `cause` is why the access rule refuses, if it does. */
  | { kind: 'refused'; cause: AppAccessRefusal | null; status: number }
  /** The code's single sign-on session is gone or is another person's. */
  | { kind: 'no_session' };

/**
 * Exchanges the code the provider gave the application's internal client (checking access once
 * more), and answers who signed in within which single sign-on session. A refused exchange asks
 * the access rule why (the provider logged the refusal already).
 */
export async function finishInternalSignIn(
  deps: { db: Db; sealer: Sealer; tokenEndpoint: TokenEndpoint },
  app: App,
  exchange: { code: string; verifier: string; redirectUri: string },
): Promise<InternalSignIn> {
  const { db } = deps;
  const code = await findAuthorizationCode(db, exchange.code);
  const exchanged = await deps.tokenEndpoint(
    {
      grant_type: 'authorization_code',
      code: exchange.code,
      code_verifier: exchange.verifier,
      redirect_uri: exchange.redirectUri,
    },
    {
      clientId: app.client_id,
      clientSecret: deps.sealer.open(app.client_secret_sealed, CLIENT_SECRET_PURPOSE),
    },
  );
  const sub =
    exchanged.status === 200 && typeof exchanged.body.id_token === 'string'
      ? decodeJwt(exchanged.body.id_token).sub
      : undefined;
  if (!sub || sub !== code?.accountId) {
    // The provider refused the code: access taken away in the meantime (it logged why).
    const cause = code?.accountId ? await appAccessRefusal(db, app, code.accountId) : null;
    return { kind: 'refused', cause, status: exchanged.status };
  }
  const sso = code.sessionUid ? await findSsoSession(db, code.sessionUid) : undefined;
  if (!code.sessionUid || !sso || sso.accountId !== sub) return { kind: 'no_session' };
  return {
    kind: 'signed_in',
    accountId: sub,
    sessionUid: code.sessionUid,
    authTime: code.authTime,
    amr: code.amr,
    ssoExpiresAt: sso.expiresAt,
  };
}

/**
 * The opening of a protocol's settings calls: the company's application (locked for a change),
 * which must be of the protocol, with its settings or, before the first save, `blank` ones.
 */
export async function protocolSettingsOf<Config>(
  db: Db,
  companyId: string,
  appId: string,
  protocol: {
    name: App['protocol'];
    /** The error when the application is of another protocol. */
    otherProtocol: ErrorReason;
    findSettings(db: Db, appId: string): Promise<Config | undefined>;
    blank(appId: string, companyId: string): Config;
  },
  lock = false,
): Promise<{ app: App; config: Config }> {
  const app = await findCompanyApp(db, companyId, appId, lock);
  if (!app) throw new AppError('app.not_found');
  if (app.protocol !== protocol.name) throw new AppError(protocol.otherProtocol);
  return { app, config: (await protocol.findSettings(db, app.id)) ?? protocol.blank(app.id, companyId) };
}
