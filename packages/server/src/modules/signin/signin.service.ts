import { signInDefaults } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Account } from '../../db/schema.ts';
import type { AccountsRepo } from '../account/account.repo.ts';
import { dummyPasswordHash, UNUSABLE_PASSWORD_HASH, verifyPassword } from '../account/password.ts';
import { getSafetySettings } from '../safety/safety.repo.ts';
import { insertLoginEvent, type LoginFailureCause } from './login-events.repo.ts';

export interface SignInAttempt {
  identifier: string;
  password: string;
  ip: string | null;
  userAgent: string | null;
  clientId: string | null;
  companyId: string | null;
  /** Checked once the password is right: a cause refuses the sign-in (for example a client the account may not use). */
  authorize?: (account: Account) => LoginFailureCause | null;
}

export type SignInResult =
  | { ok: true; account: Account }
  | { ok: false; cause: LoginFailureCause; account?: Account; lockedUntil?: Date };

export interface SignInPolicy {
  maxAttemptsPerAccountPerHour: number;
  maxAttemptsPerIpPerHour: number;
  lockoutThreshold: number;
  lockoutMinutes: number;
}

/**
 * Password sign-in. Attempts are counted before the password is checked, in one atomic
 * statement per counter, so parallel attempts cannot exceed the hourly budget; the answer
 * for a wrong password and an unknown account is the same, and a disabled or locked account
 * is only named once the password was right.
 */
