import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSealer } from '../../lib/crypto.ts';
import { browse, CookieJar, csrfOf, postForm, signInToPortal } from '../../test/browser-flow.ts';
import {
  accountRow,
  companyMember,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import { b64url, passkeyFormOf, SoftAuthenticator, UP } from '../../test/soft-authenticator.ts';
import { saveSafetyPart } from '../safety/safety.repo.ts';
import { createFido2Service, type Fido2Service } from './fido2.service.ts';
import { createMfaService } from './mfa.service.ts';

// ---- the app

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let fido2: Fido2Service;
let origin: string;

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  owner = await ownerWithCompany(ctx, 'fido2-owner', 'Passkey Works');
  const mfa = createMfaService({ db: ctx.database.db, sealer: createSealer(ctx.masterKey) });
  fido2 = createFido2Service({ db: ctx.database.db, mfa, publicUrl: ctx.baseUrl });
  origin = new URL(ctx.baseUrl).origin;
});
afterAll(() => ctx.close());

let serial = 0;
/** A user of the owner's company, with a password. */
const member = (company = owner) => {
  serial += 1;
  return companyMember(ctx, company, `passkey-user-${serial}`);
};
const accountOf = (id: string) => accountRow(ctx, id);
const factorRow = (accountId: string) =>
  ctx.database.db
    .selectFrom('mfa_factors')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('type', '=', 'fido2')
    .executeTakeFirstOrThrow();

/** Registers a passkey through the service; returns the authenticator. */
async function register(accountId: string, subject = `portal:${accountId}`) {
  const authenticator = new SoftAuthenticator();
  const options = await fido2.registrationOptions(await accountOf(accountId), subject);
  const bound = await fido2.finishRegistration(
    await accountOf(accountId),
    subject,
    authenticator.create(options, origin),
    null,
  );
  return { authenticator, bound, options };
}

describe('passkey registration', () => {
  it('binds a passkey (attestation none) with its key and counter, recovery codes with the first factor', async () => {
    const user = await member();
    const { bound, options, authenticator } = await register(user.id);
    expect(options.rp.id).toBe('localhost');
    expect(options.authenticatorSelection).toMatchObject({
      residentKey: 'preferred',
      userVerification: 'preferred',
    });
    expect(bound?.recoveryCodes).toHaveLength(10);
    const row = await factorRow(user.id);
    expect(row).toMatchObject({
      status: 'bound',
      type: 'fido2',
      credential_id: authenticator.credentialId.toString('base64url'),
    });
    expect(Number(row.sign_count)).toBe(0);
    expect(row.public_key?.length).toBeGreaterThan(60);
    // The challenge was used up.
    expect(
      await ctx.database.db
        .selectFrom('webauthn_challenges')
        .where('challenge', '=', options.challenge)
        .selectAll()
        .execute(),
    ).toEqual([]);
  });

  it('refuses a reused challenge, another origin, another session and an expired challenge', async () => {
    const user = await member();
    const account = await accountOf(user.id);
    const subject = `portal:${user.id}`;
    const authenticator = new SoftAuthenticator();

    const evil = await fido2.registrationOptions(account, subject);
    expect(
      await fido2.finishRegistration(
        account,
        subject,
        authenticator.create(evil, 'https://evil.example'),
        null,
      ),
    ).toBeNull();

    const foreign = await fido2.registrationOptions(account, 'portal:someone-else');
    expect(
      await fido2.finishRegistration(account, subject, authenticator.create(foreign, origin), null),
    ).toBeNull();

    const old = await fido2.registrationOptions(account, subject);
    await ctx.database.db
      .updateTable('webauthn_challenges')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('challenge', '=', old.challenge)
      .execute();
    expect(
      await fido2.finishRegistration(account, subject, authenticator.create(old, origin), null),
    ).toBeNull();

    const good = await fido2.registrationOptions(account, subject);
    const response = authenticator.create(good, origin);
    expect(await fido2.finishRegistration(account, subject, response, null)).not.toBeNull();
    expect(await fido2.finishRegistration(account, subject, response, null)).toBeNull();
  });
});

