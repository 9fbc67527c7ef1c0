import type { Sealer } from '../../lib/crypto.ts';
import { INTERACTION_PATH } from './provider.ts';

/**
 * A first factor passed outside the interaction pages (a used sign-in link) is handed to the
 * interaction in a short-lived sealed cookie. The interaction accepts it only for the
 * authorization request it was made for (client and state), then goes on as after a password.
 */
export const HANDOFF_COOKIE = 'tessera_first_factor';
const PURPOSE = 'sign-in-first-factor-handoff';
const LIFETIME_SECONDS = 300;

export interface FirstFactorHandoff {
  accountId: string;
  companyId: string | null;
  amr: string[];
  clientId: string;
  state: string;
}

export const handoffCookieOptions = (secure: boolean) => ({
  path: INTERACTION_PATH,
  httpOnly: true,
  sameSite: 'lax' as const,
  secure,
});

export function sealHandoff(sealer: Sealer, handoff: FirstFactorHandoff) {
  return {
    value: sealer.seal(JSON.stringify({ ...handoff, exp: Date.now() + LIFETIME_SECONDS * 1000 }), PURPOSE),
    maxAge: LIFETIME_SECONDS,
  };
}

/** The handoff in the cookie, if it is genuine and fresh. */
export function openHandoff(sealer: Sealer, sealed: string | undefined): FirstFactorHandoff | undefined {
  if (!sealed || sealed.length > 2048) return undefined;
  try {
    const value = JSON.parse(sealer.open(sealed, PURPOSE)) as FirstFactorHandoff & { exp: number };
    return value.exp > Date.now() ? value : undefined;
  } catch {
    return undefined;
  }
}