export function createSignInService(deps: {
  db: Db;
  accounts: AccountsRepo;
  policy?: Partial<SignInPolicy>;
}) {
  const { db, accounts } = deps;
  const policy: SignInPolicy = { ...signInDefaults, ...deps.policy };

  /**
   * Reserves one attempt for the account and one for the address in the current hour, in one
   * statement: both are taken, or neither is (false when either budget is spent).
   */
  async function reserveAttempts(accountKey: string, ipKey: string): Promise<boolean> {
    const row = await sql<{ reserved: boolean }>`
      with budget as (
        select ${accountKey}::text as account_key, ${ipKey}::text as ip_key,
          coalesce((select count from sign_in_counters where scope = 'account' and key = ${accountKey}
            and window_start = date_trunc('hour', now())), 0) < ${policy.maxAttemptsPerAccountPerHour} as account_ok,
          coalesce((select count from sign_in_counters where scope = 'ip' and key = ${ipKey}
            and window_start = date_trunc('hour', now())), 0) < ${policy.maxAttemptsPerIpPerHour} as ip_ok
      ), taken as (
        insert into sign_in_counters (scope, key, window_start, count)
        select scope, key, date_trunc('hour', now()), 1
        from budget, lateral (values ('account', account_key), ('ip', ip_key)) as k (scope, key)
        where account_ok and ip_ok
        on conflict (scope, key, window_start) do update
          set count = sign_in_counters.count + 1
          where (sign_in_counters.scope = 'account' and sign_in_counters.count < ${policy.maxAttemptsPerAccountPerHour})
             or (sign_in_counters.scope = 'ip' and sign_in_counters.count < ${policy.maxAttemptsPerIpPerHour})
        returning scope
      )
      select count(*) = 2 as reserved from taken`.execute(db);
    return row.rows[0]?.reserved === true;
  }

  /** Gives back the attempts of a sign-in whose password was right. */
  async function releaseAttempts(accountKey: string, ipKey: string): Promise<void> {
    await sql`update sign_in_counters set count = greatest(count - 1, 0)
      where window_start = date_trunc('hour', now())
        and ((scope = 'account' and key = ${accountKey}) or (scope = 'ip' and key = ${ipKey}))`.execute(db);
  }

  /**
   * The lock-out of the account's home company (its general safety settings); accounts without
   * one (developers, platform administrators) get the global policy.
   */
  async function lockoutFor(account: Account): Promise<{ threshold: number; minutes: number }> {
    if (!account.home_company_id)
      return { threshold: policy.lockoutThreshold, minutes: policy.lockoutMinutes };
    const { lockout } = (await getSafetySettings(db, account.home_company_id)).general;
    return { threshold: lockout.maxFailures, minutes: lockout.lockMinutes };
  }

  async function recordFailure(account: Account): Promise<{ lockedUntil: Date | null }> {
    const lockout = await lockoutFor(account);
    const result = await sql<{ locked_until: Date | null }>`
      update accounts set
        failed_count = case when locked_until is not null and locked_until <= now() then 1 else failed_count + 1 end,
        last_failed_at = now(),
        locked_until = case
          when locked_until is not null and locked_until > now() then locked_until
          when (case when locked_until is not null and locked_until <= now() then 1 else failed_count + 1 end)
               >= ${lockout.threshold}
            then now() + make_interval(mins => ${lockout.minutes})
          else null end
      where id = ${account.id}
      returning locked_until`.execute(db);
    return { lockedUntil: result.rows[0]?.locked_until ?? null };
  }

  async function recordSuccess(accountId: string): Promise<Account> {
    return db
      .updateTable('accounts')
      .set((eb) => ({
        failed_count: 0,
        locked_until: null,
        login_count: eb('login_count', '+', 1),
        last_login_at: sql<Date>`now()`,
      }))
      .where('id', '=', accountId)
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /**
   * The status of the account's user record in the company the sign-in is for, or, without one,
   * in the company that manages the account. Undefined when there is no such record.
   */
  async function companyRecordStatus(account: Account, companyId: string | null) {
    const company = companyId ?? account.home_company_id;
    if (!company) return undefined;
    const row = await db
      .selectFrom('company_members')
      .select('status')
      .where('company_id', '=', company)
      .where('account_id', '=', account.id)
      .executeTakeFirst();
    return row?.status;
  }

  async function signInWithPassword(attempt: SignInAttempt): Promise<SignInResult> {
    const identifier = attempt.identifier.trim();
    const log = (result: 'success' | 'failure', cause: LoginFailureCause | null, account?: Account) =>
      insertLoginEvent(db, {
        companyId: attempt.companyId,
        accountId: account?.id ?? null,
        identifier,
        clientId: attempt.clientId,
        ip: attempt.ip,
        userAgent: attempt.userAgent,
        result,
        failureCause: cause,
      });

    if (!identifier || !attempt.password) {
      await log('failure', 'missing_credentials');
      return { ok: false, cause: 'missing_credentials' };
    }

    const account = await accounts.findAccountByIdentifier(identifier);
    // Unknown accounts are counted under the typed identifier, so they are throttled the same way.
    const accountKey = account?.id ?? `unknown:${identifier.toLowerCase()}`;
    const ipKey = attempt.ip ?? 'unknown';
    if (!(await reserveAttempts(accountKey, ipKey))) {
      await log('failure', 'throttled', account);
      return { ok: false, cause: 'throttled', account };
    }

    // An account without a password yet ('!', made by an import) is verified against the dummy
    // hash, so that neither it nor an unknown account answers faster than a wrong password.
    const usableHash = account && account.password_hash !== UNUSABLE_PASSWORD_HASH;
    const passwordOk = usableHash
      ? await verifyPassword(account.password_hash, attempt.password)
      : (await verifyPassword(await dummyPasswordHash(), attempt.password)) && false;

    if (!account || !passwordOk) {
      if (account) await recordFailure(account);
      await log('failure', account ? 'wrong_password' : 'unknown_account', account);
      return { ok: false, cause: account ? 'wrong_password' : 'unknown_account', account };
    }

    // The password was right: the attempt does not count against the hourly budget.
    await releaseAttempts(accountKey, ipKey);

    if (account.status === 'disabled') {
      await log('failure', 'account_disabled', account);
      return { ok: false, cause: 'account_disabled', account };
    }
    if (account.locked_until && account.locked_until > new Date()) {
      await log('failure', 'account_locked', account);
      return { ok: false, cause: 'account_locked', account, lockedUntil: account.locked_until };
    }
    // The person's standing in the company (the home company on the shared sign-in page).
    const recordStatus = await companyRecordStatus(account, attempt.companyId);
    if (recordStatus === 'disabled') {
      await log('failure', 'account_disabled', account);
      return { ok: false, cause: 'account_disabled', account };
    }
    if (recordStatus === 'locked') {
      await log('failure', 'account_locked', account);
      return { ok: false, cause: 'account_locked', account };
    }
    const refusal = attempt.authorize?.(account) ?? null;
    if (refusal) {
      await log('failure', refusal, account);
      return { ok: false, cause: refusal, account };
    }
    const signedIn = await recordSuccess(account.id);
    await log('success', null, signedIn);
    return { ok: true, account: signedIn };
  }

  /**
   * (FIDO2 helper) The checks after a first factor other than the password (a passkey): the
   * same refusals as after a right password (disabled, locked, the company record, the client),
   * then the success is counted and logged. Hourly budgets do not apply: there is nothing to guess.
   */
  async function signInVerified(
    account: Account,
    attempt: Omit<SignInAttempt, 'identifier' | 'password'>,
  ): Promise<SignInResult> {
    const log = (result: 'success' | 'failure', cause: LoginFailureCause | null) =>
      insertLoginEvent(db, {
        companyId: attempt.companyId,
        accountId: account.id,
        identifier: account.username,
        clientId: attempt.clientId,
        ip: attempt.ip,
        userAgent: attempt.userAgent,
        result,
        failureCause: cause,
      });
    const recordStatus = await companyRecordStatus(account, attempt.companyId);
    let refusal: LoginFailureCause | null = null;
    if (account.status === 'disabled' || recordStatus === 'disabled') refusal = 'account_disabled';
    else if ((account.locked_until && account.locked_until > new Date()) || recordStatus === 'locked')
      refusal = 'account_locked';
    else refusal = attempt.authorize?.(account) ?? null;
    if (refusal) {
      await log('failure', refusal);
      const lockedUntil =
        refusal === 'account_locked' && account.locked_until && account.locked_until > new Date()
          ? account.locked_until
          : undefined;
      return { ok: false, cause: refusal, account, lockedUntil };
    }
    const signedIn = await recordSuccess(account.id);
    await log('success', null);
    return { ok: true, account: signedIn };
  }

  return {
    signInWithPassword,
    signInVerified,
    recordLoginEvent: (event: Parameters<typeof insertLoginEvent>[1]) => insertLoginEvent(db, event),
    policy,
  };
}

export type SignInService = ReturnType<typeof createSignInService>;
