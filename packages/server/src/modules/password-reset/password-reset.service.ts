import type { CodeChannel, Language } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { ACCOUNT_COLUMNS, type Account } from '../../db/schema.ts';
import { AppError } from '../../lib/errors.ts';
import { spendBudgets } from '../../lib/rate-windows.ts';
import { hashPassword } from '../account/password.ts';
import { assertPasswordAllowed, passwordPolicyFor } from '../account/password-policy.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { isDirectoryAccount } from '../identity-source/identity-source.repo.ts';
import type { NotifyCredentialChange } from '../mail/credential-notices.ts';
import type { Mailer } from '../mail/mailer.ts';
import { type AccountSignOut, withSignOut } from '../oidc/sign-out.ts';
import { mergeSafety } from '../safety/safety.repo.ts';
import { insertLoginEvent, type LoginEvent } from '../signin/login-events.repo.ts';
import type { SignInPolicy } from '../signin/signin.service.ts';
import { beginAttempt } from '../signin/signin-attempt.ts';
import { budgetsOf, normaliseIdentifier, recordFailure } from '../signin/signin-throttle.ts';
import type { SmsSender } from '../sms/sms.ts';
import { type AfterAnswer, deferredCodes } from '../verification/deferred-codes.ts';
import { sendDirectoryNotice } from './reset-delivery.ts';

type Log = { warn(details: object, message: string): void };

/**
 * How often one identifier may ask: once a minute and five times an hour, whether or not it names
 * an account. Below the codes' own budgets (ten an hour per address and per person), so that only
 * these answer "wait", alike for every identifier; a real person's code refused by the codes'
 * budgets (asked for under another of their identifiers) becomes a decoy.
 */
const IDENTIFIER_BUDGETS = (identifier: string) => ({
  minute: [{ key: `password-reset:minute:${identifier}`, limit: 1, minutes: 1 }],
  hour: [{ key: `password-reset:hour:${identifier}`, limit: 5, minutes: 60 }],
});

/** Control characters belong to no identifier (as at sign-in): such a request finds nobody. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;
const cleanIdentifier = (text: string) => text.trim().slice(0, 254).replace(CONTROL_CHARACTERS, '\ufffd');

/** The outcome of a code: the person it proved, or why it was refused (shown as the sign-in shows it). */
export type CodeCheck =
  | { ok: true; account: Account }
  | { ok: false; reason: 'wrong' | 'expired' | 'throttled'; remaining?: number }
  | { ok: false; reason: 'locked'; lockedUntil: Date };

export interface ResetContext {
  /** The company of the sign-in page (its application's, or its user centre address's). */
  companyId: string | null;
  clientId: string | null;
  ip: string;
  userAgent: string | null;
  lang: Language;
  /** Runs the sends of a request once its answer has left (default: after this turn of the event loop). */
  afterAnswer?: AfterAnswer;
}

/**
 * Self-service reset of a forgotten password. The request answers alike whether or not the
 * identifier names an account: the same statements run (a decoy code is stored for nobody) and
 * the code is sent without the answer waiting for it. A code is then checked like a password
 * (the sign-in's budgets and lock-out, for the identifier that asked), and the new password,
 * under the home company's rules, ends every session and token of the person.
 */
