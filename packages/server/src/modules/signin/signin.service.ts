import { signInDefaults } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Account } from '../../db/schema.ts';
import type { AccountsRepo } from '../account/account.repo.ts';
import { dummyPasswordHash, verifyPassword } from '../account/password.ts';
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

  /** Reserves one attempt in the current hour; false when the budget is spent. */
  async function reserveAttempt(scope: 'account' | 'ip', key: string, limit: number): Promise<boolean> {
    const row = await sql<{ count: number }>`
      insert into sign_in_counters (scope, key, window_start, count)
      values (${scope}, ${key}, date_trunc('hour', now()), 1)
      on conflict (scope, key, window_start) do update
        set count = sign_in_counters.count + 1
        where sign_in_counters.count < ${limit}
      returning count`.execute(db);
    return row.rows.length > 0;
  }

  async function releaseAttempt(scope: 'account' | 'ip', key: string): Promise<void> {
    await sql`update sign_in_counters set count = greatest(count - 1, 0)
      where scope = ${scope} and key = ${key} and window_start = date_trunc('hour', now())`.execute(db);
  }

  async function recordFailure(accountId: string): Promise<{ lockedUntil: Date | null }> {
    const result = await sql<{ locked_until: Date | null }>`
      update accounts set
        failed_count = case when locked_until is not null and locked_until <= now() then 1 else failed_count + 1 end,
        last_failed_at = now(),
        locked_until = case
          when locked_until is not null and locked_until > now() then locked_until
          when (case when locked_until is not null and locked_until <= now() then 1 else failed_count + 1 end)
               >= ${policy.lockoutThreshold}
            then now() + make_interval(mins => ${policy.lockoutMinutes})
          else null end
      where id = ${accountId}
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
    const accountSlot = await reserveAttempt('account', accountKey, policy.maxAttemptsPerAccountPerHour);
    const ipSlot = accountSlot && (await reserveAttempt('ip', ipKey, policy.maxAttemptsPerIpPerHour));
    if (!accountSlot || !ipSlot) {
      if (accountSlot) await releaseAttempt('account', accountKey);
      await log('failure', 'throttled', account);
      return { ok: false, cause: 'throttled', account };
    }

    const passwordOk = account
      ? await verifyPassword(account.password_hash, attempt.password)
      : (await verifyPassword(await dummyPasswordHash(), attempt.password)) && false;

    if (!account || !passwordOk) {
      if (account) await recordFailure(account.id);
      await log('failure', account ? 'wrong_password' : 'unknown_account', account);
      return { ok: false, cause: account ? 'wrong_password' : 'unknown_account', account };
    }

    // The password was right: the attempt does not count against the hourly budget.
    await releaseAttempt('account', accountKey);
    await releaseAttempt('ip', ipKey);

    if (account.status === 'disabled') {
      await log('failure', 'account_disabled', account);
      return { ok: false, cause: 'account_disabled', account };
    }
    if (account.locked_until && account.locked_until > new Date()) {
      await log('failure', 'account_locked', account);
      return { ok: false, cause: 'account_locked', account, lockedUntil: account.locked_until };
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

  return {
    signInWithPassword,
    recordLoginEvent: (event: Parameters<typeof insertLoginEvent>[1]) => insertLoginEvent(db, event),
    policy,
  };
}

export type SignInService = ReturnType<typeof createSignInService>;
