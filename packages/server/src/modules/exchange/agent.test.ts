import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfOf, decodeEntities, postForm, signInToPortal } from '../../test/browser-flow.ts';
import { type ExchangeStandIn, startExchangeStandIn } from '../../test/exchange-stand-in.ts';
import { call, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import {
  activeSync,
  androidGmail,
  iPhone,
  type PhoneProfile,
  pingBody,
  syncBody,
  windowsMail,
} from '../../test/phone.ts';
import { ROTATION_JOB } from './device-rotation.ts';

/**
 * Issue 18: the Exchange agent between phones and an Exchange stand-in, driven the way iOS Mail,
 * Android Gmail and Windows Mail send ActiveSync requests.
 */
let ctx: TestContext;
let exchange: ExchangeStandIn;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let token: string;
const SERVICE = { username: 'svc-activesync', password: 'Service-Pass-9' };
const people = {
  alice: { username: 'alice', email: 'alice@acme.test', password: 'Sunny-Day-42', id: '' },
  bob: { username: 'bob', email: 'bob@acme.test', password: 'Sunny-Day-42', id: '' },
};

type Device = {
  deviceId: string;
  activeSyncId: string;
  activation: string;
  status: string;
  online: boolean;
  os: string | null;
  type: string;
  lastLoginAt: string | null;
};

async function manage<T = Record<string, unknown>>(path: string, body: unknown = {}) {
  const answer = await call<T>(ctx, path, body, { token: owner.token, companyId: owner.companyId });
  if (answer.code !== 200) throw new Error(`${path}: ${answer.code} ${JSON.stringify(answer.data)}`);
  return answer.data;
}

const devicesOf = async (userId: string) =>
  (await manage<{ list: Device[] }>('/api/v1/manage/user/exchange/admin/device/list', { userId })).list;
const deviceNamed = async (userId: string, phone: PhoneProfile) =>
  (await devicesOf(userId)).find((device) => device.activeSyncId === phone.deviceId);

/** The agent's decisions about a person, newest first. */
const causesOf = async (accountId: string) =>
  (
    await ctx.database.db
      .selectFrom('login_events')
      .select(['failure_cause', 'result'])
      .where('account_id', '=', accountId)
      .where('client_id', '=', 'tessera-exchange-agent')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute()
  ).map((event) => event.failure_cause ?? event.result);

/** The device password its person sees once in the user centre (the account page's form). */
async function passwordShownTo(person: { username: string; password: string }, deviceRowId: string) {
  const { jar, page } = await signInToPortal(ctx.baseUrl, person.username, person.password);
  const { html } = page;
  expect(html).toContain(`data-device-id="${deviceRowId}"`);
  const { html: shown } = await postForm(jar, `${ctx.baseUrl}/portal/account/devices/reveal`, {
    csrf: csrfOf(html),
    deviceId: deviceRowId,
  });
  const password = /data-device-password="([^"]+)"/.exec(shown)?.[1];
  // Shown once: a second look finds it gone.
  const { html: again } = await postForm(jar, `${ctx.baseUrl}/portal/account/devices/reveal`, {
    csrf: csrfOf(html),
    deviceId: deviceRowId,
  });
  expect(again).not.toContain('data-device-password');
  return decodeEntities(password ?? '');
}

/** A phone set up with the registration token, approved by the administrator, given its password. */
async function enrol(person: (typeof people)['alice'], phone: PhoneProfile) {
  const first = await activeSync(ctx.baseUrl, phone, {
    user: person.email,
    password: token,
    body: syncBody(),
  });
  expect(first.status).toBe(401);
  const device = (await deviceNamed(person.id, phone)) as Device;
  await manage('/api/v1/manage/user/exchange/admin/device/approve', { deviceIds: [device.deviceId] });
  return { device, password: await passwordShownTo(person, device.deviceId) };
}

beforeAll(async () => {
  ctx = await startTestApp({ listen: true });
  exchange = await startExchangeStandIn({
    service: SERVICE,
    mailboxes: [people.alice.email, people.bob.email],
    ownPasswords: { [people.alice.email]: 'Alice-Own-Exchange-1' },
    pingHoldMs: 1500,
  });
  owner = await ownerWithCompany(ctx, 'eas-owner', 'Acme Mail');
  for (const person of Object.values(people)) {
    const created = await manage<{ userId: string }>('/api/v1/manage/company/user/create', {
      username: person.username,
      email: person.email,
      role: 'member',
      password: person.password,
    });
    person.id = created.userId;
  }
  await manage('/api/v1/manage/safety/exchange/update', {
    enabled: true,
    exchangeUrl: exchange.url,
    credentialMode: 'service',
    serviceUsername: SERVICE.username,
    servicePassword: SERVICE.password,
    activation: 'approval',
    userDeviceLimit: 3,
    defaultDevicePermission: 'user',
  });
  token = (await manage<{ token: string }>('/api/v1/manage/safety/device/token')).token;
});
afterAll(async () => {
  await exchange?.close();
  await ctx?.close();
});

