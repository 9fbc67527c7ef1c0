import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSealer } from '../../lib/crypto.ts';
import { base32Decode, generateTotp } from '../../lib/otp/totp.ts';
import { call, companyMember, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import { radclient, radtest, skipWithoutRadclient } from '../../test/radclient.ts';
import { createMfaService } from '../mfa/mfa.service.ts';
import { attribute, code } from './radius-packet.ts';

/**
 * Issue 17, RADIUS: Debian's radclient (a peer we did not write) signs people in through
 * Tessera's RADIUS server: accept, reject, challenge then accept, the code after the password,
 * a locked person refused; requests without a Message-Authenticator, with a wrong one, or with
 * a wrong secret are dropped and counted; unknown clients dropped; retransmissions answered
 * once (RFC 5080); login events carry the client, NAS and calling station.
 */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let port: number;
beforeAll(async () => {
  ctx = await startTestApp({ radius: true });
  port = ctx.tessera.radius?.port as number;
  owner = await ownerWithCompany(ctx, 'radius-owner', 'Radius Networks');
});
afterAll(() => ctx.close());

const admin = <T = Record<string, unknown>>(path: string, body: unknown) =>
  call<T>(ctx, path, body, { token: owner.token, companyId: owner.companyId });

type Client = { client: { clientId: string; stats: Record<string, number> }; secret: string };
async function addClient(body: Record<string, unknown> = {}) {
  const created = await admin<Client>('/api/v1/manage/radius/client/create', {
    name: `VPN ${randomBytes(3).toString('hex')}`,
    source: '127.0.0.1',
    ...body,
  });
  expect(created.code, created.msg).toBe(200);
  return created.data;
}
const statsOf = async (clientId: string) => {
  await ctx.tessera.radius?.flush();
  const list = await admin<{ list: { clientId: string; stats: Record<string, number> }[] }>(
    '/api/v1/manage/radius/client/list',
    {},
  );
  return list.data.list.find((c) => c.clientId === clientId)?.stats;
};
const eventsOf = (identifier: string) =>
  ctx.database.db
    .selectFrom('login_events')
    .select(['result', 'failure_cause', 'client_id', 'ip', 'nas_ip', 'calling_station_id', 'company_id'])
    .where('identifier', '=', identifier)
    .orderBy('created_at')
    .execute();
const setMfa = (mode: string, types: string[] = ['otp', 'otp_sm3']) =>
  admin('/api/v1/manage/safety/mfa/update', {
    mode,
    types,
    lockout: { maxFailures: 5, lockMinutes: 15 },
  });

/** Binds an authenticator app to the person; answers the code of the next time step. */
async function bindOtp(accountId: string) {
  const mfa = createMfaService({ db: ctx.database.db, sealer: createSealer(ctx.masterKey) });
  const account = await ctx.database.db
    .selectFrom('accounts')
    .selectAll()
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  const binding = await mfa.startBinding(account, 'otp');
  const seed = base32Decode(binding.secret);
  // Bound with the previous step's code, so that the current one is still unused.
  await mfa.confirmBinding(account, binding.factorId, generateTotp(seed, Date.now() - 30_000), null);
  return () => generateTotp(seed, Date.now());
}

const pap = (username: string, password: string, extra: Record<string, string> = {}) => ({
  'User-Name': username,
  'User-Password': password,
  'Message-Authenticator': '0x00',
  'NAS-IP-Address': '192.0.2.10',
  'Calling-Station-Id': '203.0.113.7',
  ...extra,
});

describe.skipIf(skipWithoutRadclient)('RADIUS with radclient', () => {
  let vpn: Client;
  let alice: { id: string; username: string; password: string };
  beforeAll(async () => {
    vpn = await addClient();
    alice = await companyMember(ctx, owner, 'radius-alice');
  });

  it('accepts the right password and rejects a wrong one, answering with a Message-Authenticator', async () => {
    const accepted = await radclient(port, vpn.secret, pap(alice.username, alice.password));
    expect(accepted.code, accepted.output).toBe('Access-Accept');
    // radclient checks the answer's authenticators with the secret; the Message-Authenticator is there.
    expect(accepted.attributes['Message-Authenticator']).toMatch(/^0x[0-9a-f]{32}$/);
    const rejected = await radclient(port, vpn.secret, pap(alice.username, 'not-her-password'));
    expect(rejected.code).toBe('Access-Reject');
    // radtest, as an administrator tries a new client by hand.
    expect(await radtest(port, vpn.secret, alice.username, alice.password)).toMatch(/Received Access-Accept/);
    expect(await eventsOf(alice.username)).toEqual([
      expect.objectContaining({
        result: 'success',
        client_id: `radius:${vpn.client.clientId}`,
        ip: '127.0.0.1',
        nas_ip: '192.0.2.10',
        calling_station_id: '203.0.113.7',
        company_id: owner.companyId,
      }),
      expect.objectContaining({ result: 'failure', failure_cause: 'wrong_password', nas_ip: '192.0.2.10' }),
      expect.objectContaining({ result: 'success', client_id: `radius:${vpn.client.clientId}` }),
    ]);
    // The sign-in log shows the NAS and the calling station.
    const log = await admin<{ list: { identifier: string; nas: unknown; appName: unknown }[] }>(
      '/api/v1/manage/log/sign-in/list',
      { range: 'month', userId: alice.id },
    );
    expect(log.data.list).toContainEqual(
      expect.objectContaining({
        appName: null,
        nas: { ip: '192.0.2.10', callingStationId: '203.0.113.7' },
      }),
    );
  });

  it('drops requests without a Message-Authenticator, with a wrong one, or under a wrong secret, and counts them', async () => {
    const before = (await statsOf(vpn.client.clientId)) ?? {};
    const { 'Message-Authenticator': _, ...without } = pap(alice.username, alice.password);
    expect((await radclient(port, vpn.secret, without, { timeoutSeconds: 1 })).code).toBe('none');
    expect(
      (
        await radclient(port, 'a-wrong-shared-secret', pap(alice.username, alice.password), {
          timeoutSeconds: 1,
        })
      ).code,
    ).toBe('none');
    // A request signed with the right secret whose Message-Authenticator was then changed.
    const forged = await forgedRequest(vpn.secret, alice.username);
    expect(forged).toBe('no answer');
    await ctx.tessera.radius?.flush();
    const after = (await statsOf(vpn.client.clientId)) ?? {};
    expect(after.droppedNoAuthenticator).toBe((before.droppedNoAuthenticator ?? 0) + 1);
    expect(after.droppedBadAuthenticator).toBe((before.droppedBadAuthenticator ?? 0) + 2);
    // Nothing was checked: no login events for these.
    expect((await eventsOf(alice.username)).length).toBe(3);
  });

  it('drops requests of clients it does not know, and of disabled ones', async () => {
    const other = await addClient({ source: '198.51.100.0/24' });
    expect(
      (await radclient(port, other.secret, pap(alice.username, alice.password), { timeoutSeconds: 1 })).code,
    ).toBe('none');
    await admin('/api/v1/manage/radius/client/update', { clientId: vpn.client.clientId, enabled: false });
    await ctx.tessera.radius?.reload();
    expect(
      (await radclient(port, vpn.secret, pap(alice.username, alice.password), { timeoutSeconds: 1 })).code,
    ).toBe('none');
    await admin('/api/v1/manage/radius/client/update', { clientId: vpn.client.clientId, enabled: true });
    await ctx.tessera.radius?.reload();
  });

  it('answers the request right after a change of clients as changed, without waiting for a reload (issue 28)', async () => {
    const nas = await addClient({ source: '127.0.0.1' });
    // radclient proves the client works; the rounds send from this process, as a busy NAS's
    // request reaches the server the moment the change is answered.
    expect((await radclient(port, nas.secret, pap(alice.username, alice.password))).code).toBe(
      'Access-Accept',
    );
    const peer = await udpPeer();
    const stale: string[] = [];
    // Each request has its own identifier, so that an answer is never taken for another's.
    let identifier = 0;
    const ask = async (secret: string, waitMs: number) => {
      const mine = ++identifier;
      peer.send(requestPacket(secret, alice.username, alice.password, mine));
      const until = Date.now() + waitMs;
      for (let answer = await peer.next(waitMs); answer; answer = await peer.next(until - Date.now()))
        if (answer[1] === mine) return answer[0];
      return undefined;
    };
    try {
      for (let round = 0; round < 20; round++) {
        const reset = await admin<{ secret: string }>('/api/v1/manage/radius/client/secret/reset', {
          clientId: nas.client.clientId,
        });
        if ((await ask(reset.data.secret, 10_000)) !== code.accessAccept)
          stale.push(`round ${round}: new secret`);
        await admin('/api/v1/manage/radius/client/update', { clientId: nas.client.clientId, enabled: false });
        if ((await ask(reset.data.secret, 500)) !== undefined) stale.push(`round ${round}: disabled`);
        await admin('/api/v1/manage/radius/client/update', { clientId: nas.client.clientId, enabled: true });
      }
    } finally {
      peer.close();
      await admin('/api/v1/manage/radius/client/del', { clientId: nas.client.clientId });
    }
    expect(stale).toEqual([]);
  });

  it('refuses a locked person whatever the password, as the sign-in page does', async () => {
    const bob = await companyMember(ctx, owner, 'radius-bob');
    for (let i = 0; i < 5; i++) await radclient(port, vpn.secret, pap(bob.username, `guess-${i}`));
    const locked = await radclient(port, vpn.secret, pap(bob.username, bob.password));
    expect(locked.code).toBe('Access-Reject');
    expect((await eventsOf(bob.username)).at(-1)).toMatchObject({ failure_cause: 'account_locked' });
  });

  it('asks for the code with an Access-Challenge, accepts it once, and refuses the State again', async () => {
    await setMfa('required');
    try {
      const carol = await companyMember(ctx, owner, 'radius-carol');
      const code = await bindOtp(carol.id);
      const challenged = await radclient(port, vpn.secret, pap(carol.username, carol.password));
      expect(challenged.code, challenged.output).toBe('Access-Challenge');
      expect(challenged.attributes['Reply-Message']).toBe(
        'Enter the verification code of your authenticator app',
      );
      const state = challenged.attributes.State as string;
      expect(state).toMatch(/^0x[0-9a-f]{64}$/);
      const accepted = await radclient(port, vpn.secret, pap(carol.username, code(), { State: state }));
      expect(accepted.code, accepted.output).toBe('Access-Accept');
      // The State is single use.
      expect((await radclient(port, vpn.secret, pap(carol.username, code(), { State: state }))).code).toBe(
        'Access-Reject',
      );
      expect((await eventsOf(carol.username)).at(-1)).toMatchObject({ failure_cause: 'challenge_expired' });
      // An expired State is refused too.
      const again = await radclient(port, vpn.secret, pap(carol.username, carol.password));
      await ctx.database.db
        .updateTable('radius_challenges')
        .set({ expires_at: new Date(Date.now() - 1000) })
        .execute();
      expect(
        (
          await radclient(
            port,
            vpn.secret,
            pap(carol.username, code(), { State: again.attributes.State as string }),
          )
        ).code,
      ).toBe('Access-Reject');
      // A person without a factor cannot bind one over RADIUS: refused, and the log says why.
      const dave = await companyMember(ctx, owner, 'radius-dave');
      const refused = await radclient(port, vpn.secret, pap(dave.username, dave.password));
      expect(refused.code).toBe('Access-Reject');
      expect(refused.attributes['Reply-Message']).toBe(
        'A second factor is required: bind an authenticator app in the user centre, then sign in again',
      );
      expect((await eventsOf(dave.username)).at(-1)).toMatchObject({ failure_cause: 'mfa_not_bound' });
    } finally {
      await setMfa('off');
    }
  });

  it('takes the code typed after the password for a client in appended mode', async () => {
    await setMfa('optional');
    try {
      const appended = await addClient({ otpMode: 'appended', source: '127.0.0.0/8' });
      const erin = await companyMember(ctx, owner, 'radius-erin');
      const code = await bindOtp(erin.id);
      expect((await radclient(port, appended.secret, pap(erin.username, erin.password))).code).toBe(
        'Access-Reject',
      );
      const accepted = await radclient(
        port,
        appended.secret,
        pap(erin.username, `${erin.password}${code()}`),
      );
      expect(accepted.code, accepted.output).toBe('Access-Accept');
      // People without a factor keep typing their password alone.
      expect((await radclient(port, appended.secret, pap(alice.username, alice.password))).code).toBe(
        'Access-Accept',
      );
      await admin('/api/v1/manage/radius/client/del', { clientId: appended.client.clientId });
    } finally {
      await setMfa('off');
    }
  });

  it('asks for an authenticator app bound before under a keys-only policy, and tells the others why they are refused (issue 28)', async () => {
    // A required policy that allows keys and passkeys but no code kind: RADIUS cannot carry a key.
    expect((await setMfa('required', ['ukey_keyid', 'fido2'])).code).toBe(200);
    try {
      const grace = await companyMember(ctx, owner, 'radius-grace');
      const code = await bindOtp(grace.id);
      const challenged = await radclient(port, vpn.secret, pap(grace.username, grace.password));
      expect(challenged.code, challenged.output).toBe('Access-Challenge');
      const state = challenged.attributes.State as string;
      const accepted = await radclient(port, vpn.secret, pap(grace.username, code(), { State: state }));
      expect(accepted.code, accepted.output).toBe('Access-Accept');
      // The password alone never passes for a person who has no code to give here.
      const henry = await companyMember(ctx, owner, 'radius-henry');
      const refused = await radclient(port, vpn.secret, pap(henry.username, henry.password));
      expect(refused.code).toBe('Access-Reject');
      expect(refused.attributes['Reply-Message']).toBe(
        'This device can ask only for an authenticator app’s code, and your company requires a passkey or key: ask your administrator',
      );
      expect((await eventsOf(henry.username)).at(-1)).toMatchObject({ failure_cause: 'mfa_not_bound' });
    } finally {
      await setMfa('off');
    }
  });

  it('lets only the chosen departments use a restricted client', async () => {
    const tree = await admin<{ tree: { departmentId: string } }>('/api/v1/manage/department/tree', {});
    const dept = await admin<{ departmentId: string }>('/api/v1/manage/department/create', {
      name: 'Field staff',
      parentId: tree.data.tree.departmentId,
    });
    const sub = await admin<{ departmentId: string }>('/api/v1/manage/department/create', {
      name: 'Night shift',
      parentId: dept.data.departmentId,
    });
    const frank = await companyMember(ctx, owner, 'radius-frank');
    await admin('/api/v1/manage/department/member/add', {
      departmentId: sub.data.departmentId,
      userIds: [frank.id],
    });
    await admin('/api/v1/manage/radius/client/update', {
      clientId: vpn.client.clientId,
      access: 'restricted',
      departmentIds: [dept.data.departmentId],
    });
    try {
      expect((await radclient(port, vpn.secret, pap(frank.username, frank.password))).code).toBe(
        'Access-Accept',
      );
      expect((await radclient(port, vpn.secret, pap(alice.username, alice.password))).code).toBe(
        'Access-Reject',
      );
      expect((await eventsOf(alice.username)).at(-1)).toMatchObject({ failure_cause: 'radius_not_allowed' });
      // A person of another company is not let in by its client either.
      const outsider = await ownerWithCompany(ctx, 'radius-outsider', 'Elsewhere');
      expect(
        (await radclient(port, vpn.secret, pap(outsider.account.username, outsider.account.password))).code,
      ).toBe('Access-Reject');
    } finally {
      await admin('/api/v1/manage/radius/client/update', { clientId: vpn.client.clientId, access: 'all' });
    }
  });

  it('answers a retransmission with the answer already sent, and checks the password once (RFC 5080)', async () => {
    const packet = requestPacket(vpn.secret, alice.username, alice.password);
    const before = (await eventsOf(alice.username)).length;
    const peer = await udpPeer();
    try {
      // A copy sent while the first is being worked out is dropped...
      peer.send(packet);
      peer.send(packet);
      const first = await peer.next();
      // ...and one sent after the answer gets that answer again, without a second check.
      peer.send(packet);
      const again = await peer.next();
      expect(first).toBeDefined();
      expect(again?.equals(first as Buffer)).toBe(true);
      expect(await peer.next(300)).toBeUndefined();
      expect((await eventsOf(alice.username)).length).toBe(before + 1);
    } finally {
      peer.close();
    }
  });

  it('answers Status-Server (RFC 5997) for health checks', async () => {
    const status = await radclient(
      port,
      vpn.secret,
      { 'Message-Authenticator': '0x00' },
      { command: 'status' },
    );
    expect(status.code, status.output).toBe('Access-Accept');
  });

  /** An Access-Request with a valid Message-Authenticator, built as a NAS would. */
  function requestPacket(secret: string, username: string, password: string, identifier?: number) {
    const authenticator = randomBytes(16);
    const hidden = Buffer.alloc(16);
    Buffer.from(password).copy(hidden);
    const pad = createHash('md5').update(secret).update(authenticator).digest();
    for (let i = 0; i < 16; i++) hidden[i] = (hidden[i] ?? 0) ^ (pad[i] ?? 0);
    const attrs = Buffer.concat([
      Buffer.from([attribute.messageAuthenticator, 18]),
      Buffer.alloc(16),
      Buffer.from([attribute.userName, username.length + 2]),
      Buffer.from(username),
      Buffer.from([attribute.userPassword, 18]),
      hidden,
    ]);
    const packet = Buffer.concat([
      Buffer.from([code.accessRequest, identifier ?? randomBytes(1)[0] ?? 1, 0, 0]),
      authenticator,
      attrs,
    ]);
    packet.writeUInt16BE(packet.length, 2);
    createHmac('md5', secret).update(packet).digest().copy(packet, 22);
    return packet;
  }

  /** A UDP socket of a NAS: sends to the server, and hands out the answers one by one (bounded wait). */
  async function udpPeer() {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    const answers: Buffer[] = [];
    const waiting: ((answer: Buffer) => void)[] = [];
    socket.on('message', (message) => {
      const waiter = waiting.shift();
      if (waiter) waiter(message);
      else answers.push(message);
    });
    return {
      send: (packet: Buffer) => socket.send(packet, port, '127.0.0.1'),
      next: (timeoutMs = 3000) =>
        answers.length
          ? Promise.resolve(answers.shift())
          : new Promise<Buffer | undefined>((resolve) => {
              const timer = setTimeout(() => {
                waiting.splice(waiting.indexOf(done), 1);
                resolve(undefined);
              }, timeoutMs);
              const done = (answer: Buffer) => {
                clearTimeout(timer);
                resolve(answer);
              };
              waiting.push(done);
            }),
      close: () => socket.close(),
    };
  }

  async function forgedRequest(secret: string, username: string) {
    const packet = requestPacket(secret, username, 'whatever');
    packet.writeUInt8((packet[22] ?? 0) ^ 0xff, 22);
    const peer = await udpPeer();
    peer.send(packet);
    const answer = await peer.next(1000);
    peer.close();
    return answer ? 'answered' : 'no answer';
  }
});
