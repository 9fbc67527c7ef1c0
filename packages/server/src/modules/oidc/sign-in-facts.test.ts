import { mfaTypes, signInDefaults } from '@tessera/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSealer } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import {
  accountRow,
  companyMember,
  createAccount,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import { createMfaService } from '../mfa/mfa.service.ts';
import { beginAttempt } from '../signin/signin-attempt.ts';
import { accountWithFacts, signInFactsOf, signInFactsQuery } from './sign-in-facts.ts';
import { createSignInSteps } from './sign-in-steps.ts';

/**
 * The password form decides the sign-in steps from facts read with the account in the attempt's
 * statement (sign-in-facts.ts); every other first factor lets the steps ask the database. Both
 * must decide alike, whatever the person's companies, roles, factors and password age.
 */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp({ jobs: { run: false } });
});
afterAll(() => ctx.close());

const db = () => ctx.database.db;

const setSafety = (companyId: string, part: { general?: object; mfa?: object }) =>
  db()
    .insertInto('company_safety')
    .values({
      company_id: companyId,
      general: part.general ? JSON.stringify(part.general) : null,
      mfa: part.mfa ? JSON.stringify(part.mfa) : null,
    })
    .onConflict((oc) =>
      oc.column('company_id').doUpdateSet({
        general: part.general ? JSON.stringify(part.general) : null,
        mfa: part.mfa ? JSON.stringify(part.mfa) : null,
      }),
    )
    .execute();

const bind = (accountId: string, type: string, status: 'bound' | 'unbound' = 'bound') =>
  db()
    .insertInto('mfa_factors')
    .values({ id: newId(), account_id: accountId, type, name: type, status, secret_sealed: null })
    .execute();

/** The steps that apply, decided both ways, for an application that does and one that does not ask for MFA. */
async function decide(username: string) {
  const mfaService = createMfaService({ db: db(), sealer: createSealer(ctx.masterKey) });
  const steps = createSignInSteps({ db: db(), mfa: mfaService });
  const begun = await beginAttempt(db(), {
    identifier: username,
    deviceId: null,
    address: '10.8.0.1',
    companyId: null,
    policy: signInDefaults,
    prefetch: signInFactsQuery,
  });
  if (begun.subject.kind === 'unknown') throw new Error(`no account ${username}`);
  const account = begun.subject.account;
  const facts = signInFactsOf(begun.prefetched);
  expect(facts).toBeDefined();
  // The steps' pages read the account with the same facts and the bound factors themselves.
  const read = await accountWithFacts(db(), account.id);
  expect(read?.account).toEqual(await accountRow(ctx, account.id));
  expect(read?.facts?.boundFactors).toEqual(
    (await mfaService.boundFactors(account.id, mfaTypes)).map(({ id, type, name }) => ({ id, type, name })),
  );
  const outcomes = [];
  for (const mfaRequested of [false, true]) {
    const fromFacts: string[] = [];
    const asked: string[] = [];
    const fromRead: string[] = [];
    for (const step of steps) {
      if (await step.applies(account, { mfaRequested }, facts)) fromFacts.push(step.name);
      if (await step.applies(account, { mfaRequested })) asked.push(step.name);
      if (read && (await step.applies(read.account, { mfaRequested }, read.facts))) fromRead.push(step.name);
    }
    expect(fromFacts).toEqual(asked);
    expect(fromRead).toEqual(asked);
    outcomes.push(asked);
  }
  return outcomes;
}

describe('sign-in steps from the facts read with the account', () => {
  it('decide as the steps do on their own, for every kind of person', async () => {
    const mfa = (mode: string, types: string[]) => ({
      mode,
      types,
      lockout: { maxFailures: 5, lockMinutes: 15 },
    });
    // Nobody's: no company, no factor.
    await createAccount(ctx, { username: 'facts-loner' });
    expect(await decide('facts-loner')).toEqual([[], ['bind_factor', 'second_factor']]);

    // A company requiring OTP of everyone, a member without a factor, then with one.
    const strict = await ownerWithCompany(ctx, 'facts-strict-owner');
    await setSafety(strict.companyId, { mfa: mfa('required', ['otp']) });
    const member = await companyMember(ctx, strict, 'facts-member');
    expect((await decide('facts-member'))[0]).toContain('bind_factor');
    await bind(member.id, 'otp_sm3');
    expect((await decide('facts-member'))[0]).toContain('bind_factor');
    await bind(member.id, 'otp');
    expect((await decide('facts-member'))[0]).toEqual(expect.arrayContaining(['second_factor']));
    expect((await decide('facts-member'))[0]).not.toContain('bind_factor');

    // Mode admins: the owner (an administrator) is asked, a member is not.
    const admins = await ownerWithCompany(ctx, 'facts-admins-owner');
    await setSafety(admins.companyId, { mfa: mfa('admins', ['otp', 'fido2']) });
    await bind(admins.account.id, 'fido2');
    await companyMember(ctx, admins, 'facts-plain-member');
    expect((await decide('facts-admins-owner'))[0]).toEqual(['second_factor']);
    expect((await decide('facts-plain-member'))[0]).toEqual([]);

    // Optional: only someone with a bound factor of an allowed kind is asked.
    const optional = await ownerWithCompany(ctx, 'facts-optional-owner');
    await setSafety(optional.companyId, { mfa: mfa('optional', ['otp_sm3']) });
    const loose = await companyMember(ctx, optional, 'facts-optional-member');
    await bind(loose.id, 'otp', 'unbound');
    expect((await decide('facts-optional-member'))[0]).toEqual([]);
    await bind(loose.id, 'otp_sm3');
    expect((await decide('facts-optional-member'))[0]).toEqual(['second_factor']);

    // A person whose home record is disabled still counts the home company, as a member; and a
    // second company's rules apply too.
    await db()
      .updateTable('company_members')
      .set({ status: 'disabled' })
      .where('account_id', '=', loose.id)
      .execute();
    await db()
      .insertInto('company_members')
      .values({ company_id: strict.companyId, account_id: loose.id, role: 'member' })
      .execute();
    expect(await decide('facts-optional-member')).toBeDefined();

    // The home company's password cycle: an old password is expired.
    await setSafety(strict.companyId, {
      mfa: mfa('off', []),
      general: { password: { changeCycleDays: 1 } },
    });
    await db()
      .updateTable('accounts')
      .set({ password_changed_at: new Date(Date.now() - 3 * 86_400_000), must_change_password: true })
      .where('id', '=', member.id)
      .execute();
    expect((await decide('facts-member'))[0]).toEqual(['change_password', 'password_expired']);
    expect((await accountRow(ctx, member.id)).must_change_password).toBe(true);
  });
});