describe('the Exchange agent', () => {
  it('asks a phone without credentials for them, and lets the setup OPTIONS through with the service account', async () => {
    const bare = await activeSync(ctx.baseUrl, iPhone(), { method: 'OPTIONS', user: people.alice.email });
    expect(bare.status).toBe(401);
    expect(bare.headers['www-authenticate']).toMatch(/^Basic realm=/);
    const options = await activeSync(ctx.baseUrl, iPhone(), {
      method: 'OPTIONS',
      user: people.alice.email,
      password: token,
    });
    expect(options.status).toBe(200);
    expect(options.headers['ms-asprotocolversions']).toContain('16.1');
    const seen = exchange.requests.at(-1);
    expect(seen?.method).toBe('OPTIONS');
    expect(seen?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${SERVICE.username}:${SERVICE.password}`).toString('base64')}`,
    );
  });

  it('registers an iPhone "to be activated" on its first Sync, and lets it sync once approved with its own password', async () => {
    const seenBefore = exchange.requests.length;
    const first = await activeSync(ctx.baseUrl, iPhone(), {
      user: people.alice.email,
      password: token,
      body: syncBody(),
    });
    expect(first.status).toBe(401);
    const waiting = (await deviceNamed(people.alice.id, iPhone())) as Device;
    expect(waiting).toMatchObject({
      activation: 'to_be_activated',
      status: 'enabled',
      type: 'iPhone',
      os: 'iOS',
    });
    // Waiting, the token does not let it through either; Exchange never saw these.
    expect(
      (
        await activeSync(ctx.baseUrl, iPhone(), {
          user: people.alice.email,
          password: token,
          body: syncBody(),
        })
      ).status,
    ).toBe(401);
    expect(exchange.requests.length).toBe(seenBefore);
    expect((await causesOf(people.alice.id)).slice(0, 2)).toEqual([
      'device_to_be_activated',
      'device_registered',
    ]);

    await manage('/api/v1/manage/user/exchange/admin/device/approve', { deviceIds: [waiting.deviceId] });
    const password = await passwordShownTo(people.alice, waiting.deviceId);
    expect(password).toMatch(/^[A-Za-z2-9]{16}$/);

    // The phone sends the user name it was set up with, in any case: Exchange gets the mailbox.
    const synced = await activeSync(ctx.baseUrl, iPhone(), {
      user: 'ALICE@acme.test',
      password,
      body: syncBody(),
    });
    expect(synced.status).toBe(200);
    expect(synced.headers['content-type']).toBe('application/vnd.ms-sync.wbxml');
    const seen = exchange.requests.at(-1);
    expect(seen).toMatchObject({
      command: 'Sync',
      user: people.alice.email,
      deviceId: iPhone().deviceId,
      deviceType: 'iPhone',
    });
    expect(seen?.headers['user-agent']).toBe(iPhone().userAgent);
    expect(seen?.headers['ms-asprotocolversion']).toBe('16.1');
    expect(synced.body.toString()).toBe(`Sync:${seen?.bodySha256}`);
    expect(await deviceNamed(people.alice.id, iPhone())).toMatchObject({
      activation: 'active',
      online: true,
    });
    expect((await deviceNamed(people.alice.id, iPhone()))?.lastLoginAt).not.toBeNull();

    const wrong = await activeSync(ctx.baseUrl, iPhone(), {
      user: people.alice.email,
      password: `${password}x`,
      body: syncBody(),
    });
    expect(wrong.status).toBe(401);
    expect((await causesOf(people.alice.id))[0]).toBe('device_password_wrong');
  });

  it('serves Android Gmail and the base64 query form, and refuses a fourth device at the limit of 3', async () => {
    for (const phone of [androidGmail(), windowsMail()]) {
      const { password } = await enrol(people.alice, phone);
      const synced = await activeSync(ctx.baseUrl, phone, {
        command: 'FolderSync',
        user: people.alice.email,
        password,
        body: syncBody(),
      });
      expect(synced.status).toBe(200);
      expect(exchange.requests.at(-1)).toMatchObject({
        command: 'FolderSync',
        user: people.alice.email,
        deviceId: phone.deviceId,
        base64: Boolean(phone.base64),
      });
    }
    const fourth = await activeSync(ctx.baseUrl, iPhone('IPADSECONDDEVICE0000000000000001'), {
      user: people.alice.email,
      password: token,
      body: syncBody(),
    });
    expect(fourth.status).toBe(403);
    expect(await devicesOf(people.alice.id)).toHaveLength(3);
    expect((await causesOf(people.alice.id))[0]).toBe('device_limit');
  });

  it('holds a Ping open until Exchange answers it, with the device online meanwhile', async () => {
    const { password } = await enrol(people.bob, iPhone('BOBSIPHONE00000000000000000000AA'));
    const phone = iPhone('BOBSIPHONE00000000000000000000AA');
    const held = once(exchange.events, 'pingHeld');
    const started = Date.now();
    const ping = activeSync(ctx.baseUrl, phone, {
      command: 'Ping',
      user: people.bob.email,
      password,
      body: pingBody(2),
    });
    await held;
    expect(await deviceNamed(people.bob.id, phone)).toMatchObject({ online: true });
    const answer = await ping;
    expect(answer.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    expect(answer.body.subarray(0, 3)).toEqual(Buffer.from([0x03, 0x01, 0x6a]));
  });

  it('streams a large body both ways without holding it', async () => {
    const { password } = await enrol(people.bob, androidGmail('androidbobstream01'));
    const upload = new PassThrough();
    const part = Buffer.alloc(1024 * 1024, 0x5a);
    const LARGE = 12 * 1024 * 1024;
    exchange.answerLarge(LARGE);
    let received = 0;
    const answer = activeSync(ctx.baseUrl, androidGmail('androidbobstream01'), {
      user: people.bob.email,
      password,
      body: upload,
      onResponse(response) {
        response.on('data', (chunk: Buffer) => {
          // Exchange sends the rest only after the phone has its first part: a proxy that held the answer would wait forever.
          if (received === 0) exchange.events.emit('sendRest');
          received += chunk.length;
        });
      },
    });
    // Exchange has the first megabyte before the phone sends the rest: nothing waits for the whole body.
    const first = once(exchange.events, 'firstChunk');
    upload.write(part);
    await first;
    for (let i = 1; i < 8; i++) upload.write(part);
    upload.end();
    const done = await answer;
    exchange.answerLarge(0);
    expect(done.status).toBe(200);
    expect(done.body.length).toBe(LARGE);
    expect(exchange.requests.at(-1)?.bodyBytes).toBe(8 * part.length);
  });

  it('refuses a disabled device and a disabled person, and lets them back when enabled', async () => {
    const device = (await deviceNamed(people.alice.id, androidGmail())) as Device;
    const { password } = await enrolAgain(device);
    const sync = () =>
      activeSync(ctx.baseUrl, androidGmail(), { user: people.alice.email, password, body: syncBody() });
    expect((await sync()).status).toBe(200);
    await manage('/api/v1/manage/user/exchange/admin/device/status', {
      deviceIds: [device.deviceId],
      status: 'disabled',
    });
    expect((await sync()).status).toBe(403);
    expect((await causesOf(people.alice.id))[0]).toBe('device_disabled');
    await manage('/api/v1/manage/user/exchange/admin/device/status', {
      deviceIds: [device.deviceId],
      status: 'enabled',
    });
    expect((await sync()).status).toBe(200);
    await manage('/api/v1/manage/user/status', { userId: people.alice.id, status: 'disabled' });
    expect((await sync()).status).toBe(403);
    expect((await causesOf(people.alice.id))[0]).toBe('account_disabled');
    await manage('/api/v1/manage/user/status', { userId: people.alice.id, status: 'enabled' });
    expect((await sync()).status).toBe(200);
  });

  it('rotates device passwords as a job once they are older than the rotation days: the old one stops', async () => {
    const device = (await deviceNamed(people.alice.id, androidGmail())) as Device;
    const { password } = await enrolAgain(device);
    await ctx.database.db
      .updateTable('exchange_devices')
      .set({ password_set_at: new Date(Date.now() - 8 * 86_400_000) })
      .where('id', '=', device.deviceId)
      .execute();
    await ctx.tessera.jobs.runSoon(ROTATION_JOB);
    await ctx.tessera.jobs.drain();
    const old = await activeSync(ctx.baseUrl, androidGmail(), {
      user: people.alice.email,
      password,
      body: syncBody(),
    });
    expect(old.status).toBe(401);
    const rotated = await passwordShownTo(people.alice, device.deviceId);
    expect(rotated).not.toBe(password);
    expect(
      (
        await activeSync(ctx.baseUrl, androidGmail(), {
          user: people.alice.email,
          password: rotated,
          body: syncBody(),
        })
      ).status,
    ).toBe(200);
  });

  it('registers nothing with a replaced registration token', async () => {
    const { token: next } = await manage<{ token: string }>('/api/v1/manage/safety/device/token/rotate');
    expect(next).not.toBe(token);
    const phone = iPhone('BOBSSECONDIPHONE0000000000000002');
    const before = (await devicesOf(people.bob.id)).length;
    expect(
      (await activeSync(ctx.baseUrl, phone, { user: people.bob.email, password: token, body: syncBody() }))
        .status,
    ).toBe(401);
    expect(await devicesOf(people.bob.id)).toHaveLength(before);
    expect((await causesOf(people.bob.id))[0]).toBe('device_unknown');
    expect(
      (await activeSync(ctx.baseUrl, phone, { user: people.bob.email, password: next, body: syncBody() }))
        .status,
    ).toBe(401);
    expect(await deviceNamed(people.bob.id, phone)).toMatchObject({ activation: 'to_be_activated' });
    token = next;
  });

  it('answers 503, not 401, when Exchange refuses the service account (the phone must not ask its person)', async () => {
    await manage('/api/v1/manage/safety/exchange/update', {
      enabled: true,
      exchangeUrl: exchange.url,
      credentialMode: 'service',
      serviceUsername: SERVICE.username,
      servicePassword: 'Not-The-Password',
      activation: 'approval',
      userDeviceLimit: 3,
      defaultDevicePermission: 'user',
    });
    const device = (await deviceNamed(people.alice.id, androidGmail())) as Device;
    const { password } = await enrolAgain(device);
    const answer = await activeSync(ctx.baseUrl, androidGmail(), {
      user: people.alice.email,
      password,
      body: syncBody(),
    });
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBeDefined();
  });

  it("signs in to Exchange with the person's own account, saved sealed in the user centre, when the company chooses", async () => {
    await manage('/api/v1/manage/safety/exchange/update', {
      enabled: true,
      exchangeUrl: exchange.url,
      credentialMode: 'personal',
      activation: 'approval',
      userDeviceLimit: 3,
      defaultDevicePermission: 'user',
    });
    const device = (await deviceNamed(people.alice.id, androidGmail())) as Device;
    const { password } = await enrolAgain(device);
    const sync = () =>
      activeSync(ctx.baseUrl, androidGmail(), { user: people.alice.email, password, body: syncBody() });
    // Nothing saved yet: refused without reaching Exchange.
    expect((await sync()).status).toBe(403);
    expect((await causesOf(people.alice.id))[0]).toBe('exchange_credentials_missing');
    const { jar, page } = await signInToPortal(ctx.baseUrl, people.alice.username, people.alice.password);
    const signInPage = `${ctx.baseUrl}/portal/account/exchange/${owner.companyId}`;
    expect(page.html).toContain(`/portal/account/exchange/${owner.companyId}`);
    const saved = await postForm(jar, signInPage, {
      csrf: csrfOf(page.html),
      username: people.alice.email,
      password: 'Alice-Own-Exchange-1',
    });
    expect(saved.html).not.toContain('Alice-Own-Exchange-1');
    const stored = await ctx.database.db
      .selectFrom('exchange_credentials')
      .selectAll()
      .executeTakeFirstOrThrow();
    expect(stored.password_sealed).not.toContain('Alice-Own-Exchange-1');
    expect((await sync()).status).toBe(200);
    expect(exchange.requests.at(-1)?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${people.alice.email}:Alice-Own-Exchange-1`).toString('base64')}`,
    );
  });
});

/** A new password for an active device of alice, from the user centre's "new password" form. */
async function enrolAgain(device: Device) {
  const { jar, page } = await signInToPortal(ctx.baseUrl, people.alice.username, people.alice.password);
  const { html } = page;
  const { html: shown } = await postForm(jar, `${ctx.baseUrl}/portal/account/devices/password`, {
    csrf: csrfOf(html),
    deviceId: device.deviceId,
  });
  return { password: decodeEntities(/data-device-password="([^"]+)"/.exec(shown)?.[1] ?? '') };
}