export function createPasswordReset(deps: {
  db: Db;
  mailer: Mailer;
  sms: SmsSender;
  signOut: Pick<AccountSignOut, 'prepare'>;
  notifyCredentialChange: NotifyCredentialChange;
  signInPolicy: SignInPolicy;
  log: Log;
}) {
  const { db } = deps;
  /** Codes checked and revoked here send nothing. */
  const codes = deferredCodes(deps, setImmediate);

  /** Whether mail or SMS can carry a code for people of this company (null: the shared pages). */
  const channelConfigured = async (companyId: string | null) =>
    deps.mailer.configured || (await deps.sms.available(companyId));

  /** Whether a sign-in page of the company offers "Forgot password?" (the shared pages: a channel exists). */
  async function offered(companyId: string | null): Promise<boolean> {
    if (!(await channelConfigured(companyId))) return false;
    if (!companyId) return true;
    const row = await db
      .selectFrom('company_safety')
      .select('general')
      .where('company_id', '=', companyId)
      .executeTakeFirst();
    return mergeSafety(row?.general, null).general.selfServiceReset !== false;
  }

  /** The account an identifier names, as the sign-in finds it, with what the reset needs to know. */
  async function findByIdentifier(identifier: string) {
    const lower = identifier.toLowerCase();
    return db
      .selectFrom('accounts as a')
      .leftJoin('companies as c', 'c.id', 'a.home_company_id')
      .leftJoin('company_safety as s', 's.company_id', 'a.home_company_id')
      .select(ACCOUNT_COLUMNS.map((column) => `a.${column}` as const))
      .select(['c.name as company_name', 's.general as home_safety'])
      .select(
        sql<boolean>`exists (select 1 from identity_links l join identity_sources i on i.id = l.source_id
          where l.account_id = a.id and i.type = 'ldap')`.as('directory'),
      )
      .where((eb) =>
        eb.or([
          eb(sql<string>`lower(a.username)`, '=', lower),
          eb(sql<string>`lower(a.email)`, '=', lower),
          eb('a.phone', '=', identifier),
        ]),
      )
      .orderBy(sql`lower(a.username) = ${lower}`, 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  type Found = NonNullable<Awaited<ReturnType<typeof findByIdentifier>>>;

  /** Where the code of an account goes: its phone when that is what was typed, else its email, else its phone. */
  function channelOf(account: Found, identifier: string, smsReady: boolean) {
    const byMail = deps.mailer.configured && account.email;
    const bySms = smsReady && account.phone;
    if (bySms && account.phone === identifier)
      return { channel: 'sms' as CodeChannel, address: account.phone };
    if (byMail && account.email) return { channel: 'email' as CodeChannel, address: account.email };
    if (bySms && account.phone) return { channel: 'sms' as CodeChannel, address: account.phone };
    return undefined;
  }

  /**
   * Asks for a code. Answers `{ codeId }` whatever the identifier names, or refuses alike for every
   * identifier (`code.resend_wait`, `code.too_many`) when it or the address asked too often.
   */
  async function request(typed: string, context: ResetContext): Promise<{ codeId: string }> {
    const identifier = cleanIdentifier(typed);
    const afterAnswer = context.afterAnswer ?? setImmediate;
    const codes = deferredCodes(deps, afterAnswer);
    const key = normaliseIdentifier(identifier);
    const budgets = IDENTIFIER_BUDGETS(key);
    if (!(await spendBudgets(db, budgets.minute, 'reserve')))
      throw new AppError('code.resend_wait', { seconds: 60 });
    if (!(await spendBudgets(db, budgets.hour, 'reserve'))) throw new AppError('code.too_many');
    // Requests from one address an hour, every identifier together: as many as its sign-in attempts.
    const limit = deps.signInPolicy.maxAttemptsPerIpPerHour;
    const address = [{ key: `password-reset:ip:${context.ip}`, limit, minutes: 60 }];
    if (!(await spendBudgets(db, address, 'reserve'))) throw new AppError('code.too_many');

    const account = await findByIdentifier(identifier);
    const smsReady = await deps.sms.available(account?.home_company_id ?? context.companyId);
    const allowed =
      account?.status === 'enabled' &&
      (!account.home_company_id || mergeSafety(account.home_safety, null).general.selfServiceReset !== false);
    const route =
      account && allowed && !account.directory ? channelOf(account, identifier, smsReady) : undefined;
    const companyName = account?.company_name ?? undefined;
    const decoy = (decoyAddress: string) =>
      codes.issue({
        companyId: context.companyId,
        accountId: null,
        purpose: 'password_reset',
        channel: 'email',
        address: decoyAddress,
        lang: context.lang,
      });

    if (account && allowed && account.directory && account.email && deps.mailer.configured) {
      // Not offered a reset: told where to reset instead, by mail, so the page still says nothing.
      const name = account.display_name ?? account.username;
      sendDirectoryNotice(deps, afterAnswer, context.lang, account.email, {
        name,
        username: account.username,
        company: companyName ?? 'Tessera',
      });
    }
    if (!account || !route) return { codeId: (await decoy(key)).codeId };
    try {
      const issued = await codes.issue({
        companyId: account.home_company_id ?? context.companyId,
        accountId: account.id,
        purpose: 'password_reset',
        channel: route.channel,
        address: route.address,
        lang: context.lang,
        companyName,
      });
      return { codeId: issued.codeId };
    } catch (error) {
      if (!(error instanceof AppError) || !['code.resend_wait', 'code.too_many'].includes(error.reason))
        throw error;
      // The person asked under another identifier a moment ago: that code stands, this one is a decoy.
      return { codeId: (await decoy(`paced:${key}`)).codeId };
    }
  }

  /**
   * Checks a code as a password is checked, for the identifier that asked: the same subject,
   * budgets and lock-out (a locked subject's code is not even read), a wrong code counted as a
   * wrong password. A right code gives its attempt back.
   */
  async function checkCode(
    input: { codeId: string; identifier: string; code: string },
    context: ResetContext,
  ): Promise<CodeCheck> {
    const identifier = cleanIdentifier(input.identifier);
    const policy = deps.signInPolicy;
    const begun = await beginAttempt(db, {
      identifier,
      deviceId: null,
      address: context.ip,
      companyId: context.companyId,
      policy,
    });
    const { subject } = begun;
    const account = subject.kind === 'unknown' ? undefined : subject.account;
    const event = (cause: LoginEvent['failureCause']): LoginEvent => ({
      companyId: context.companyId ?? account?.home_company_id ?? null,
      accountId: account?.id ?? null,
      identifier,
      clientId: context.clientId,
      ip: context.ip,
      userAgent: context.userAgent,
      result: 'failure',
      failureCause: cause,
    });
    if (begun.lockedUntil) {
      await insertLoginEvent(db, event(account ? 'account_locked' : 'unknown_account'));
      return { ok: false, reason: 'locked', lockedUntil: begun.lockedUntil };
    }
    if (!begun.reserved) {
      await insertLoginEvent(db, event('throttled'));
      return { ok: false, reason: 'throttled' };
    }
    const budgets = budgetsOf(subject, context.ip, policy);
    try {
      const verified = await codes.verify({
        codeId: input.codeId,
        purpose: 'password_reset',
        code: input.code,
      });
      // The code was asked for under this identifier: it names the same person still.
      if (!account || verified.accountId !== account.id) throw new AppError('code.expired');
    } catch (error) {
      if (!(error instanceof AppError) || !['code.wrong', 'code.expired'].includes(error.reason)) throw error;
      await recordFailure(db, subject, event('reset_code_wrong'));
      const remaining = Number(error.params.remaining ?? 0);
      return error.reason === 'code.wrong'
        ? { ok: false, reason: 'wrong', remaining }
        : { ok: false, reason: 'expired' };
    }
    await spendBudgets(db, budgets, 'release');
    return { ok: true, account };
  }

  /**
   * Sets the new password of a person who proved their mailbox or phone, once: only over the
   * credential version the code was checked at. Raising it ends every single sign-on session,
   * console and user-centre session, grant and token (the accounts trigger); the applications are
   * told (back-channel logout); the lock-out count starts again; second factors stay as they are.
   */
  async function setPassword(
    input: { accountId: string; credentialVersion: number; newPassword: string },
    context: ResetContext,
  ): Promise<Account> {
    const account = await db
      .selectFrom('accounts')
      .select(ACCOUNT_COLUMNS)
      .where('id', '=', input.accountId)
      .executeTakeFirst();
    if (!account || account.credential_version !== input.credentialVersion || account.status !== 'enabled')
      throw new AppError('code.expired');
    if (await isDirectoryAccount(db, account.id)) throw new AppError('user.directory_managed');
    assertPasswordAllowed(
      input.newPassword,
      { username: account.username, lang: context.lang, field: 'newPassword' },
      await passwordPolicyFor(db, account.home_company_id),
    );
    const passwordHash = await hashPassword(input.newPassword);
    await withSignOut(db, deps.signOut, async (trx, signOutBefore) => {
      await signOutBefore(account.id);
      const updated = await trx
        .updateTable('accounts')
        .set((eb) => ({
          password_hash: passwordHash,
          password_changed_at: sql<Date>`now()`,
          must_change_password: false,
          credential_version: eb('credential_version', '+', 1),
          failed_count: 0,
          locked_until: null,
        }))
        .where('id', '=', account.id)
        .where('credential_version', '=', input.credentialVersion)
        .returning('id')
        .executeTakeFirst();
      if (!updated) throw new AppError('code.expired');
      await insertAuditEvent(trx, {
        companyId: account.home_company_id,
        actorAccountId: account.id,
        action: 'user.password_reset_self',
        targetType: 'user',
        targetId: account.id,
        before: { username: account.username, mustChangePassword: account.must_change_password },
        after: { username: account.username, mustChangePassword: false, sessionsEnded: true },
        ip: context.ip,
      });
    });
    await codes.revoke(account.id, 'password_reset');
    await deps.notifyCredentialChange(account.id, account.home_company_id, 'password_reset_self');
    return account;
  }

  /** Whose password is being set, and their home company's rules (shown before it is typed). */
  async function passwordRulesOf(accountId: string) {
    const account = await db
      .selectFrom('accounts')
      .select(['username', 'home_company_id'])
      .where('id', '=', accountId)
      .executeTakeFirst();
    return {
      username: account?.username ?? '',
      policy: await passwordPolicyFor(db, account?.home_company_id),
    };
  }

  return { offered, request, checkCode, setPassword, passwordRulesOf };
}

export type PasswordReset = ReturnType<typeof createPasswordReset>;