describe('passkey assertion', () => {
  it('accepts a signed assertion once, raises the counter, and refuses a counter that does not grow', async () => {
    const user = await member();
    const { authenticator } = await register(user.id);
    const subject = 'interaction:test-1';

    const options = await fido2.authenticationOptions('second_factor', subject, user.id);
    expect(options.allowCredentials?.map((c) => c.id)).toEqual([
      authenticator.credentialId.toString('base64url'),
    ]);
    const response = authenticator.get(options, origin);
    const passed = await fido2.verifyAssertion(response, 'second_factor', subject, user.id);
    expect(passed).toMatchObject({ ok: true, accountId: user.id, userVerified: true });
    expect(Number((await factorRow(user.id)).sign_count)).toBe(1);

    // The same answer again: its challenge is used up.
    expect(await fido2.verifyAssertion(response, 'second_factor', subject, user.id)).toMatchObject({
      ok: false,
      cause: 'passkey_failed',
    });

    // Another origin.
    const next = await fido2.authenticationOptions('second_factor', subject, user.id);
    expect(
      await fido2.verifyAssertion(
        authenticator.get(next, 'https://evil.example'),
        'second_factor',
        subject,
        user.id,
      ),
    ).toMatchObject({ ok: false, cause: 'passkey_failed' });

    // A challenge of another interaction or purpose.
    const foreign = await fido2.authenticationOptions('second_factor', 'interaction:other', user.id);
    expect(
      await fido2.verifyAssertion(authenticator.get(foreign, origin), 'second_factor', subject, user.id),
    ).toMatchObject({ ok: false });

    // A counter that went back (a cloned authenticator).
    const stored = Number((await factorRow(user.id)).sign_count);
    const cloned = await fido2.authenticationOptions('second_factor', subject, user.id);
    expect(
      await fido2.verifyAssertion(
        authenticator.get(cloned, origin, { counter: stored }),
        'second_factor',
        subject,
        user.id,
      ),
    ).toMatchObject({ ok: false, cause: 'passkey_cloned' });
    expect(Number((await factorRow(user.id)).sign_count)).toBe(stored);

    // Another person's passkey is not theirs to use.
    const someone = await member();
    const theirs = await fido2.authenticationOptions('second_factor', subject, someone.id);
    expect(
      await fido2.verifyAssertion(authenticator.get(theirs, origin), 'second_factor', subject, someone.id),
    ).toMatchObject({ ok: false });

    // A tampered signature.
    const good = await fido2.authenticationOptions('second_factor', subject, user.id);
    const forged = authenticator.get(good, origin);
    forged.response.signature = b64url(randomBytes(70));
    expect(await fido2.verifyAssertion(forged, 'second_factor', subject, user.id)).toMatchObject({
      ok: false,
    });
  });
});

