import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSealer } from '../../lib/crypto.ts';
import { base32Decode, generateTotp } from '../../lib/otp/totp.ts';
import {
  absolute,
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
import { createMfaService } from '../mfa/mfa.service.ts';
import { saveSafetyPart } from '../safety/safety.repo.ts';

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

describe('statements of a sign-in with a TOTP second factor', () => {
  let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
  let mfa: ReturnType<typeof createMfaService>;
  beforeAll(async () => {
    owner = await ownerWithCompany(ctx, 'totp-statements-owner');
    await saveSafetyPart(ctx.database.db, owner.companyId, 'mfa', {
      mode: 'required',
      types: ['otp'],
      lockout: { maxFailures: 5, lockMinutes: 15 },
    });
    mfa = createMfaService({ db: ctx.database.db, sealer: createSealer(ctx.masterKey) });
  });

  /** A member of the company with a bound authenticator app. */
  async function totpMember(username: string) {
    const member = await companyMember(ctx, owner, username);
    const account = await ctx.database.db
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', member.id)
      .executeTakeFirstOrThrow();
    const binding = await mfa.startBinding(account, 'otp');
    const seed = base32Decode(binding.secret);
    // Bound with the code of the previous period, so that the sign-in's code is not a replay.
    expect(
      await mfa.confirmBinding(account, binding.factorId, generateTotp(seed, Date.now() - 30_000), null),
    ).toBeTruthy();
    return { ...member, factorId: binding.factorId, seed };
  }

  /** Follows redirects until a page answers or the redirect URI is reached; the statements each request ran. */
  async function follow(jar: Parameters<typeof request>[0], response: Response, perRequest: number[]) {
    let current = response;
    while (current.status === 303 || current.status === 302) {
      const location = absolute(ctx.baseUrl, current.headers.get('location'));
      if (location.startsWith(`${ctx.baseUrl}/dev/`)) return { location, html: '', status: 303 };
      await current.text();
      statements = [];
      current = await request(jar, location);
      perRequest.push(statements.length);
    }
    return { location: current.url, html: await current.text(), status: current.status };
  }

  /** The password on the form of a new authorization, on to the second-factor page. */
  async function toCodePage(person: { username: string; password: string }, perRequest: number[]) {
    const start = await startAuthorization({
      baseUrl: ctx.baseUrl,
      clientId: 'tessera-console-dev',
      redirectUri: `${ctx.baseUrl}/dev/`,
    });
    const form = await request(start.jar, start.location);
    const csrf = csrfOf(await form.text());
    statements = [];
    const posted = await request(start.jar, `${start.location}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, identifier: person.username, password: person.password }).toString(),
    });
    perRequest.push(statements.length);
    const page = await follow(start.jar, posted, perRequest);
    expect(page.html).toContain('name="code"');
    return { jar: start.jar, page };
  }

  /** Posts the code on the second-factor page and follows; where it lands. */
  async function postCode(
    { jar, page }: Awaited<ReturnType<typeof toCodePage>>,
    person: Awaited<ReturnType<typeof totpMember>>,
    perRequest: number[],
  ) {
    statements = [];
    const coded = await request(jar, `${page.location.split('?')[0]}/step/second_factor`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        csrf: csrfOf(page.html),
        factorId: person.factorId,
        code: generateTotp(person.seed, Date.now()),
      }).toString(),
    });
    perRequest.push(statements.length);
    const landed = coded.status === 303 ? await follow(jar, coded, perRequest) : undefined;
    statements = undefined;
    return {
      status: coded.status,
      landed,
      code: landed && new URL(landed.location).searchParams.get('code'),
    };
  }

  it('are 23 from the password to the application', async () => {
    const person = await totpMember('totp-statements-member');
    const perRequest: number[] = [];
    const posted = await postCode(await toCodePage(person, perRequest), person, perRequest);
    expect(posted.code).toBeTruthy();
    // The password's POST, the second-factor page, the code's POST, the interaction's end and the
    // provider's resume.
    expect(
      perRequest.reduce((a, b) => a + b, 0),
      perRequest.join(' + '),
    ).toBe(23);
  });

  it('still refuse a factor removed after the page, with or without ending the sessions', async () => {
    for (const endSessions of [true, false]) {
      const person = await totpMember(`totp-removed-${endSessions}`);
      const onPage = await toCodePage(person, []);
      await mfa.unbind({ accountId: person.id, ip: null }, null, person.id, person.factorId, { endSessions });
      const posted = await postCode(onPage, person, []);
      expect(posted.code, `endSessions ${endSessions}`).toBeFalsy();
      // Ending the sessions ends the pending sign-in (the form again); otherwise the code is wrong.
      if (endSessions) expect(posted.landed?.html).toContain('name="password"');
      else expect(posted.status).toBe(400);
    }
  });

  it('still refuse an account disabled after the page', async () => {
    const person = await totpMember('totp-disabled');
    const onPage = await toCodePage(person, []);
    await ctx.database.db
      .updateTable('accounts')
      .set({ status: 'disabled' })
      .where('id', '=', person.id)
      .execute();
    const posted = await postCode(onPage, person, []);
    expect(posted.code).toBeFalsy();
    expect(posted.landed?.html).toContain('name="password"');
  });
});
