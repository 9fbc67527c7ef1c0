import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInForCode } from '../../test/browser-flow.ts';
import { call, companyMember, ownerWithCompany, type TestContext } from '../../test/harness.ts';
import {
  alsoMemberOf,
  CALLBACK,
  openedApp,
  relyingParty,
  startWithCompany,
  type TestApp,
} from '../../test/oidc-flow.ts';

/**
 * Issue 28, the decision subject: an application names a person to the decision API by the `sub`
 * of the ID token it received (pairwise per company), as an independent relying party
 * (openid-client) gets it. The account id, or the `sub` another company's applications see, is an
 * unknown person, answered exactly as any unknown person is.
 */
let ctx: TestContext;
let acme: Awaited<ReturnType<typeof ownerWithCompany>>;
let globex: Awaited<ReturnType<typeof ownerWithCompany>>;
let petra: { id: string; username: string; password: string };
let orders: TestApp;
let crm: TestApp;

beforeAll(async () => {
  ({ ctx, owner: acme } = await startWithCompany('subject-decision-owner', 'Acme'));
  globex = await ownerWithCompany(ctx, 'subject-decision-globex', 'Globex');
  petra = await companyMember(ctx, acme, 'petra.subject');
  // Petra works for Globex too: its applications see her under another `sub`.
  await alsoMemberOf(ctx, globex.companyId, petra.id);
  const admin = async <T = Record<string, unknown>>(path: string, body: unknown) => {
    const answer = await call<T>(ctx, path, body, { token: acme.token, companyId: acme.companyId });
    expect(answer.code, answer.msg).toBe(200);
    return answer.data;
  };
  orders = await openedApp(ctx, acme, {}, { name: 'Orders' });
  crm = await openedApp(ctx, globex, {}, { name: 'CRM' });
  const { resourceId } = await admin<{ resourceId: string }>('/api/v1/manage/permission/resource/create', {
    appId: orders.appId,
    name: 'orders',
    actions: ['read', 'write'],
  });
  const { roleId } = await admin<{ roleId: string }>('/api/v1/manage/permission/role/create', {
    name: 'Clerks',
    description: 'Keep the orders',
  });
  await admin('/api/v1/manage/permission/role/member/add', { roleId, userIds: [petra.id] });
  await admin('/api/v1/manage/permission/authorization/create', {
    appId: orders.appId,
    subject: { type: 'role', id: roleId },
    resourceIds: [resourceId],
  });
});
afterAll(() => ctx.close());

const configOf = (app: TestApp) => relyingParty(ctx, app);

/** Petra signs in to the application; the relying party keeps the `sub` of her ID token. */
async function subjectAt(app: TestApp) {
  const flow = await signInForCode({
    baseUrl: ctx.baseUrl,
    clientId: app.clientId,
    redirectUri: CALLBACK,
    identifier: petra.username,
    password: petra.password,
    scope: 'openid profile',
  });
  const tokens = await client.authorizationCodeGrant(await configOf(app), flow.callbackUrl, {
    pkceCodeVerifier: flow.verifier,
    expectedState: flow.state,
  });
  const sub = tokens.claims()?.sub;
  expect(sub).toBeTruthy();
  return sub as string;
}

/** The decision API over HTTP, as the application's server calls it: status and envelope. */
async function decide(path: string, body: unknown, authorization: string) {
  const response = await fetch(`${ctx.baseUrl}/api/v1/app/permission/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The same three questions about one person: check, check-many and list. */
const askAbout = (userId: string, authorization: string) =>
  Promise.all([
    decide('check', { userId, resource: 'orders', action: 'write' }, authorization),
    decide('check-many', { checks: [{ userId, resource: 'orders', action: 'read' }] }, authorization),
    decide('list', { userId }, authorization),
  ]);

describe('the decision API and the sub of an ID token', () => {
  it('knows the person by the sub the application received, with Basic and with a bearer token', async () => {
    const sub = await subjectAt(orders);
    expect(sub).not.toBe(petra.id);
    const basic = `Basic ${Buffer.from(`${orders.clientId}:${orders.clientSecret}`).toString('base64')}`;
    const token = await client.clientCredentialsGrant(await configOf(orders));
    const bearer = `Bearer ${token.access_token}`;
    for (const authorization of [basic, bearer]) {
      const [check, many, list] = await askAbout(sub, authorization);
      expect(check).toMatchObject({ status: 200, body: { data: { allowed: true, reason: 'allowed' } } });
      expect(many.body).toMatchObject({ data: { results: [{ allowed: true, reason: 'allowed' }] } });
      expect(list.body).toMatchObject({
        data: {
          allowed: true,
          reason: 'allowed',
          permissions: [{ resource: 'orders', actions: ['read', 'write'] }],
        },
      });
    }
  });

  it("answers the account id and another company's sub as any unknown person", async () => {
    const elsewhere = await subjectAt(crm);
    expect(elsewhere).not.toBe(await subjectAt(orders));
    const basic = `Basic ${Buffer.from(`${orders.clientId}:${orders.clientSecret}`).toString('base64')}`;
    const unknown = await askAbout('someone-nobody-knows', basic);
    expect(unknown[0]).toMatchObject({ status: 200, body: { data: { reason: 'unknown_person' } } });
    expect(unknown[2].body).toMatchObject({ data: { reason: 'unknown_person', permissions: [] } });
    for (const userId of [petra.id, elsewhere]) expect(await askAbout(userId, basic)).toEqual(unknown);
  });
});
