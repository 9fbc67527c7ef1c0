import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegatedAdmin } from '../../test/delegated-admin.ts';
import { call, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import { manage } from '../../test/saml-flow.ts';
import { type ScimPeer, startScimPeer } from '../../test/scim-peer.ts';
import { type RecordingScim, startRecordingScim } from '../../test/scim-recorder.ts';
import { createToken, ENTERPRISE, scimClient, USER } from '../scim/scim-test-client.ts';
import { PATCH_OP } from './scim-client.ts';
import { CORE_USER } from './scim-user.ts';

/**
 * Outbound provisioning (issue 31) against a real SCIM service provider (SCIMMY behind
 * scimmy-routers, test/scim-peer.ts), and against a recording server that checks the exact PATCH
 * and PUT bodies. Jobs are run by `drain()`, so each run is awaited, never timed.
 */

type Company = Awaited<ReturnType<typeof ownerWithCompany>>;
type Run = {
  runId: string;
  trigger: string;
  status: string;
  attempts: number;
  counts: Record<string, number>;
  errors: { reason: string; message: string; username: string | null }[];
};

let ctx: TestContext;
let peer: ScimPeer;
let recorder: RecordingScim;
let owner: Company;
const logLines: string[] = [];
/** Every answer the console got in this file: the token must be in none of them. */
const answers: string[] = [];
const people: Record<string, string> = {};

async function console_<T>(path: string, body: unknown, who: Company = owner) {
  const answer = await call<T>(ctx, path, body, { token: who.token, companyId: who.companyId });
  answers.push(JSON.stringify(answer));
  return answer;
}
async function ok<T>(path: string, body: unknown) {
  const answer = await console_<T>(path, body);
  if (answer.code !== 200) throw new Error(`${path}: ${answer.code} ${answer.msg}`);
  return answer.data;
}

async function newApp(name: string) {
  const { app } = await manage<{ app: { appId: string } }>(ctx, owner, '/api/v1/manage/app/create', { name });
  await manage(ctx, owner, '/api/v1/manage/app/update', {
    appId: app.appId,
    redirectUris: ['https://app.example/cb'],
    defaultAccess: 'prohibit_all',
  });
  await manage(ctx, owner, '/api/v1/manage/app/status', { appId: app.appId, status: 'opened' });
  return app.appId;
}

async function person(username: string, email: string, name?: string) {
  const created = await manage<{ userId: string }>(ctx, owner, '/api/v1/manage/user/create', {
    username,
    email,
    name,
    password: 'Sunny-Day-42',
    confirmPassword: 'Sunny-Day-42',
  });
  people[username] = created.userId;
  return created.userId;
}

const assign = (appId: string, ...names: string[]) =>
  ok('/api/v1/manage/app/assignment/add', { appId, userIds: names.map((n) => people[n]) });
const unassign = (appId: string, ...names: string[]) =>
  ok('/api/v1/manage/app/assignment/del', { appId, userIds: names.map((n) => people[n]) });

const target = (appId: string, baseUrl: string, extra: Record<string, unknown> = {}) =>
  console_('/api/v1/manage/app/provisioning/update', {
    appId,
    baseUrl,
    userNameFrom: 'username',
    attributes: ['name', 'emails', 'department'],
    lifecycle: 'full',
    onLoss: 'deactivate',
    enabled: true,
    ...extra,
  });

/** Run now, then run the jobs until none is due; answers the run as recorded. */
async function runNow(appId: string): Promise<Run> {
  const queued = await ok<Run>('/api/v1/manage/app/provisioning/run', { appId });
  await ctx.tessera.jobs.drain();
  const runs = await ok<{ list: Run[] }>('/api/v1/manage/app/provisioning/runs', { appId });
  const run = runs.list.find((r) => r.runId === queued.runId);
  if (!run) throw new Error('run not recorded');
  return run;
}

const remote = (userName: string) => [...peer.users.values()].filter((user) => user.userName === userName);

beforeAll(async () => {
  ctx = await startTestApp({
    jobs: { run: false, backoff: { baseMs: 0, maxMs: 0 } },
    log: { write: (line) => void logLines.push(line) },
  });
  peer = await startScimPeer();
  recorder = await startRecordingScim();
  owner = await ownerWithCompany(ctx, 'provisioning-owner');
});

afterAll(async () => {
  await peer?.close();
  await recorder?.close();
  await ctx?.close();
});

describe('provisioning into a SCIMMY service provider', () => {
  let appId: string;
  beforeAll(async () => {
    appId = await newApp('Wiki');
    await person('alice', 'alice@corp.example', 'Alice Liddell');
    await person('bob', 'bob@corp.example', 'Bob Marley');
    await person('carol', 'carol@corp.example');
  });

  it('keeps the token sealed, never answers it, and tests the connection with it', async () => {
    expect((await target(appId, peer.baseUrl)).code).toBe(400); // the first save needs the token
    const saved = await target(appId, peer.baseUrl, { token: peer.token });
    expect(saved.code).toBe(200);
    expect(saved.data).toMatchObject({ tokenSet: true, baseUrl: peer.baseUrl });
    const row = await ctx.database.db
      .selectFrom('app_provisioning_targets')
      .selectAll()
      .where('app_id', '=', appId)
      .executeTakeFirstOrThrow();
    expect(row.token_sealed).not.toContain(peer.token);
    // Saved again without a token: the one saved stays.
    expect((await target(appId, peer.baseUrl, { enabled: true })).code).toBe(200);
    const tested = await ok<{ ok: boolean; patchSupported: boolean }>(
      '/api/v1/manage/app/provisioning/test',
      {
        appId,
      },
    );
    expect(tested).toMatchObject({ ok: true, patchSupported: true, filterSupported: true });
    expect(peer.requests.at(-1)?.authorization).toBe(`Bearer ${peer.token}`);
  });

  it('a first run creates the people the application is given, and only them', async () => {
    await assign(appId, 'alice', 'bob');
    const preview = await ok<{
      counts: Record<string, number>;
      list: { username: string; action: string }[];
    }>('/api/v1/manage/app/provisioning/preview', { appId });
    expect(preview.counts).toMatchObject({ create: 2, update: 0, deactivate: 0 });
    expect(preview.list.map((row) => [row.username, row.action])).toEqual([
      ['alice', 'create'],
      ['bob', 'create'],
    ]);
    expect(peer.users.size).toBe(0); // a preview sends nothing

    const run = await runNow(appId);
    expect(run).toMatchObject({ status: 'succeeded', counts: { created: 2, failed: 0 } });
    const [alice] = remote('alice');
    expect(alice).toMatchObject({
      active: true,
      displayName: 'Alice Liddell',
      emails: [{ value: 'alice@corp.example', type: 'work', primary: true }],
    });
    expect(remote('carol')).toHaveLength(0);

    // Nothing changed: the next run sends nothing but the read of the target's capabilities.
    const before = peer.requests.length;
    expect((await runNow(appId)).counts).toMatchObject({ created: 0, updated: 0, unchanged: 2 });
    expect(peer.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /scim/v2/ServiceProviderConfig',
    ]);
  });

  it('adopts an account that already exists there instead of creating it twice', async () => {
    const existing = peer.seed({ userName: 'carol', active: false });
    await assign(appId, 'carol');
    const run = await runNow(appId);
    expect(run.counts).toMatchObject({ adopted: 1, created: 0 });
    expect(remote('carol')).toHaveLength(1);
    expect(remote('carol')[0]).toMatchObject({ id: existing, active: true });
  });

  it('sends a change as a PATCH of the changed attribute', async () => {
    await ok('/api/v1/manage/user/update', { userId: people.alice, email: 'alice.l@corp.example' });
    const preview = await ok<{ counts: Record<string, number> }>('/api/v1/manage/app/provisioning/preview', {
      appId,
    });
    expect(preview.counts).toMatchObject({ update: 1, create: 0 });
    const before = peer.requests.length;
    expect((await runNow(appId)).counts).toMatchObject({ updated: 1 });
    const patch = peer.requests.slice(before).find((r) => r.method === 'PATCH');
    expect(patch?.body).toEqual({
      schemas: [PATCH_OP],
      Operations: [
        {
          op: 'replace',
          path: 'emails',
          value: [{ value: 'alice.l@corp.example', type: 'work', primary: true }],
        },
      ],
    });
    expect(remote('alice')[0]?.emails).toEqual([
      { value: 'alice.l@corp.example', type: 'work', primary: true },
    ]);
  });

  it('deactivates people whose access is removed, and those disabled', async () => {
    await unassign(appId, 'bob');
    await ok('/api/v1/manage/user/status', { userId: people.alice, status: 'disabled' });
    const preview = await ok<{ list: { username: string; action: string }[] }>(
      '/api/v1/manage/app/provisioning/preview',
      { appId },
    );
    expect(preview.list.map((row) => [row.username, row.action])).toEqual([
      ['alice', 'deactivate'],
      ['bob', 'deactivate'],
    ]);
    expect((await runNow(appId)).counts).toMatchObject({ deactivated: 2 });
    expect(remote('bob')[0]?.active).toBe(false);
    expect(remote('alice')[0]?.active).toBe(false);
    expect(remote('bob')).toHaveLength(1); // never deleted unless chosen

    // Enabled again: the same account comes back active.
    await ok('/api/v1/manage/user/status', { userId: people.alice, status: 'enabled' });
    expect((await runNow(appId)).counts).toMatchObject({ updated: 1, created: 0 });
    expect(remote('alice')[0]?.active).toBe(true);
  });

  it('records target errors: 409 for one person, 500 retried with back-off, 401 stops the run', async () => {
    await person('dave', 'dave@corp.example');
    await assign(appId, 'dave');
    peer.failNext(409, 1, 'POST');
    const conflicted = await runNow(appId);
    expect(conflicted.status).toBe('succeeded');
    expect(conflicted.counts.failed).toBe(1);
    expect(conflicted.errors).toEqual([
      expect.objectContaining({ reason: 'provisioning.remote_conflict', username: 'dave' }),
    ]);
    expect(remote('dave')).toHaveLength(0);

    // The next run creates dave (the failure sent nothing); the first try meets a 500 and is retried.
    peer.failNext(500, 1, 'GET');
    const retried = await runNow(appId);
    expect(retried).toMatchObject({ status: 'succeeded', attempts: 2, counts: { created: 1 } });
    expect(retried.errors[0]).toMatchObject({ reason: 'provisioning.target_failed' });
    expect(remote('dave')).toHaveLength(1);

    // Three 500s, then the last try: the run is left failed after its tries.
    peer.failNext(500, 4, 'GET');
    const failed = await runNow(appId);
    expect(failed).toMatchObject({ status: 'failed', attempts: 4 });

    expect((await target(appId, peer.baseUrl, { token: 'not-the-token' })).code).toBe(200);
    const refused = await runNow(appId);
    expect(refused).toMatchObject({ status: 'failed', attempts: 1 });
    expect(refused.errors.at(-1)).toMatchObject({ reason: 'provisioning.target_unauthorized' });
    const tested = await ok<{ ok: boolean; status: number }>('/api/v1/manage/app/provisioning/test', {
      appId,
    });
    expect(tested).toMatchObject({ ok: false, status: 401 });
    expect((await target(appId, peer.baseUrl, { token: peer.token })).code).toBe(200);
  });

  it('deletes people who lose access only when the administrator chose deletion', async () => {
    expect((await target(appId, peer.baseUrl, { onLoss: 'delete' })).code).toBe(200);
    await unassign(appId, 'carol');
    const run = await runNow(appId);
    // bob (deactivated earlier) and carol are deleted.
    expect(run.counts).toMatchObject({ deleted: 2 });
    expect(remote('carol')).toHaveLength(0);
    expect(remote('bob')).toHaveLength(0);
    expect(remote('alice')).toHaveLength(1);
  });

  it('refuses addresses of the outbound rule when saved and when connecting', async () => {
    const saved = await target(appId, 'http://10.1.2.3/scim/v2', { token: peer.token });
    expect(saved.data).toMatchObject({ reason: 'outbound.address_refused' });
    // An address that became refused after it was saved (its name resolving elsewhere now).
    await ctx.database.db
      .updateTable('app_provisioning_targets')
      .set({ base_url: 'http://169.254.169.254/scim/v2' })
      .where('app_id', '=', appId)
      .execute();
    const run = await runNow(appId);
    expect(run).toMatchObject({ status: 'failed', attempts: 1 });
    expect(run.errors.at(-1)?.reason).toBe('outbound.address_never');
    expect((await target(appId, peer.baseUrl, { onLoss: 'deactivate' })).code).toBe(200);
  });
});

