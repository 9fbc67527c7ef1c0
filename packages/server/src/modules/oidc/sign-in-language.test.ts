import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CookieJar, csrfOf, request, startAuthorization } from '../../test/browser-flow.ts';
import { createAccount, startTestApp, type TestContext } from '../../test/harness.ts';

/**
 * A page shown as the answer to a form (a refused password, a step's refusal) has a language
 * link that reloads the interaction's page in the other language: the form's own address takes
 * POST only, so the link used to lead to "not found".
 */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp({ listen: true, jobs: { run: false } });
});
afterAll(() => ctx.close());

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

/** Follows the page's link to Chinese; answers the status and the page. */
async function switchToChinese(jar: CookieJar, html: string) {
  const link = /href="([^"]*[?&]lang=zh[^"]*)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
  expect(link).toBeDefined();
  const response = await request(jar, new URL(link ?? '', ctx.baseUrl).toString());
  return { link: link ?? '', status: response.status, html: await response.text() };
}

async function signInPage() {
  const start = await startAuthorization({
    baseUrl: ctx.baseUrl,
    clientId: 'tessera-console-dev',
    redirectUri: `${ctx.baseUrl}/dev/`,
  });
  const page = await request(start.jar, start.location);
  return { ...start, csrf: csrfOf(await page.text()) };
}

describe('the language link of an answer to a form', () => {
  it('after a wrong password reloads the sign-in form in the other language', async () => {
    const ada = await createAccount(ctx, { username: 'ada-language' });
    const { jar, location, csrf } = await signInPage();
    const refused = await request(
      jar,
      `${location}/login`,
      form({ csrf, identifier: ada.username, password: 'not-the-password' }),
    );
    expect(refused.status).toBe(401);
    const zh = await switchToChinese(jar, await refused.text());
    expect(zh.link).not.toContain('/login');
    expect(zh.status).toBe(200);
    expect(zh.html).toContain('lang="zh-CN"');
    expect(zh.html).toContain('name="password"');
  });

  it("after a step's refusal reloads the step in the other language", async () => {
    const bo = await createAccount(ctx, { username: 'bo-language' });
    await ctx.database.db
      .updateTable('accounts')
      .set({ must_change_password: true })
      .where('id', '=', bo.id)
      .execute();
    const { jar, location, csrf } = await signInPage();
    const signedIn = await request(
      jar,
      `${location}/login`,
      form({ csrf, identifier: bo.username, password: bo.password }),
    );
    expect(signedIn.status).toBe(303);
    const step = await request(jar, new URL(signedIn.headers.get('location') ?? '', ctx.baseUrl).toString());
    const stepHtml = await step.text();
    const action = /<form[^>]*action="([^"]*\/step\/[^"]*)"/.exec(stepHtml)?.[1];
    expect(action).toBeDefined();
    const refused = await request(
      jar,
      new URL(action ?? '', ctx.baseUrl).toString(),
      form({ csrf: csrfOf(stepHtml), newPassword: 'Another-Password-1', confirmPassword: 'different' }),
    );
    expect(refused.status).toBe(400);
    const zh = await switchToChinese(jar, await refused.text());
    expect(zh.status).toBe(200);
    expect(zh.html).toContain('lang="zh-CN"');
    expect(zh.html).toContain('name="newPassword"');
  });
});
