import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';

/**
 * A platform authenticator for `page` (CDP WebAuthn domain) that creates discoverable, user-verified
 * passkeys and answers every ceremony without a prompt.
 */
export async function virtualAuthenticator(context: BrowserContext, page: Page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

/**
 * Passkeys in Chromium, with a virtual authenticator (CDP WebAuthn domain): sign in to the user
 * centre with the password, add a passkey, sign out, and sign in again with the passkey alone.
 *
 * Precondition: the person's home company allows login method `passkey`
 * (`/api/v1/manage/safety/general/update` with `loginMethods: ['password', 'passkey']`) and has
 * MFA off (with MFA on, a user-verified passkey still counts as both factors, but the password
 * sign-in at the start would ask for a second factor).
 */
export async function passkeyFlow(
  page: Page,
  context: BrowserContext,
  baseUrl: string,
  user: { username: string; password: string },
  /** Receives the recovery codes shown (the run's secrets). */
  secrets: string[] = [],
): Promise<void> {
  const { cdp, authenticatorId } = await virtualAuthenticator(context, page);
  const account = `${baseUrl}/portal/account`;

  // 1. The user centre, signed in with the password.
  await page.goto(account);
  await page.waitForURL(/\/interaction\//);
  await page.locator('#identifier').fill(user.username);
  await page.locator('#password').fill(user.password);
  await page.locator('form[action$="/login"] button[type=submit]').click();
  await page.waitForURL(account);

  // 2. Add a passkey: the kind "Passkey (FIDO2)", then the browser's ceremony.
  const section = page.locator('section#mfa');
  await section.locator('#bind-type').selectOption('fido2');
  await section.locator('form[action$="/mfa/bind"] button[type=submit]').click();
  await page.waitForURL(`${baseUrl}/portal/account/mfa/passkey`);
  await page.locator('[data-passkey-button]').click();
  // The first factor a person binds comes with recovery codes, shown once.
  await page.locator('.recovery-codes code').first().waitFor();
  const recoveryCodes = await page.locator('.recovery-codes code').allInnerTexts();
  assert.equal(recoveryCodes.length, 10, 'ten recovery codes are shown');
  secrets.push(...recoveryCodes);
  await page.locator('a.button.primary').click();
  await page.waitForURL(account);
  assert.match(
    (await section.textContent()) ?? '',
    /Passkey \(FIDO2\)/,
    'the user centre lists the new passkey',
  );
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  assert.equal(credentials.length, 1, 'the authenticator holds one credential');
  assert.equal(credentials[0]?.isResidentCredential, true, 'the passkey is discoverable');

  // 3. Sign out (the user centre and the single sign-on session).
  // The user centre's ID token names the session: the sign-out page posts itself, no question.
  const selfPosted = page.waitForResponse(
    (r) => r.url().includes('/oidc/session/end/confirm') && r.request().method() === 'POST',
  );
  await page.locator('form[action="/portal/logout"] button[type=submit]').click();
  await selfPosted;
  await page.waitForLoadState();
  await page.goto(account);
  await page.waitForURL(/\/interaction\//);

  // 4. Sign in with the passkey alone: no username, no password, no second factor.
  const passkeyButton = page.locator('form.passkey-form[data-webauthn="get"] [data-passkey-button]');
  assert.equal(
    await passkeyButton.count(),
    1,
    'the sign-in page offers a passkey (a company must allow login method "passkey")',
  );
  await passkeyButton.click();
  await page.waitForURL(account);
  assert.match((await page.locator('body').textContent()) ?? '', new RegExp(user.username));
  const after = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  assert.ok((after.credentials[0]?.signCount ?? 0) >= 1, 'the authenticator counted the assertion');

  await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId });
  await cdp.detach();
}
