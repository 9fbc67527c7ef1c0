import type { KyselyPlugin, RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSealer } from '../../lib/crypto.ts';
import { call, companyMember, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import { createAccountsRepo } from '../account/account.repo.ts';
import { createMfaService } from '../mfa/mfa.service.ts';
import { createSignInService } from '../signin/signin.service.ts';
import { createRadiusAuthenticator, type KnownClient, type PapRequest } from './radius-auth.ts';
import { code } from './radius-packet.ts';

/**
 * The work of a RADIUS Access-Request once its client is known (radius-auth.ts), counted in SQL
 * statements: after the password is right the RADIUS path reads who may use the client, the
 * person's role and the company's MFA settings in one statement, on top of the sign-in pipeline's
 * own. The second factor decided from that read follows the company's mode as before.
 */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let client: KnownClient;
/** Statements run through the counted handle, by kind (raw SQL by its first words). */
const statements: string[] = [];

/** Counts statements as they answer (a query built into another one is no statement of its own). */
const built = new WeakMap<object, string>();
const counter: KyselyPlugin = {
  transformQuery({ node, queryId }) {
    built.set(queryId, kindOf(node));
    return node;
  },
  transformResult: async ({ result, queryId }) => {
    statements.push(built.get(queryId) ?? 'unknown');
    return result;
  },
};
function kindOf(node: RootOperationNode): string {
  if (node.kind === 'RawNode') return `raw: ${node.sqlFragments.join('?').trim().slice(0, 60)}`;
  return node.kind;
}

const admin = <T = Record<string, unknown>>(path: string, body: unknown) =>
  call<T>(ctx, path, body, { token: owner.token, companyId: owner.companyId });

function services() {
  const db = ctx.database.db.withPlugin(counter);
  const accounts = createAccountsRepo(db);
  const signIn = createSignInService({ db, accounts });
  const mfa = createMfaService({ db, sealer: createSealer(ctx.masterKey) });
  return { signIn, authenticator: createRadiusAuthenticator({ db, accounts, signIn, mfa }) };
}

const pap = (username: string, password: string): PapRequest => ({
  client,
  sourceIp: '127.0.0.1',
  username,
  password: Buffer.from(password),
  state: null,
  nasIp: '127.0.0.1',
  callingStationId: `02-00-00-00-00-${Math.floor(Math.random() * 256)
    .toString(16)
    .padStart(2, '0')}`,
});

const setMfa = (mode: string) =>
  admin('/api/v1/manage/safety/mfa/update', {
    mode,
    types: ['otp'],
    lockout: { maxFailures: 5, lockMinutes: 15 },
  });

const lastEvent = (identifier: string) =>
  ctx.database.db
    .selectFrom('login_events')
    .select(['result', 'failure_cause'])
    .where('identifier', '=', identifier)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();

beforeAll(async () => {
  ctx = await startTestApp();
  owner = await ownerWithCompany(ctx, 'radius-auth-owner', 'Radius Auth Ltd');
  const created = await admin<{ client: { clientId: string } }>('/api/v1/manage/radius/client/create', {
    name: 'Office VPN',
    source: '127.0.0.1',
  });
  expect(created.code, created.msg).toBe(200);
  client = {
    id: created.data.client.clientId,
    companyId: owner.companyId,
    name: 'Office VPN',
    access: 'all',
    otpMode: 'challenge',
    smsCodes: false,
    language: 'en',
  };
});
afterAll(() => ctx.close());

describe('a RADIUS Access-Request after its client is known', () => {
  it('adds one statement to the sign-in pipeline for an Access-Accept', async () => {
    const person = await companyMember(ctx, owner, 'radius-auth-grace');
    const { signIn, authenticator } = services();
    // The sign-in pipeline alone, with the same attempt but no client to check.
    statements.length = 0;
    const bare = await signIn.signInWithPassword({
      identifier: person.username,
      password: person.password,
      ip: '127.0.0.1',
      userAgent: null,
      clientId: `radius:${client.id}`,
      companyId: owner.companyId,
      budgetAddress: `radius:${client.id}:02-00-00-00-00-01`,
    });
    expect(bare.ok).toBe(true);
    const pipeline = [...statements];

    statements.length = 0;
    expect(await authenticator.authenticate(pap(person.username, person.password))).toEqual({
      code: code.accessAccept,
    });
    // Who may use the client, the role and the MFA settings: one statement, where there were three.
    expect(statements.length, statements.join('\n')).toBe(pipeline.length + 1);
    expect(statements.filter((s) => s.includes('allowed_departments'))).toHaveLength(1);
  });

  it('asks the company’s administrators only for a second factor in mode admins', async () => {
    const person = await companyMember(ctx, owner, 'radius-auth-heidi');
    const { authenticator } = services();
    await setMfa('admins');
    try {
      expect((await authenticator.authenticate(pap(person.username, person.password))).code).toBe(
        code.accessAccept,
      );
      // The owner is asked, has no factor and cannot bind one over RADIUS.
      expect(
        (await authenticator.authenticate(pap(owner.account.username, owner.account.password))).code,
      ).toBe(code.accessReject);
      expect(await lastEvent(owner.account.username)).toMatchObject({
        result: 'failure',
        failure_cause: 'mfa_not_bound',
      });
      await setMfa('required');
      expect((await authenticator.authenticate(pap(person.username, person.password))).code).toBe(
        code.accessReject,
      );
      expect(await lastEvent(person.username)).toMatchObject({ failure_cause: 'mfa_not_bound' });
    } finally {
      await setMfa('off');
    }
    expect((await authenticator.authenticate(pap(person.username, person.password))).code).toBe(
      code.accessAccept,
    );
  });

  it('refuses a person of another company and a disabled user of this one', async () => {
    const { authenticator } = services();
    const outsider = await ownerWithCompany(ctx, 'radius-auth-outsider', 'Elsewhere Ltd');
    expect(
      (await authenticator.authenticate(pap(outsider.account.username, outsider.account.password))).code,
    ).toBe(code.accessReject);
    expect(await lastEvent(outsider.account.username)).toMatchObject({ failure_cause: 'radius_not_allowed' });
    const ivan = await companyMember(ctx, owner, 'radius-auth-ivan');
    await ctx.database.db
      .updateTable('company_members')
      .set({ status: 'disabled' })
      .where('account_id', '=', ivan.id)
      .execute();
    expect((await authenticator.authenticate(pap(ivan.username, ivan.password))).code).toBe(
      code.accessReject,
    );
    expect(await lastEvent(ivan.username)).toMatchObject({ result: 'failure' });
  });
});
