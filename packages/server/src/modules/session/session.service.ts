import type { ConsoleVariant } from '@tessera/contract';
import { decodeJwt } from 'jose';
import type { ConsoleSession } from '../../db/schema.ts';
import type { AuthSession } from '../../http/bind.ts';
import { randomToken, type Sealer, sha256 } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { AccountsRepo } from '../account/account.repo.ts';
import type { ConsoleClient } from './console-clients.ts';
import type { SessionsRepo } from './session.repo.ts';

/** Calls the provider's token endpoint in-process; returns its status and JSON body. */
export type TokenEndpoint = (
  params: Record<string, string>,
  client: { clientId: string; clientSecret: string },
) => Promise<{ status: number; body: Record<string, unknown> }>;

export interface SessionServiceDeps {
  sessions: SessionsRepo;
  accounts: AccountsRepo;
  sealer: Sealer;
  clients: ConsoleClient[];
  issuer: string;
  tokenEndpoint: TokenEndpoint;
  lifetimes: { idleSeconds: number; absoluteSeconds: number };
}

const REFRESH_PURPOSE = 'console-refresh-token';
/** A user-centre session cookie is no console token. */
const CONSOLE_VARIANTS = ['admin', 'dev'] as const;
/** Touching a session on every request would write on every read; once a minute is enough. */
const TOUCH_INTERVAL_MS = 60_000;

export function createSessionService(deps: SessionServiceDeps) {
  const { sessions, accounts, sealer, lifetimes } = deps;
  const clientOf = (variant: ConsoleVariant) => {
    const client = deps.clients.find((c) => c.variant === variant);
    if (!client) throw new Error(`no console client for ${variant}`);
    return client;
  };
  const idleExpiry = () => new Date(Date.now() + lifetimes.idleSeconds * 1000);
  /** What a token answer says about its session's expiries (spec §7: refresh before the idle one). */
  const lifetimeOf = (absoluteExpiresAt: Date) => {
    const sessionExpiresIn = Math.max(0, Math.floor((absoluteExpiresAt.getTime() - Date.now()) / 1000));
    return { expiresIn: Math.min(lifetimes.idleSeconds, sessionExpiresIn), sessionExpiresIn };
  };

  function ssoConfig(variant: ConsoleVariant) {
    const client = clientOf(variant);
    return {
      issuer: deps.issuer,
      authorizationEndpoint: `${deps.issuer}/auth`,
      endSessionEndpoint: `${deps.issuer}/session/end`,
      clientId: client.clientId,
      redirectUri: client.redirectUri,
      scope: client.scope,
      codeChallengeMethod: 'S256' as const,
    };
  }

  async function exchangeCode(variant: ConsoleVariant, code: string, codeVerifier: string) {
    const client = clientOf(variant);
    const { status, body } = await deps.tokenEndpoint(
      {
        grant_type: 'authorization_code',
        code,
        code_verifier: codeVerifier,
        redirect_uri: client.redirectUri,
      },
      client,
    );
    if (status !== 200 || typeof body.id_token !== 'string') throw new AppError('sso.code_invalid');
    // The ID token comes straight from our own token endpoint over an in-process call.
    const sub = decodeJwt(body.id_token).sub;
    const account = sub ? await accounts.findAccountById(sub) : undefined;
    if (account?.status !== 'enabled') throw new AppError('auth.login_required');
    if (variant === 'admin' && !account.is_platform_admin) throw new AppError('sso.platform_admin_only');

    const token = randomToken();
    const absoluteExpiresAt = new Date(Date.now() + lifetimes.absoluteSeconds * 1000);
    await sessions.insertSession({
      id: newId(),
      token_hash: sha256(token),
      account_id: account.id,
      variant,
      id_token: body.id_token,
      refresh_token_sealed:
        typeof body.refresh_token === 'string' ? sealer.seal(body.refresh_token, REFRESH_PURPOSE) : null,
      idle_expires_at: idleExpiry(),
      absolute_expires_at: absoluteExpiresAt,
    });
    return { token, username: account.username, ...lifetimeOf(absoluteExpiresAt) };
  }

  /** What refresh needs of an authenticated session, read with it (refresh reads nothing again). */
  const storedOf = new WeakMap<
    AuthSession,
    Pick<ConsoleSession, 'refresh_token_sealed' | 'id_token' | 'absolute_expires_at'>
  >();

  async function authenticate(token: string): Promise<AuthSession | null> {
    if (token.length > 256) return null;
    const row = await sessions.findLiveSessionByTokenHash(sha256(token), CONSOLE_VARIANTS);
    if (!row) return null;
    if (Date.now() - row.last_seen_at.getTime() > TOUCH_INTERVAL_MS) {
      await sessions.touchSession(row.id, idleExpiry());
    }
    const session: AuthSession = {
      sessionId: row.id,
      accountId: row.account_id,
      username: row.username,
      variant: row.variant as ConsoleVariant,
      isPlatformAdmin: row.is_platform_admin,
    };
    storedOf.set(session, row);
    return session;
  }

  /**
   * Replaces the console token. The single sign-on grant behind it is refreshed too, so a
   * revoked grant or a disabled account ends the console session here. The absolute expiry
   * stays: the answer says how long the session has left, and the idle expiry never goes past it.
   */
  async function refresh(session: AuthSession, currentToken: string) {
    const stored = storedOf.get(session) ?? (await sessions.findSessionById(session.sessionId));
    if (!stored) throw new AppError('auth.login_required');
    const client = clientOf(session.variant);
    let refreshTokenSealed = stored.refresh_token_sealed;
    let idToken = stored.id_token;
    if (stored.refresh_token_sealed) {
      const { status, body } = await deps.tokenEndpoint(
        {
          grant_type: 'refresh_token',
          refresh_token: sealer.open(stored.refresh_token_sealed, REFRESH_PURPOSE),
        },
        client,
      );
      if (status !== 200 || typeof body.refresh_token !== 'string') {
        await sessions.revokeSession(session.sessionId);
        throw new AppError('auth.login_required');
      }
      refreshTokenSealed = sealer.seal(body.refresh_token, REFRESH_PURPOSE);
      if (typeof body.id_token === 'string') idToken = body.id_token;
    }
    const token = randomToken();
    const swapped = await sessions.replaceSessionToken(session.sessionId, sha256(currentToken), {
      token_hash: sha256(token),
      refresh_token_sealed: refreshTokenSealed,
      id_token: idToken,
      idle_expires_at: idleExpiry(),
    });
    if (!swapped) throw new AppError('auth.login_required');
    return { token, username: session.username, ...lifetimeOf(stored.absolute_expires_at) };
  }

  /** Ends the console session and returns the address that ends the single sign-on session too. */
  async function logout(session: AuthSession) {
    const stored = await sessions.findSessionById(session.sessionId);
    await sessions.revokeSession(session.sessionId);
    const client = clientOf(session.variant);
    const url = new URL(`${deps.issuer}/session/end`);
    url.searchParams.set('client_id', client.clientId);
    url.searchParams.set('post_logout_redirect_uri', client.redirectUri);
    if (stored?.id_token) url.searchParams.set('id_token_hint', stored.id_token);
    return { logoutUrl: url.toString() };
  }

  return {
    ssoConfig,
    exchangeCode,
    authenticate,
    refresh,
    logout,
    revokeSessionsOfAccount: sessions.revokeSessionsOfAccount,
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
