import { signInDefaults } from '@tessera/contract';
import type { Compilable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Account } from '../../db/schema.ts';
import type { AccountsRepo } from '../account/account.repo.ts';
import { dummyPasswordHash, UNUSABLE_PASSWORD_HASH, verifyPassword } from '../account/password.ts';
import { insertLoginEvent, type LoginEvent, type LoginFailureCause } from './login-events.repo.ts';
import { beginAttempt, type Prefetch } from './signin-attempt.ts';
import { recordOutcome, successUpdate } from './signin-outcome.ts';
import {
  type AttemptSubject,
  budgetsOf,
  recordFailure,
  rememberDeviceQuery,
  rightPasswordReset,
  type ThrottlePolicy,
} from './signin-throttle.ts';

export interface SignInAttempt {
  identifier: string;
  password: string;
  ip: string | null;
  userAgent: string | null;
  clientId: string | null;
  companyId: string | null;
  /** The browser's device id, from its signed device cookie (see device-cookie.ts), if it has one. */
  deviceId?: string | null;
  /** Checked once the password is right: a cause refuses the sign-in (for example a client the account may not use). */
  authorize?: (account: Account) => LoginFailureCause | null | Promise<LoginFailureCause | null>;
  /**
   * Whose address budget the attempt spends, when it is not `ip`: a RADIUS request comes from
   * the network device, which speaks for many people, so its calling station is counted instead.
   */
  budgetAddress?: string | null;
  /** A RADIUS request's NAS address and calling station, for the login events. */
  nas?: LoginEvent['nas'];
  /**
   * Selected with the account in the attempt's first statement and handed to `onSuccess`: what
   * the caller needs to know about the person once the password is right, without a query more.
   */
  prefetch?: Prefetch;
  /**
   * The password was right and nothing refuses the person: what the success writes besides its
   * own rows, in the same statement. The sign-in form remembers the browser there when no
   * sign-in step follows (first-factor.routes.ts). `prefetched` is null when the attempt found
   * no account (a directory's first sign-in).
   */
  onSuccess?: (
    account: Account,
    prefetched: unknown,
    first: { skipMfa: boolean },
  ) => Promise<SuccessWrites | undefined>;
}

/**
 * A one-time code sent by email or SMS, typed in place of the password (login methods
 * `email_code` and `sms_code`, oidc/code-sign-in.routes.ts). `verify` checks it (codes.verify)
 * and names whose it is; the attempt passes only when that is the account the identifier names.
 */
export interface CodeCredential {
  method: 'email_code' | 'sms_code';
  verify(): Promise<{ ok: true; accountId: string } | { ok: false; cause: 'code_failed' | 'code_expired' }>;
}

/** What a success writes on the caller's behalf (SignInAttempt.onSuccess). */
export interface SuccessWrites {
  /** The browser (device id) to remember for the account: see rememberDevice. */
  rememberDevice?: string;
  /** Further statements, written in the success's statement: stored with it or not at all. */
  writes?: Compilable[];
}

export type SignInResult =
  | {
      ok: true;
      account: Account /** The person's identity source does without a second factor. */;
      skipMfa?: boolean;
    }
  | { ok: false; cause: LoginFailureCause; account?: Account; lockedUntil?: Date };

/** What a directory answered about a password (modules/identity-source/ldap/ldap-signin.ts). */
export type DirectoryCheck =
  | {
      ok: true;
      skipMfa: boolean /** A first sign-in: the account it created or found. */;
      accountId?: string;
    }
  | { ok: false; cause: LoginFailureCause };

/**
 * The password verifier of accounts whose password is a directory's (LDAP sources): the
 * directory decides, the local account has no usable password. `firstSignIn` asks the
 * directories of the company the sign-in is for about an identifier no account has; undefined
 * when none knows it.
 */
export interface DirectoryVerifier {
  verifyLinked(account: Account, sourceId: string, password: string): Promise<DirectoryCheck>;
  firstSignIn(companyId: string, identifier: string, password: string): Promise<DirectoryCheck | undefined>;
}