describe('create-only targets and the exact bodies sent', () => {
  let appId: string;
  beforeAll(async () => {
    appId = await newApp('Ledger');
    await person('erin', 'erin@corp.example', 'Erin Hunt');
  });

  it('creates only, when told so: no update, no deactivation', async () => {
    expect(
      (await target(appId, recorder.baseUrl, { token: recorder.token, lifecycle: 'create_only' })).code,
    ).toBe(200);
    await assign(appId, 'erin');
    expect((await runNow(appId)).counts).toMatchObject({ created: 1 });
    expect(recorder.bodies('POST')).toEqual([
      {
        schemas: [CORE_USER],
        userName: 'erin',
        active: true,
        displayName: 'Erin Hunt',
        name: { formatted: 'Erin Hunt' },
        emails: [{ value: 'erin@corp.example', type: 'work', primary: true }],
      },
    ]);
    await ok('/api/v1/manage/user/update', { userId: people.erin, name: 'Erin Hunter' });
    await unassign(appId, 'erin');
    expect((await runNow(appId)).counts).toMatchObject({ updated: 0, deactivated: 0, unchanged: 1 });
    expect(recorder.bodies('PATCH')).toEqual([]);
  });

  it('full lifecycle: PATCH with replace and remove operations; PUT when the target has no PATCH', async () => {
    expect(
      (await target(appId, recorder.baseUrl, { attributes: ['name', 'emails', 'phoneNumbers'] })).code,
    ).toBe(200);
    await assign(appId, 'erin');
    await ok('/api/v1/manage/user/update', { userId: people.erin, email: null, phone: '13800138000' });
    expect((await runNow(appId)).counts).toMatchObject({ updated: 1 });
    expect(recorder.bodies('PATCH')).toEqual([
      {
        schemas: [PATCH_OP],
        Operations: [
          { op: 'replace', path: 'displayName', value: 'Erin Hunter' },
          { op: 'replace', path: 'name', value: { formatted: 'Erin Hunter' } },
          {
            op: 'replace',
            path: 'phoneNumbers',
            value: [{ value: '13800138000', type: 'work', primary: true }],
          },
          { op: 'remove', path: 'emails' },
        ],
      },
    ]);

    recorder.patchSupported = false;
    await unassign(appId, 'erin');
    expect((await runNow(appId)).counts).toMatchObject({ deactivated: 1 });
    const [put] = recorder.bodies('PUT');
    expect(put).toEqual({
      schemas: [CORE_USER],
      id: recorder.lastId(),
      userName: 'erin',
      active: false,
      displayName: 'Erin Hunter',
      name: { formatted: 'Erin Hunter' },
      phoneNumbers: [{ value: '13800138000', type: 'work', primary: true }],
    });
    expect(recorder.bodies('PATCH')).toHaveLength(1);
  });
});

