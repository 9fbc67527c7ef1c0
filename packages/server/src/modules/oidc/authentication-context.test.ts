import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Decode, generateTotp } from '../../lib/otp/totp.ts';
import { absolute, csrfOf } from '../../test/browser-flow.ts';
import { companyMember, type ownerWithCompany, type TestContext } from '../../test/harness.ts';
import {
  authorization,
  CookieJar,
  claimsOf,
  errorOf,
  go,
  openedApp,
  redeem,
  signInOnPage,
  startWithCompany,
  type TestApp,
} from '../../test/oidc-flow.ts';
import { ACR_MULTI_FACTOR, ACR_SINGLE_FACTOR, acrFor, requestedAcr } from './authentication-context.ts';

/**
 * How and how strongly a person signed in, as applications see it (OIDC Core §2 acr/amr,
 * RFC 8176), and an application asking for multi-factor authentication with acr_values.
 */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let app: TestApp;

beforeAll(async () => {
  ({ ctx, owner: owner } = await startWithCompany('acrowner'));
  app = await openedApp(ctx, owner);
});
afterAll(() => ctx.close());

const tokensOf = async (auth: { verifier: string }, callback: URL | undefined) => {
  expect(callback?.searchParams.get('code'), String(callback)).toBeTruthy();
  const tokens = await redeem(ctx.baseUrl, app, auth, callback);
  return claimsOf(tokens.id_token);
};

/** Posts a step's form (csrf from the page) and follows. */
const postStep = (
  jar: CookieJar,
  page: { url: string; html: string },
  step: string,
  fields: Record<string, string>,
) =>
  go(jar, `${page.url.split('?')[0]}/step/${step}`, undefined, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: csrfOf(page.html), ...fields }).toString(),
  });

describe('acr and amr', () => {
  it('names a password sign-in single-factor, with amr pwd and auth_time', async () => {
    const person = await companyMember(ctx, owner, 'sandra');
    const jar = new CookieJar();
    const auth = authorization(ctx.baseUrl, app.clientId);
    const first = await go(jar, auth.url);
    const claims = await tokensOf(auth, (await signInOnPage(jar, first.page!, person)).callback);
    expect(claims).toMatchObject({ acr: ACR_SINGLE_FACTOR, amr: ['pwd'], auth_time: expect.any(Number) });
    expect(claims.sid).toEqual(expect.any(String));
  });

  it('acr_values naming MFA makes a person without a factor bind one, then signs in multi-factor', async () => {
    const person = await companyMember(ctx, owner, 'mark');
    const jar = new CookieJar();
    const auth = authorization(ctx.baseUrl, app.clientId, { acr_values: ACR_MULTI_FACTOR });
    const first = await go(jar, auth.url);
    const bindPage = await signInOnPage(jar, first.page!, person);
    expect(bindPage.page?.html).toContain('Set up two-step verification');
    const secret = /data-secret="([A-Z2-7]+)"/.exec(bindPage.page!.html)![1]!;
    const factorId = /name="factorId" value="([^"]+)"/.exec(bindPage.page!.html)![1]!;
    const seed = base32Decode(secret);
    const codes = await postStep(jar, bindPage.page!, 'bind_factor', {
      factorId,
      code: generateTotp(seed, Date.now()),
    });
    expect(codes.page?.html).toContain('Save your recovery codes');
    const continueHref = /href="([^"]+)">I have saved them/.exec(codes.page!.html)![1]!;
    const landed = await go(jar, absolute(codes.page!.url, continueHref));
    const claims = await tokensOf(auth, landed.callback);
    expect(claims.acr).toBe(ACR_MULTI_FACTOR);
    expect(claims.amr).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']));

    // A later single-factor session steps up with the second factor alone (no password).
    const plain = new CookieJar();
    const sfa = authorization(ctx.baseUrl, app.clientId);
    const signIn = await go(plain, sfa.url);
    // The company asks nothing more of this person: a password sign-in.
    expect((await tokensOf(sfa, (await signInOnPage(plain, signIn.page!, person)).callback)).acr).toBe(
      ACR_SINGLE_FACTOR,
    );
    const silent = await go(
      plain,
      authorization(ctx.baseUrl, app.clientId, { prompt: 'none', acr_values: ACR_MULTI_FACTOR }).url,
    );
    expect(errorOf(silent)).toBe('login_required');
    const stepUp = authorization(ctx.baseUrl, app.clientId, { acr_values: ACR_MULTI_FACTOR });
    const challenge = await go(plain, stepUp.url);
    expect(challenge.page?.html).toContain('Two-step verification');
    expect(challenge.page?.html).not.toContain('name="password"');
    const passed = await postStep(plain, challenge.page!, 'second_factor', {
      factorId,
      code: generateTotp(seed, Date.now() + 30_000),
    });
    const stepped = await tokensOf(stepUp, passed.callback);
    expect(stepped.acr).toBe(ACR_MULTI_FACTOR);
    expect(stepped.amr).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']));

    // Multi-factor satisfies an essential request for single-factor, named as requested.
    const essential = authorization(ctx.baseUrl, app.clientId, {
      claims: JSON.stringify({ id_token: { acr: { essential: true, values: [ACR_SINGLE_FACTOR] } } }),
    });
    expect((await tokensOf(essential, (await go(plain, essential.url)).callback)).acr).toBe(
      ACR_SINGLE_FACTOR,
    );
  });

  it('answers unmet_authentication_requirements to an essential acr it does not support', async () => {
    const auth = authorization(ctx.baseUrl, app.clientId, {
      claims: JSON.stringify({ id_token: { acr: { essential: true, values: ['urn:example:loa:4'] } } }),
    });
    expect(errorOf(await go(new CookieJar(), auth.url))).toBe('unmet_authentication_requirements');
  });
});

describe('authentication context helpers', () => {
  it('names the strongest satisfied acr, or the requested one it satisfies', () => {
    expect(acrFor(['pwd'])).toBe(ACR_SINGLE_FACTOR);
    expect(acrFor(['pwd', 'otp', 'mfa'])).toBe(ACR_MULTI_FACTOR);
    expect(acrFor(['pwd', 'otp', 'mfa'], [ACR_SINGLE_FACTOR])).toBe(ACR_SINGLE_FACTOR);
    expect(acrFor(['pwd'], [ACR_MULTI_FACTOR])).toBe(ACR_SINGLE_FACTOR);
  });

  it('reads acr_values and the acr member of the claims parameter', () => {
    expect(requestedAcr({ acr_values: `${ACR_MULTI_FACTOR} x` })).toEqual({
      values: [ACR_MULTI_FACTOR, 'x'],
      essential: [],
    });
    expect(
      requestedAcr({
        claims: JSON.stringify({ id_token: { acr: { essential: true, value: ACR_MULTI_FACTOR } } }),
      }),
    ).toEqual({ values: [ACR_MULTI_FACTOR], essential: [ACR_MULTI_FACTOR] });
    expect(requestedAcr({ claims: '{not json' })).toEqual({ values: [], essential: [] });
  });
});