// ---- through the pages, as a browser
describe('passkeys in the portal', () => {
  it('registers in the user centre, then serves as second factor and (where allowed) as first factor', async () => {
    const company = await ownerWithCompany(ctx, 'passkey-policy-owner', 'Passkey Policy Works');
    const user = await member(company);

    // User centre: bind → passkey page (CSP allows no inline script: an external one).
    const signedIn = await signInToPortal(ctx.baseUrl, user.username, user.password);
    expect(signedIn.page.url).toBe(`${ctx.baseUrl}/portal/account`);
    const section = /<section id="mfa">[\s\S]*?<\/section>/.exec(signedIn.page.html)![0];
    expect(section).toContain('<option value="fido2">');
    const registerPage = await postForm(signedIn.jar, `${ctx.baseUrl}/portal/account/mfa/bind`, {
      csrf: csrfOf(section),
      type: 'fido2',
    });
    expect(registerPage.url).toBe(`${ctx.baseUrl}/portal/account/mfa/passkey`);
    expect(registerPage.response.headers.get('content-security-policy')).toContain("script-src 'self';");
    expect(registerPage.html).toContain('<script src="/portal/webauthn.js" defer></script>');
    expect(registerPage.html).not.toMatch(/<script>/);
    const script = await fetch(`${ctx.baseUrl}/portal/webauthn.js`);
    expect(script.status).toBe(200);
    expect(await script.text()).toContain('navigator.credentials.create');
    const form = passkeyFormOf(registerPage.html);
    expect(form.mode).toBe('create');
    const authenticator = new SoftAuthenticator();
    const forged = await postForm(signedIn.jar, `${ctx.baseUrl}${form.action}`, {
      csrf: 'forged',
      credential: JSON.stringify(authenticator.create(form.options, origin)),
    });
    expect(forged.response.status).toBe(403);
    const again = passkeyFormOf(
      (await browse(signedIn.jar, `${ctx.baseUrl}/portal/account/mfa/passkey`)).html,
    );
    const registered = await postForm(signedIn.jar, `${ctx.baseUrl}${again.action}`, {
      csrf: again.csrf,
      credential: JSON.stringify(authenticator.create(again.options, origin)),
    });
    expect(registered.html).toContain('Save your recovery codes');
    const account = await browse(signedIn.jar, `${ctx.baseUrl}/portal/account`);
    expect(account.html).toContain('Passkey (FIDO2)');

    // MFA optional: the password sign-in asks for the passkey.
    await saveSafetyPart(ctx.database.db, company.companyId, 'mfa', {
      mode: 'optional',
      types: ['otp', 'fido2'],
      lockout: { maxFailures: 5, lockMinutes: 15 },
    });
    const second = await signInToPortal(ctx.baseUrl, user.username, user.password);
    expect(second.page.html).toContain('Two-step verification');
    const challenge = passkeyFormOf(second.page.html);
    expect(challenge.action).toBe(`${new URL(second.interactionUrl).pathname}/step/second_factor`);
    const wrongOrigin = await postForm(second.jar, `${ctx.baseUrl}${challenge.action}`, {
      csrf: challenge.csrf,
      credential: JSON.stringify(authenticator.get(challenge.options, 'https://evil.example')),
    });
    expect(wrongOrigin.response.status).toBe(400);
    const retry = passkeyFormOf(wrongOrigin.html);
    const passed = await postForm(second.jar, `${ctx.baseUrl}${retry.action}`, {
      csrf: retry.csrf,
      credential: JSON.stringify(authenticator.get(retry.options, origin)),
    });
    expect(passed.url).toBe(`${ctx.baseUrl}/portal/account`);

    // First factor: offered once a company allows passkey sign-in, refused for a company that does not.
    const otherCompany = await ownerWithCompany(ctx, 'passkey-allowing-owner', 'Allowing Works');
    await saveSafetyPart(ctx.database.db, otherCompany.companyId, 'general', {
      loginMethods: ['password', 'passkey'],
    } as never);
    const refusedJar = new CookieJar();
    const refusedPage = await browse(refusedJar, `${ctx.baseUrl}/portal/account`);
    const offered = passkeyFormOf(refusedPage.html);
    expect(offered.action).toMatch(/\/passkey$/);
    expect(offered.options.allowCredentials ?? []).toEqual([]);
    const notAllowed = await postForm(refusedJar, `${ctx.baseUrl}${offered.action}`, {
      csrf: offered.csrf,
      credential: JSON.stringify(authenticator.get(offered.options, origin)),
    });
    expect(notAllowed.response.status).toBe(401);
    expect(notAllowed.html).toContain('not allowed for this account');

    await saveSafetyPart(ctx.database.db, company.companyId, 'general', {
      loginMethods: ['password', 'passkey'],
    } as never);
    const jar = new CookieJar();
    const page = await browse(jar, `${ctx.baseUrl}/portal/account`);
    const first = passkeyFormOf(page.html);
    // A user-verified passkey is both factors: no second-factor page.
    const landed = await postForm(jar, `${ctx.baseUrl}${first.action}`, {
      csrf: first.csrf,
      credential: JSON.stringify(authenticator.get(first.options, origin)),
    });
    expect(landed.url).toBe(`${ctx.baseUrl}/portal/account`);
    expect(landed.html).toContain(user.username);

    // Without user verification the second factor is still asked.
    const upOnlyJar = new CookieJar();
    const upOnly = passkeyFormOf((await browse(upOnlyJar, `${ctx.baseUrl}/portal/account`)).html);
    const half = await postForm(upOnlyJar, `${ctx.baseUrl}${upOnly.action}`, {
      csrf: upOnly.csrf,
      credential: JSON.stringify(authenticator.get(upOnly.options, origin, { flags: UP })),
    });
    expect(half.html).toContain('Two-step verification');

    const events = await ctx.database.db
      .selectFrom('login_events')
      .select(['result', 'failure_cause'])
      .where('account_id', '=', user.id)
      .execute();
    expect(events.map((e) => e.failure_cause)).toContain('passkey_not_allowed');
    expect(events.filter((e) => e.result === 'success').length).toBeGreaterThanOrEqual(4);
  });
});
