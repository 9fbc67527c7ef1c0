import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { companyMember, ownerWithCompany, type TestContext } from '../../test/harness.ts';
import {
  alsoMemberOf,
  authorization,
  CookieJar,
  claimsOf,
  go,
  openedApp,
  redeem,
  signInOnPage,
  startWithCompany,
  type TestApp,
} from '../../test/oidc-flow.ts';

/**
 * Pairwise subject identifiers per company (OIDC Core §8; regression of issue 12: `sub` was the
 * account id in every company's apps, so two companies' apps could correlate a person).
 */

let ctx: TestContext;
let acme: Awaited<ReturnType<typeof ownerWithCompany>>;
let globex: Awaited<ReturnType<typeof ownerWithCompany>>;
let person: { id: string; username: string; password: string };

beforeAll(async () => {
  ({ ctx, owner: acme } = await startWithCompany('acmeowner', 'Acme'));
  globex = await ownerWithCompany(ctx, 'globexowner', 'Globex');
  person = await companyMember(ctx, acme, 'petra');
  await alsoMemberOf(ctx, globex.companyId, person.id);
});
afterAll(() => ctx.close());

const jar = new CookieJar();
async function signIn(app: TestApp, redirectUri?: string) {
  const auth = authorization(ctx.baseUrl, app.clientId, {}, redirectUri);
  let landing = await go(jar, auth.url, redirectUri);
  if (landing.page) landing = await signInOnPage(jar, landing.page, person, redirectUri);
  return redeem(ctx.baseUrl, app, auth, landing, redirectUri);
}

const userinfo = async (accessToken: string) =>
  (await (
    await fetch(`${ctx.baseUrl}/oidc/me`, { headers: { authorization: `Bearer ${accessToken}` } })
  ).json()) as { sub: string };

const introspect = async (app: TestApp, token: string) =>
  (await (
    await fetch(`${ctx.baseUrl}/oidc/token/introspection`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ token }).toString(),
    })
  ).json()) as { sub: string };

describe('the subject an application sees', () => {
  it('is one value in every app of a company, another in another company, never the account id', async () => {
    const wiki = await openedApp(ctx, acme);
    const chat = await openedApp(ctx, acme);
    const crm = await openedApp(ctx, globex);
    const [a, b, c] = [await signIn(wiki), await signIn(chat), await signIn(crm)];
    const [subA, subB, subC] = [a, b, c].map((t) => claimsOf(t.id_token).sub as string);
    expect(subA).toBe(subB);
    expect(subA).not.toBe(subC);
    for (const sub of [subA, subC]) expect(sub).not.toContain(person.id);
    // Userinfo, introspection and refreshed ID tokens say the same.
    expect((await userinfo(a.access_token!)).sub).toBe(subA);
    expect((await userinfo(c.access_token!)).sub).toBe(subC);
    expect((await introspect(wiki, a.access_token!)).sub).toBe(subA);
    expect((await introspect(crm, c.access_token!)).sub).toBe(subC);
  });

  it('is the same for an app with callback URLs on two hosts (the company is the sector)', async () => {
    const second = 'http://127.0.0.1:7003/callback';
    const app = await openedApp(ctx, acme, { redirectUris: ['http://localhost:7001/callback', second] });
    const one = await signIn(app);
    const two = await signIn(app, second);
    expect(claimsOf(two.id_token).sub).toBe(claimsOf(one.id_token).sub);
  });
});
