import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  csrfOf,
  followToRedirectUri,
  request,
  startAuthorization,
  submitSignIn,
} from '../../test/browser-flow.ts';
import {
  companyMember,
  createAccount,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';

/**
 * What a password sign-in on the form costs the database: the interaction, the attempt (account,
 * lock and budgets in one statement) and its outcome (budgets given back, counters, the browser,
 * the login event and, when no step follows, the interaction's login, in one statement). Three
 * statements when the sign-in completes, four when a step follows; and a wrong password runs the
 * same statements as an identifier that names nobody.
 */

let ctx: TestContext;
let statements: string[] | undefined;
beforeAll(async () => {
  ctx = await startTestApp({
    listen: true,
    jobs: { run: false },
    queryLog: (event) => statements?.push(event.query.sql.replace(/\s+/g, ' ')),
  });
});
afterAll(() => ctx.close());

/** Posts the sign-in form of a new authorization; answers its status and the statements the POST ran. */
async function postSignIn(identifier: string, password: string) {
  const start = await startAuthorization({
    baseUrl: ctx.baseUrl,
    clientId: 'tessera-console-dev',
    redirectUri: `${ctx.baseUrl}/dev/`,
  });
  const page = await request(start.jar, start.location);
  const csrf = csrfOf(await page.text());
  statements = [];
  const response = await request(start.jar, `${start.location}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, identifier, password }).toString(),
  });
  await response.text();
  const ran = statements;
  statements = undefined;
  return { status: response.status, location: response.headers.get('location'), ran };
}

const payloadStatements = (ran: string[]) => ran.filter((s) => s.includes('"oidc_payloads"'));

describe('statements of a password sign-in', () => {
  it('are three for a sign-in that completes', async () => {
    const ada = await createAccount(ctx, { username: 'ada-statements' });
    for (let i = 0; i < 2; i++) {
      const { status, location, ran } = await postSignIn(ada.username, ada.password);
      expect(status).toBe(303);
      expect(location).toContain('/oidc/auth/');
      expect(ran).toHaveLength(3);
      // The interaction is read once, and its login is stored by the outcome's statement.
      const [read, written] = payloadStatements(ran);
      expect(read).toMatch(/^select/);
      expect(written).toContain('insert into "login_events"');
      expect(written).toContain('insert into "oidc_payloads"');
    }
  });

  it('store the login the provider then finishes the authorization with', async () => {
    const eve = await createAccount(ctx, { username: 'eve-statements' });
    const start = await startAuthorization({
      baseUrl: ctx.baseUrl,
      clientId: 'tessera-console-dev',
      redirectUri: `${ctx.baseUrl}/dev/`,
    });
    const posted = await submitSignIn(start.jar, start.location, eve.username, eve.password);
    expect(posted.status).toBe(303);
    const callback = await followToRedirectUri(start.jar, ctx.baseUrl, posted, `${ctx.baseUrl}/dev/`);
    expect(callback.searchParams.get('code')).toBeTruthy();
  });

  it("are three for a company's person, whose steps depend on the company's rules", async () => {
    const owner = await ownerWithCompany(ctx, 'statements-owner');
    const member = await companyMember(ctx, owner, 'statements-member');
    const { status, ran } = await postSignIn(member.username, member.password);
    expect(status).toBe(303);
    expect(ran).toHaveLength(3);
  });

  it('are four when a step follows: the interaction keeps the pending step', async () => {
    const cy = await createAccount(ctx, { username: 'cy-statements' });
    await ctx.database.db
      .updateTable('accounts')
      .set({ must_change_password: true })
      .where('id', '=', cy.id)
      .execute();
    const { status, location, ran } = await postSignIn(cy.username, cy.password);
    expect(status).toBe(303);
    expect(location).toMatch(/\/interaction\/[\w-]+$/);
    expect(ran).toHaveLength(4);
  });

  it('are the same for a wrong password and an identifier that names nobody', async () => {
    await createAccount(ctx, { username: 'bea-statements' });
    const wrong = await postSignIn('bea-statements', 'not-the-password');
    const nobody = await postSignIn('nobody-statements', 'not-the-password');
    expect(wrong.status).toBe(401);
    expect(nobody.status).toBe(401);
    // The failure is counted on the account's row or on the unknown identifier's: one statement
    // with the login event either way.
    const counting = (ran: string[]) => ran.map((s) => (s.startsWith('with failure as') ? 'failure' : s));
    expect(counting(nobody.ran)).toEqual(counting(wrong.ran));
    expect(wrong.ran.filter((s) => s.startsWith('with failure as'))).toHaveLength(1);
    expect(wrong.ran.length).toBeLessThanOrEqual(4);
  });
});
