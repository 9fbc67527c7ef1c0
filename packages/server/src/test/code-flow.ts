import * as client from 'openid-client';
import { expect } from 'vitest';
import type { SmsCode, SmsSender } from '../modules/sms/sms.ts';
import { call, type TestContext } from './harness.ts';
import { CALLBACK, type CookieJar, go, type Landing, submit } from './oidc-flow.ts';

/**
 * Signing in with codes sent by email or SMS, driven as a browser would: the helpers of the code
 * tests (modules/oidc/code-sign-in.test.ts, sign-in-code-factor.test.ts).
 */

/** An SMS sender that keeps the messages instead of sending them (the provider's stand-in). */
export function recordingSms(): SmsSender & { sent: SmsCode[] } {
  const sent: SmsCode[] = [];
  return {
    sent,
    available: async () => true,
    async sendCode(message) {
      sent.push(message);
    },
  };
}

/** The six digits of a code message (mail text or SMS). */
export const codeIn = (text: string | undefined) => /\b(\d{6})\b/.exec(text ?? '')?.[1] ?? '';

/** Marks the person's email address and phone as proved theirs, as the user centre does. */
export async function verifyAddresses(
  ctx: TestContext,
  accountId: string,
  fields: { email?: string; phone?: string },
) {
  await ctx.database.db
    .updateTable('accounts')
    .set({
      ...(fields.email ? { email: fields.email, email_verified_at: new Date() } : {}),
      ...(fields.phone ? { phone: fields.phone, phone_verified_at: new Date() } : {}),
    })
    .where('id', '=', accountId)
    .execute();
}

/** Sets a company's login methods (and lock-out) through the console's call. */
export async function setLoginMethods(
  ctx: TestContext,
  admin: { token: string; companyId: string },
  loginMethods: string[],
  lockout = { maxFailures: 5, lockMinutes: 15 },
) {
  const as = { token: admin.token, companyId: admin.companyId };
  const current = await call<Record<string, unknown>>(ctx, '/api/v1/manage/safety/general', {}, as);
  const updated = await call(
    ctx,
    '/api/v1/manage/safety/general/update',
    { ...current.data, loginMethods, lockout },
    as,
  );
  expect(updated.code, updated.msg).toBe(200);
}

/** Follows the sign-in page's link to a code sign-in (email or sms): the page asking who the person is. */
export async function openCodeSignIn(jar: CookieJar, signInPage: Landing, channel: 'email' | 'sms') {
  const html = signInPage.page?.html ?? '';
  const href = new RegExp(`href="([^"]+)"[^>]*data-code-sign-in="${channel}"`).exec(html)?.[1];
  expect(href, 'the code sign-in link').toBeTruthy();
  return go(jar, new URL(href as string, signInPage.page?.url).toString());
}

/** Types the identifier on the code page: the page where the code is typed (or an error). */
export const askForCode = (jar: CookieJar, page: Landing, identifier: string) =>
  submit(jar, page.page!, /\/send$/, { identifier });

/** Types the code on its page and follows. */
export const typeCode = (jar: CookieJar, page: Landing, code: string) =>
  submit(jar, page.page!, /\/verify$/, { code });

/** Redeems the code at the token endpoint with openid-client, as the application does. */
export async function redeemWith(
  config: client.Configuration,
  auth: { verifier: string; state: string; nonce: string },
  landing: Landing,
) {
  expect(landing.callback?.toString(), landing.page?.html.slice(0, 600)).toContain(CALLBACK);
  return client.authorizationCodeGrant(config, landing.callback as URL, {
    pkceCodeVerifier: auth.verifier,
    expectedState: auth.state,
    expectedNonce: auth.nonce,
  });
}
