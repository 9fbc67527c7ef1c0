import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, companyMember, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import { radclient, radtest, skipWithoutRadclient } from '../../test/radclient.ts';

/**
 * Issue 28, RADIUS clients of different companies on one address: company A declares a range
 * for its NAS, company B declares more clients than were once tried for A's exact address, with
 * other secrets. Debian's radclient and radtest, as A's and B's NAS, are answered by the client
 * whose secret signed the request; each company's counters hold its own traffic only; drops that
 * no client's secret explains are counted on the platform's metrics, not on either company.
 */

const metricsToken = 'radius-metrics-token-0123456789abcdef';
let ctx: TestContext;
let port: number;
beforeAll(async () => {
  ctx = await startTestApp({ radius: true, metricsToken });
  port = ctx.tessera.radius?.port as number;
});
afterAll(() => ctx.close());

type Owner = Awaited<ReturnType<typeof ownerWithCompany>>;
type Stats = Record<string, number | string | null>;
type Created = { client: { clientId: string }; secret: string };

async function addClient(owner: Owner, name: string, source: string) {
  const created = await call<Created>(
    ctx,
    '/api/v1/manage/radius/client/create',
    { name, source },
    { token: owner.token, companyId: owner.companyId },
  );
  expect(created.code, created.msg).toBe(200);
  return created.data;
}

/** Every client of the company with its counters, as the console's RADIUS screen lists them. */
async function statsOf(owner: Owner) {
  await ctx.tessera.radius?.flush();
  const listed = await call<{ list: { clientId: string; stats: Stats }[] }>(
    ctx,
    '/api/v1/manage/radius/client/list',
    {},
    { token: owner.token, companyId: owner.companyId },
  );
  expect(listed.code, listed.msg).toBe(200);
  return new Map(listed.data.list.map((c) => [c.clientId, c.stats]));
}

/** The platform's count of RADIUS drops for a reason, from /metrics. */
async function platformDrops(reason: string) {
  const response = await ctx.tessera.app.inject({
    url: '/metrics',
    headers: { authorization: `Bearer ${metricsToken}` },
  });
  expect(response.statusCode).toBe(200);
  const found = new RegExp(`^tessera_radius_dropped_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(
    response.body,
  );
  return Number(found?.[1] ?? 0);
}

const pap = (username: string, password: string) => ({
  'User-Name': username,
  'User-Password': password,
  'Message-Authenticator': '0x00',
  'NAS-IP-Address': '192.0.2.20',
});

const none = {
  accepts: 0,
  rejects: 0,
  challenges: 0,
  droppedNoAuthenticator: 0,
  droppedBadAuthenticator: 0,
  lastRequestAt: null,
};

describe.skipIf(skipWithoutRadclient)('RADIUS clients of two companies on one address (issue 28)', () => {
  let ownerA: Owner;
  let ownerB: Owner;
  let nasA: Created;
  let clientsB: Created[];
  let alice: { username: string; password: string };
  let bob: { username: string; password: string };

  beforeAll(async () => {
    ownerA = await ownerWithCompany(ctx, 'radius-company-a', 'Company A');
    ownerB = await ownerWithCompany(ctx, 'radius-company-b', 'Company B');
    // B's clients are declared first (they are the older ones), for A's NAS's exact address.
    clientsB = [];
    for (let i = 0; i < 10; i++) clientsB.push(await addClient(ownerB, `B device ${i}`, '127.0.0.1'));
    nasA = await addClient(ownerA, 'A VPN', '127.0.0.0/8');
    alice = await companyMember(ctx, ownerA, 'radius-a-alice');
    bob = await companyMember(ctx, ownerB, 'radius-b-bob');
    await ctx.tessera.radius?.reload();
  });

  it("answers A's NAS, counts its traffic on A's client and none of it on B's", async () => {
    const accepted = await radclient(port, nasA.secret, pap(alice.username, alice.password));
    expect(accepted.code, accepted.output).toBe('Access-Accept');
    expect(await radtest(port, nasA.secret, alice.username, alice.password)).toMatch(
      /Received Access-Accept/,
    );
    const rejected = await radclient(port, nasA.secret, pap(alice.username, 'not-her-password'));
    expect(rejected.code, rejected.output).toBe('Access-Reject');

    const a = await statsOf(ownerA);
    expect(a.get(nasA.client.clientId)).toMatchObject({
      accepts: 2,
      rejects: 1,
      droppedNoAuthenticator: 0,
      droppedBadAuthenticator: 0,
    });
    const b = await statsOf(ownerB);
    expect(b.size).toBe(clientsB.length);
    for (const stats of b.values()) expect(stats).toEqual(none);
  });

  it("answers B's own NAS on B's client, whichever of B's clients it is", async () => {
    const last = clientsB.at(-1) as Created;
    const accepted = await radclient(port, last.secret, pap(bob.username, bob.password));
    expect(accepted.code, accepted.output).toBe('Access-Accept');
    // A's people are not let in through B's client.
    expect((await radclient(port, last.secret, pap(alice.username, alice.password))).code).toBe(
      'Access-Reject',
    );
    const b = await statsOf(ownerB);
    for (const [clientId, stats] of b)
      if (clientId === last.client.clientId) expect(stats).toMatchObject({ accepts: 1, rejects: 1 });
      else expect(stats).toEqual(none);
    expect((await statsOf(ownerA)).get(nasA.client.clientId)).toMatchObject({ accepts: 2, rejects: 1 });
  });

  it('counts drops no secret explains on the platform, not on either company', async () => {
    const beforeBad = await platformDrops('bad_message_authenticator');
    const beforeMissing = await platformDrops('no_message_authenticator');
    const before = [...(await statsOf(ownerA)).values(), ...(await statsOf(ownerB)).values()];

    // A secret no client has.
    const stranger = await radclient(port, 'a-secret-no-client-has', pap(alice.username, alice.password), {
      timeoutSeconds: 1,
    });
    expect(stranger.code).toBe('none');
    // A's secret, without a Message-Authenticator: several clients hold the address, so the
    // request is nobody's (and never answered: the Message-Authenticator is required).
    const { 'Message-Authenticator': _, ...without } = pap(alice.username, alice.password);
    expect((await radclient(port, nasA.secret, without, { timeoutSeconds: 1 })).code).toBe('none');

    expect(await platformDrops('bad_message_authenticator')).toBe(beforeBad + 1);
    expect(await platformDrops('no_message_authenticator')).toBe(beforeMissing + 1);
    const after = [...(await statsOf(ownerA)).values(), ...(await statsOf(ownerB)).values()];
    expect(after).toEqual(before);
  });
});
