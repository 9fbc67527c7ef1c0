import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.ts';
import { type Sealer, safeEqual } from '../../lib/crypto.ts';
import { rememberDevice } from './signin-throttle.ts';

/**
 * The device cookie: a random id for this browser, signed with a key derived from the master
 * key. A browser through which someone signed in to an account is "known" to that account (see
 * signin-throttle.ts): its password attempts have their own budget and lock-out, so failures
 * from elsewhere never lock the owner out of their usual browser.
 */
export const DEVICE_COOKIE = 'tessera_device';
const PURPOSE = 'device-cookie';
/** Browsers keep a cookie 400 days at most. */
const MAX_AGE_SECONDS = 400 * 86_400;

const sign = (sealer: Sealer, id: string) => `${id}.${sealer.hmac(PURPOSE, id)}`;

/** The device id of a well-signed cookie value, else undefined. */
export function deviceIdOf(sealer: Sealer, value: string | undefined): string | undefined {
  if (!value || value.length > 200) return undefined;
  const dot = value.indexOf('.');
  if (dot <= 0) return undefined;
  const id = value.slice(0, dot);
  return safeEqual(value, sign(sealer, id)) ? id : undefined;
}

export function createDeviceCookies(deps: { db: Db; sealer: Sealer; secure: boolean }) {
  const { db, sealer } = deps;
  /**
   * The browser's device id; a browser without one gets one in a cookie. The cookie goes on the
   * raw response, which is written directly when the interaction finishes.
   */
  function assign(request: FastifyRequest, reply: FastifyReply): string {
    const known = deviceIdOf(sealer, request.cookies[DEVICE_COOKIE]);
    if (known) return known;
    const id = randomBytes(18).toString('base64url');
    const cookie = request.server.serializeCookie(DEVICE_COOKIE, sign(sealer, id), {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: deps.secure,
      maxAge: MAX_AGE_SECONDS,
    });
    reply.raw.appendHeader('set-cookie', cookie);
    return id;
  }

  return {
    /** The browser's device id, if it carries a valid device cookie. */
    read: (request: FastifyRequest) => deviceIdOf(sealer, request.cookies[DEVICE_COOKIE]),
    assign,
    /**
     * A sign-in through this browser succeeded: the browser gets a device id (if it has none)
     * and becomes known to the account. (The password form remembers it in the statement of
     * the success instead: SignInAttempt.onSuccess.)
     */
    async remember(request: FastifyRequest, reply: FastifyReply, accountId: string) {
      await rememberDevice(db, accountId, assign(request, reply));
    },
  };
}

export type DeviceCookies = ReturnType<typeof createDeviceCookies>;