/** Directory answers in which no password was judged wrong: nothing counts against the person. */
const NOT_A_GUESS: readonly LoginFailureCause[] = [
  'directory_unavailable',
  'source_disabled',
  'directory_conflict',
  // A code that had ended (signInWithCode).
  'code_expired',
];

export type SignInPolicy = ThrottlePolicy;

/**
 * Password sign-in.
 * - Budgets: attempts are reserved before the password is checked, from sliding one-hour
 *   windows (the account's and the address's, or a known browser's own), atomically, so
 *   parallel attempts cannot exceed them; a right password gives its attempt back.
 * - Lock-out: while the subject is locked out no password is checked and the answer is the
 *   same whatever the password; an identifier that names no account is locked out the same way.
 * - A wrong password and an unknown account answer alike, through the same statements and the
 *   same (dummy) hash verification; disabled and administrator-locked accounts are named only
 *   once the password was right.
 */
export function createSignInService(deps: {
  db: Db;
  accounts: AccountsRepo;
  policy?: Partial<SignInPolicy>;
  /** The directory's password check (identity sources); without it every password is local. */
  directory?: DirectoryVerifier;
}) {
  const { db } = deps;
  const policy: SignInPolicy = { ...signInDefaults, ...deps.policy };

  /**
   * The status of the account's user record in the company the sign-in is for (an application's
   * or a console of its company); undefined on the shared pages, where the account's own status
   * decides (a company that fully manages an account sets that status too). A disabled account's
   * home record says whether its company disabled or locked it. (The password sign-in reads it
   * with the account: signin-attempt.ts.)
   */
  async function companyRecordStatus(account: Account, companyId: string | null) {
    const company = companyId ?? (account.status === 'enabled' ? null : account.home_company_id);
    if (!company) return undefined;
    const row = await db
      .selectFrom('company_members')
      .select('status')
      .where('company_id', '=', company)
      .where('account_id', '=', account.id)
      .executeTakeFirst();
    return row?.status;
  }

  /** The refusal of an account whose first factor passed, if any (its status, its record, the client). */
  async function refusalAfterFirstFactor(
    account: Account,
    attempt: Pick<SignInAttempt, 'authorize'>,
    recordStatus: string | null | undefined,
  ) {
    if (recordStatus === 'locked') return 'account_locked' as const;
    if (account.status === 'disabled' || recordStatus === 'disabled') return 'account_disabled' as const;
    return (await attempt.authorize?.(account)) ?? null;
  }

  const signInWithPassword = (attempt: SignInAttempt) => signInWithFirstFactor(attempt);

  /**
   * A sign-in with a one-time code instead of the password: the same pipeline (budgets, the
   * lock-out, which wrong codes count towards, the refusals after the first factor, the login
   * events). A code that expired, was used or ran out of tries judged nothing: like a directory
   * that did not answer, its attempt goes back and nothing counts. The directory is not asked:
   * it owns a directory person's password, not their mailbox or phone.
   */
  const signInWithCode = (attempt: Omit<SignInAttempt, 'password'>, code: CodeCredential) =>
    signInWithFirstFactor({ ...attempt, password: '' }, code);

  async function signInWithFirstFactor(attempt: SignInAttempt, code?: CodeCredential): Promise<SignInResult> {
    // Control characters (a NUL, which PostgreSQL text refuses) belong to no identifier: they
    // become U+FFFD, so that such an attempt finds nobody, in the database or in a directory.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point.
    const identifier = attempt.identifier.trim().replace(/[\u0000-\u001f\u007f]/g, '\ufffd');
    const event = (
      result: 'success' | 'failure',
      cause: LoginFailureCause | null,
      account?: Account,
    ): LoginEvent => ({
      // A sign-in outside any company (the user centre, the consoles) is the person's home company's.
      companyId: attempt.companyId ?? account?.home_company_id ?? null,
      accountId: account?.id ?? null,
      identifier,
      clientId: attempt.clientId,
      ip: attempt.ip,
      userAgent: attempt.userAgent,
      result,
      failureCause: cause,
      nas: attempt.nas,
      method: code?.method ?? 'password',
    });
    const log = (...args: Parameters<typeof event>) => insertLoginEvent(db, event(...args));

    if (!identifier || (!code && !attempt.password)) {
      await log('failure', 'missing_credentials');
      return { ok: false, cause: 'missing_credentials' };
    }

    const address = attempt.budgetAddress ?? attempt.ip;
    const begun = await beginAttempt(db, {
      identifier,
      deviceId: attempt.deviceId,
      address,
      companyId: attempt.companyId,
      policy,
      prefetch: attempt.prefetch,
    });
    const { subject } = begun;
    const account = subject.kind === 'unknown' ? undefined : subject.account;
    const budgets = budgetsOf(subject, address, policy);
    if (begun.lockedUntil) {
      // No password is checked during a lock-out, and the answer is the same for every password.
      await log('failure', account ? 'account_locked' : 'unknown_account', account);
      return { ok: false, cause: 'account_locked', account, lockedUntil: begun.lockedUntil };
    }
    if (!begun.reserved) {
      await log('failure', 'throttled', account);
      return { ok: false, cause: 'throttled', account };
    }

    const { directory, passwordOk } = code
      ? await checkCode(subject, code)
      : await checkPassword(subject, identifier, attempt);
    // A right password gives its attempt back and clears a known browser's failures.
    const rightPassword = { release: budgets, writes: [rightPasswordReset(db, subject)] };
    if (directory && !directory.ok && NOT_A_GUESS.includes(directory.cause)) {
      // No password was judged: the attempt goes back, and nothing counts towards a lock-out.
      await recordOutcome(db, { release: budgets, event: event('failure', directory.cause, account) });
      return { ok: false, cause: directory.cause, account };
    }
    if (directory && !directory.ok && directory.cause !== 'wrong_password') {
      // The directory took the password but refuses the person (disabled there).
      await recordOutcome(db, { ...rightPassword, event: event('failure', directory.cause, account) });
      return { ok: false, cause: directory.cause, account };
    }
    if (!passwordOk) {
      const wrong = code ? 'code_failed' : 'wrong_password';
      const cause = account || directory ? wrong : 'unknown_account';
      await recordFailure(db, subject, event('failure', cause, account));
      return { ok: false, cause, account };
    }

    // A first sign-in through a directory: the person it created (or found) signs in.
    const signingIn =
      subject.kind === 'unknown' && directory?.ok && directory.accountId
        ? await deps.accounts.findAccountById(directory.accountId)
        : account;
    if (!signingIn) {
      await log('failure', 'directory_conflict');
      return { ok: false, cause: 'directory_conflict' };
    }
    const found = signingIn === account;
    const recordStatus = found ? begun.recordStatus : await companyRecordStatus(signingIn, attempt.companyId);
    const refusal = await refusalAfterFirstFactor(signingIn, attempt, recordStatus);
    if (refusal) {
      await recordOutcome(db, { ...rightPassword, event: event('failure', refusal, signingIn) });
      return { ok: false, cause: refusal, account: signingIn };
    }
    const skipMfa = directory?.ok === true && directory.skipMfa;
    const along = await attempt.onSuccess?.(signingIn, found ? begun.prefetched : null, { skipMfa });
    const remembered = along?.rememberDevice;
    // Remembering the browser clears its failures too (one statement may not change a row twice).
    const clearsDevice = subject.kind === 'device' && subject.deviceId === remembered;
    const success = event('success', null, signingIn);
    const signedIn = await recordOutcome(db, {
      release: budgets,
      writes: [
        remembered ? rememberDeviceQuery(db, signingIn.id, remembered) : undefined,
        clearsDevice ? undefined : rightPasswordReset(db, subject),
        ...(along?.writes ?? []),
      ],
      success: successUpdate(db, signingIn.id, subject.kind === 'account', success.companyId !== null),
      event: success,
      previousPlace: found ? begun.previousPlace : undefined,
    });
    if (!signedIn) throw new Error(`account ${signingIn.id} is gone`);
    return { ok: true, account: signedIn, skipMfa };
  }

  /** Checks a code in place of the password: it must be the code of the account the identifier names. */
  async function checkCode(
    subject: AttemptSubject,
    code: CodeCredential,
  ): Promise<{ directory?: DirectoryCheck; passwordOk: boolean }> {
    const verified = await code.verify();
    if (!verified.ok && verified.cause === 'code_expired')
      return { directory: { ok: false, cause: 'code_expired' }, passwordOk: false };
    return {
      passwordOk: verified.ok && subject.kind !== 'unknown' && verified.accountId === subject.account.id,
    };
  }

  /**
   * Checks the password of the attempt. An account without a password yet ('!', made by an
   * import) is verified against the dummy hash, so that neither it nor an unknown account answers
   * faster than a wrong password. A directory's check runs alongside the dummy hash for the same
   * reason.
   */
  async function checkPassword(
    subject: AttemptSubject,
    identifier: string,
    attempt: Pick<SignInAttempt, 'password' | 'companyId'>,
  ): Promise<{ directory?: DirectoryCheck; passwordOk: boolean }> {
    const dummy = async () => (await verifyPassword(await dummyPasswordHash(), attempt.password)) && false;
    if (deps.directory && subject.kind !== 'unknown' && subject.directorySourceId) {
      const [directory] = await Promise.all([
        deps.directory.verifyLinked(subject.account, subject.directorySourceId, attempt.password),
        dummy(),
      ]);
      return { directory, passwordOk: directory.ok };
    }
    if (deps.directory && subject.kind === 'unknown' && attempt.companyId) {
      const [directory] = await Promise.all([
        deps.directory.firstSignIn(attempt.companyId, identifier, attempt.password),
        dummy(),
      ]);
      return { directory, passwordOk: directory?.ok === true };
    }
    const account = subject.kind === 'unknown' ? undefined : subject.account;
    const usableHash = account && account.password_hash !== UNUSABLE_PASSWORD_HASH;
    return {
      passwordOk: usableHash ? await verifyPassword(account.password_hash, attempt.password) : await dummy(),
    };
  }

  /**
   * (FIDO2 helper) The checks after a first factor other than the password (a passkey): the
   * same refusals as after a right password (disabled, locked by an administrator, the company
   * record, the client), then the success is counted and logged. Budgets and the automatic
   * lock-out, which stop password guessing, do not apply: a passkey cannot be guessed, and its
   * owner gets in while someone else's guesses keep the password locked.
   */
  async function signInVerified(
    account: Account,
    attempt: Omit<SignInAttempt, 'identifier' | 'password'> & { method?: string },
  ): Promise<SignInResult> {
    const event = (result: 'success' | 'failure', cause: LoginFailureCause | null): LoginEvent => ({
      companyId: attempt.companyId ?? account.home_company_id,
      accountId: account.id,
      identifier: account.username,
      clientId: attempt.clientId,
      ip: attempt.ip,
      userAgent: attempt.userAgent,
      result,
      failureCause: cause,
      method: attempt.method,
    });
    const refusal = await refusalAfterFirstFactor(
      account,
      attempt,
      await companyRecordStatus(account, attempt.companyId),
    );
    if (refusal) {
      await insertLoginEvent(db, event('failure', refusal));
      return { ok: false, cause: refusal, account };
    }
    const success = event('success', null);
    const signedIn = await recordOutcome(db, {
      success: successUpdate(db, account.id, false, success.companyId !== null),
      event: success,
    });
    if (!signedIn) throw new Error(`account ${account.id} is gone`);
    return { ok: true, account: signedIn };
  }

  return {
    signInWithPassword,
    signInWithCode,
    signInVerified,
    recordLoginEvent: (event: Parameters<typeof insertLoginEvent>[1]) => insertLoginEvent(db, event),
    policy,
  };
}

export type SignInService = ReturnType<typeof createSignInService>;