describe('the enterprise extension', () => {
  it('sends the employeeNumber an inbound SCIM client gave the person, when the target sends it', async () => {
    const appId = await newApp('Payroll');
    const inbound = scimClient(ctx, owner.companyId, (await createToken(ctx, owner, 'HR')).secret);
    const hr = await inbound('POST', '/Users', {
      schemas: [USER, ENTERPRISE],
      userName: 'gus@corp.example',
      displayName: 'Gus Fring',
      [ENTERPRISE]: { employeeNumber: '701984', department: 'Operations' },
    });
    expect(hr.status, JSON.stringify(hr.body)).toBe(201);
    people.gus = hr.body.id as string;
    await assign(appId, 'gus');
    // Into SCIMMY: it keeps the extension as its schema defines it.
    expect(
      (await target(appId, peer.baseUrl, { token: peer.token, attributes: ['employeeNumber'] })).code,
    ).toBe(200);
    expect((await runNow(appId)).counts).toMatchObject({ created: 1, failed: 0 });
    const [gus] = remote('gus@corp.example');
    expect(gus?.[ENTERPRISE]).toMatchObject({ employeeNumber: '701984' });
    // Into the recorder: the exact POST, then the PATCH when the HR system changes the number.
    expect(
      (await target(appId, recorder.baseUrl, { token: recorder.token, attributes: ['employeeNumber'] })).code,
    ).toBe(200);
    recorder.patchSupported = true;
    const from = recorder.requests.length;
    expect((await runNow(appId)).counts).toMatchObject({ created: 1 });
    const posts = () =>
      recorder.requests
        .slice(from)
        .filter((r) => r.method === 'POST')
        .map((r) => r.body);
    expect(posts()).toEqual([
      {
        schemas: [CORE_USER, ENTERPRISE],
        userName: 'gus@corp.example',
        active: true,
        [ENTERPRISE]: { employeeNumber: '701984' },
      },
    ]);
    const changed = await inbound('PATCH', `/Users/${people.gus}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: `${ENTERPRISE}:employeeNumber`, value: '701985' }],
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect((await runNow(appId)).counts).toMatchObject({ updated: 1 });
    expect(
      recorder.requests
        .slice(from)
        .filter((r) => r.method === 'PATCH')
        .map((r) => r.body),
    ).toEqual([
      {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', path: `${ENTERPRISE}:employeeNumber`, value: '701985' }],
      },
    ]);
    // Not among the attributes the target sends: not sent (removed from what was sent).
    expect((await target(appId, recorder.baseUrl, { attributes: ['name'] })).code).toBe(200);
    await runNow(appId);
    const last = recorder.requests.at(-1)?.body as { Operations: { op: string; path: string }[] };
    expect(last.Operations).toContainEqual({ op: 'remove', path: `${ENTERPRISE}:employeeNumber` });
  });
});

describe('runs soon after a change', () => {
  it('queues a run of the application when its access changes, and sends the change', async () => {
    const appId = await newApp('Tickets');
    await person('fay', 'fay@corp.example');
    expect((await target(appId, peer.baseUrl, { token: peer.token })).code).toBe(200);
    const changed = () =>
      ctx.database.db
        .selectFrom('app_provisioning_targets')
        .select('changed_at')
        .where('app_id', '=', appId)
        .executeTakeFirstOrThrow();
    expect((await changed()).changed_at).toBeNull();
    await assign(appId, 'fay');
    expect((await changed()).changed_at).not.toBeNull();
    await ctx.tessera.jobs.runSoon('app-provisioning.changes');
    await ctx.tessera.jobs.drain();
    const runs = await ok<{ list: Run[] }>('/api/v1/manage/app/provisioning/runs', {
      appId,
    });
    expect(runs.list).toEqual([
      expect.objectContaining({
        trigger: 'change',
        status: 'succeeded',
        counts: expect.objectContaining({ created: 1 }),
      }),
    ]);
    expect(remote('fay')).toHaveLength(1);
    expect((await changed()).changed_at).toBeNull();
  });
});

describe('expiring assignments', () => {
  it('deactivates a person within a minute of their assignment expiring, without waiting for the hourly run', async () => {
    const appId = await newApp('Contracts');
    await person('hank', 'hank@corp.example');
    await ok('/api/v1/manage/app/assignment/add', {
      appId,
      userIds: [people.hank],
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
    });
    expect((await target(appId, peer.baseUrl, { token: peer.token })).code).toBe(200);
    expect((await runNow(appId)).counts).toMatchObject({ created: 1 });
    const runs = async () =>
      (await ok<{ list: Run[] }>('/api/v1/manage/app/provisioning/runs', { appId })).list;
    // The changes job, as it runs every minute (driven here, never waited for).
    const minutePasses = async () => {
      await ctx.database.db.updateTable('app_provisioning_targets').set({ changed_at: null }).execute();
      await ctx.tessera.jobs.runSoon('app-provisioning.changes');
      await ctx.tessera.jobs.drain();
    };
    await minutePasses();
    expect(await runs()).toHaveLength(1); // an expiry still to come queues nothing
    // An hour later: the run was long ago, and the assignment expired a minute ago. Nothing wrote
    // anything when it expired (the trigger's mark of this test's own update is cleared).
    await sql`update app_provisioning_runs set created_at = now() - interval '1 hour',
      started_at = now() - interval '1 hour' where app_id = ${appId}`.execute(ctx.database.db);
    await sql`update app_assignments set expires_at = now() - interval '1 minute'
      where app_id = ${appId}`.execute(ctx.database.db);
    await minutePasses();
    const after = await runs();
    expect(after).toHaveLength(2);
    expect(after[0]).toMatchObject({ trigger: 'change', status: 'succeeded', counts: { deactivated: 1 } });
    expect(remote('hank')).toMatchObject([{ active: false }]);
    // Seen: the next minute queues nothing more.
    await minutePasses();
    expect(await runs()).toHaveLength(2);
  });
});

describe('the console calls', () => {
  it('answer people of the app group only, by their level', async () => {
    const appId = await newApp('Roles');
    const reader = await delegatedAdmin(ctx, owner, 'prov-reader', {
      groups: { app: 'read' },
      abilities: [],
    });
    const asReader = { ...owner, token: reader.token };
    expect((await console_('/api/v1/manage/app/provisioning/detail', { appId }, asReader)).code).toBe(200);
    expect((await console_('/api/v1/manage/app/provisioning/runs', { appId }, asReader)).code).toBe(200);
    expect((await console_('/api/v1/manage/app/provisioning/run', { appId }, asReader)).code).toBe(403);
    expect(
      (
        await console_(
          '/api/v1/manage/app/provisioning/update',
          {
            appId,
            baseUrl: peer.baseUrl,
            token: 'x',
            userNameFrom: 'username',
            attributes: [],
            lifecycle: 'full',
            onLoss: 'deactivate',
            enabled: true,
          },
          asReader,
        )
      ).code,
    ).toBe(403);
    const outsider = await delegatedAdmin(ctx, owner, 'prov-user-admin', {
      groups: { user: 'manage' },
      abilities: [],
    });
    expect(
      (
        await console_(
          '/api/v1/manage/app/provisioning/detail',
          { appId },
          { ...owner, token: outsider.token },
        )
      ).code,
    ).toBe(403);
  });

  it('never answer or log a bearer token', () => {
    expect(answers.length).toBeGreaterThan(20);
    for (const secret of [peer.token, recorder.token]) {
      expect(answers.join('\n')).not.toContain(secret);
      expect(logLines.join('\n')).not.toContain(secret);
    }
    expect(logLines.join('\n')).toContain('provisioning');
  });
});
