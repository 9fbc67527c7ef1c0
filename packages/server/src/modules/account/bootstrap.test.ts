import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { absolute, csrfOf, postForm, request, startAuthorization } from '../../test/browser-flow.ts';
import { startTestApp, type TestContext } from '../../test/harness.ts';
import { ensureBootstrapAdmin } from './bootstrap.ts';

/**
 * Issue 35: the first administrator's generated password is printed at first start and stays in
 * the terminal's scroll-back, so it opens the first sign-in only: that sign-in asks for a new one.
 */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp({ listen: true, jobs: { run: false } });
  // The harness's own platform administrators would stand in for the first one.
  await ctx.database.db.deleteFrom('accounts').where('is_platform_admin', '=', true).execute();
});
afterAll(() => ctx.close());

/** Signs in to the platform console's authorization; answers the page the password leads to. */
async function signInToPlatformConsole(username: string, password: string) {
  const start = await startAuthorization({
    baseUrl: ctx.baseUrl,
    clientId: 'tessera-console-admin',
    redirectUri: `${ctx.baseUrl}/admin/`,
  });
  const form = await request(start.jar, start.location);
  const answer = await postForm(start.jar, `${start.location}/login`, {
    csrf: csrfOf(await form.text()),
    identifier: username,
    password,
  });
  return { jar: start.jar, html: answer.html, url: answer.url };
}

describe('the first platform administrator', () => {
  it('with a generated password must choose a new one at the first sign-in, and then signs in with it', async () => {
    const created = await ensureBootstrapAdmin(ctx.database.db, {
      username: 'first-admin',
      password: undefined,
    });
    if (!created.created || !created.generatedPassword) throw new Error('no first administrator was created');
    const printed = created.generatedPassword;

    const first = await signInToPlatformConsole('first-admin', printed);
    expect(first.html).toContain('name="newPassword"');
    const action = /<form[^>]*action="([^"]*\/step\/[^"]*)"/.exec(first.html)?.[1] ?? '';
    expect(action).not.toBe('');
    const changed = await postForm(first.jar, absolute(ctx.baseUrl, action), {
      csrf: csrfOf(first.html),
      newPassword: 'Chosen-Platform-Pass-2026',
      confirmPassword: 'Chosen-Platform-Pass-2026',
    });
    // The sign-in goes on to the platform console with a code.
    expect(changed.url).toMatch(new RegExp(`^${ctx.baseUrl}/admin/\\?code=`));

    const account = await ctx.database.db
      .selectFrom('accounts')
      .select('must_change_password')
      .where('username', '=', 'first-admin')
      .executeTakeFirstOrThrow();
    expect(account.must_change_password).toBe(false);
    const again = await signInToPlatformConsole('first-admin', 'Chosen-Platform-Pass-2026');
    expect(again.url).toMatch(new RegExp(`^${ctx.baseUrl}/admin/\\?code=`));
  });

  it('with the password the operator set keeps it', async () => {
    await ctx.database.db.deleteFrom('accounts').where('is_platform_admin', '=', true).execute();
    await ensureBootstrapAdmin(ctx.database.db, { username: 'set-admin', password: 'Operator-set-2026' });
    const account = await ctx.database.db
      .selectFrom('accounts')
      .select('must_change_password')
      .where('username', '=', 'set-admin')
      .executeTakeFirstOrThrow();
    expect(account.must_change_password).toBe(false);
  });
});
