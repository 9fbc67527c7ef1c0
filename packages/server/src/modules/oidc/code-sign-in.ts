import { type CodeChannel, defaultSafetySettings, type Language, type LoginMethod } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Account } from '../../db/schema.ts';
import { AppError } from '../../lib/errors.ts';
import type { AccountsRepo } from '../account/account.repo.ts';
import type { Mailer } from '../mail/mailer.ts';
import * as mfaRepo from '../mfa/mfa.repo.ts';
import { getSafetySettings } from '../safety/safety.repo.ts';
import type { CodeCredential } from '../signin/signin.service.ts';
import type { SmsSender } from '../sms/sms.ts';
import { type AfterAnswer, deferredCodes, type Log } from '../verification/deferred-codes.ts';
import type { IssuedCode, OneTimeCodes } from '../verification/one-time-codes.ts';

/** The login method of each code channel. */
export const CODE_METHOD = { email: 'email_code', sms: 'sms_code' } as const satisfies Record<
  CodeChannel,
  LoginMethod
>;
export const CODE_CHANNELS = ['email', 'sms'] as const satisfies readonly CodeChannel[];
export const codeChannelOf = (value: unknown): CodeChannel | undefined =>
  CODE_CHANNELS.find((channel) => channel === value);

/** RFC 8176 names a code by SMS `sms`; a code by email has no registered name, so `email`. */
export const CODE_AMR: Record<CodeChannel, string> = { email: 'email', sms: 'sms' };

/** The person's address of a channel, when they proved it theirs (email_verified_at, phone_verified_at). */
export function verifiedAddress(
  account: Pick<Account, 'email' | 'email_verified_at' | 'phone' | 'phone_verified_at'>,
  channel: CodeChannel,
): string | null {
  if (channel === 'email') return account.email && account.email_verified_at ? account.email : null;
  return account.phone && account.phone_verified_at ? account.phone : null;
}

export interface CodeSignInDeps {
  db: Db;
  codes: OneTimeCodes;
  sms: SmsSender;
  mailer: Mailer;
  log: Log;
  accounts: Pick<AccountsRepo, 'findAccountByIdentifier'>;
}

/**
 * Signing in with a code sent by email or SMS (login methods `email_code`, `sms_code`):
 * - offered on the sign-in page of an application when its company allows the method, on the
 *   shared pages (user centre, consoles) when any company does, as passkeys are; SMS only
 *   where a provider can send, email only where mail is set up;
 * - a code goes only to the person's verified address, and only when their home company allows
 *   the method. Anyone else (no such person, no verified address, method not allowed, account
 *   disabled) gets a decoy: stored and answered like any code, sent nowhere, never valid; the
 *   page says the same in every case.
 */
export function createCodeSignIn(deps: CodeSignInDeps) {
  const { db } = deps;

  /**
   * The sign-in methods of a page for a client of this company (null: a shared page) in one
   * statement: the company's own, and those of any company (passkeys are offered on every page
   * as soon as any company allows them, fido2.service.ts; codes so on the shared pages).
   */
  async function methodsOnPage(companyId: string | null) {
    const { rows } = await sql<{ any_company: string[] | null; company: string[] | null }>`select
      (select array_agg(distinct m.method) from company_safety s
        cross join lateral jsonb_array_elements_text(coalesce(s.general -> 'loginMethods', '[]'::jsonb)) as m(method)
      ) as any_company,
      (select s.general -> 'loginMethods' from company_safety s where s.company_id = ${companyId}) as company`.execute(
      db,
    );
    const anyCompany = rows[0]?.any_company ?? [];
    const company = companyId ? (rows[0]?.company ?? [...defaultSafetySettings.loginMethods]) : null;
    return { anyCompany, company };
  }

  /** The channels among these methods that can send: SMS where a provider can, email where mail is set up. */
  async function sendable(methods: readonly string[], companyId: string | null): Promise<CodeChannel[]> {
    const channels: CodeChannel[] = [];
    for (const channel of CODE_CHANNELS) {
      if (!methods.includes(CODE_METHOD[channel])) continue;
      if (channel === 'email' ? deps.mailer.configured : await deps.sms.available(companyId))
        channels.push(channel);
    }
    return channels;
  }

  /** What the sign-in page of a client of this company (null: a shared page) offers besides the password. */
  async function onPage(companyId: string | null) {
    const methods = await methodsOnPage(companyId);
    return {
      passkey: methods.anyCompany.includes('passkey'),
      codes: await sendable(methods.company ?? methods.anyCompany, companyId),
    };
  }

  /** The code channels the sign-in page of a client of this company (null: a shared page) offers. */
  const offered = async (companyId: string | null) => (await onPage(companyId)).codes;

  /**
   * Whether the person may sign in with this method: their home company (which sets their
   * password rules and lock-out) allows it; a person without one, when a company they are an
   * enabled member of does.
   */
  async function allowedFor(account: Pick<Account, 'id' | 'home_company_id'>, channel: CodeChannel) {
    const companies = account.home_company_id
      ? [account.home_company_id]
      : (await mfaRepo.listMemberships(db, account.id)).map((m) => m.company_id);
    for (const companyId of companies) {
      const { general } = await getSafetySettings(db, companyId);
      if (general.loginMethods.includes(CODE_METHOD[channel])) return true;
    }
    return false;
  }

  /** Sends a sign-in code to the person the identifier names, or makes a decoy (see above). */
  async function send(input: {
    identifier: string;
    channel: CodeChannel;
    companyId: string | null;
    companyName?: string;
    lang: Language;
    /** The code leaves once the answer has (deferred-codes.ts): the timing tells nobody's existence. */
    afterAnswer: AfterAnswer;
  }): Promise<IssuedCode> {
    const identifier = input.identifier.trim();
    const account = identifier ? await deps.accounts.findAccountByIdentifier(identifier) : undefined;
    const candidate = account?.status === 'enabled' ? account : undefined;
    // The rule is read for anyone (nobody has no memberships), so the statements run, and the
    // answer's time, are the same whether or not the identifier names a person.
    const allowed = await allowedFor(candidate ?? { id: '', home_company_id: null }, input.channel);
    const address = candidate && allowed ? verifiedAddress(candidate, input.channel) : null;
    return deferredCodes(deps, input.afterAnswer).issue({
      companyId: input.companyId ?? account?.home_company_id ?? null,
      accountId: address && account ? account.id : null,
      purpose: 'sign_in',
      channel: input.channel,
      // A decoy is paced by what was typed, as a real code is by its address.
      address: address ?? identifier.toLowerCase(),
      lang: input.lang,
      companyName: input.companyName,
    });
  }

  /** The code typed at sign-in, as the sign-in pipeline checks it (SignInService.signInWithCode). */
  function credential(
    input: { codeId: string; code: string; channel: CodeChannel },
    /** Receives the tries left after a wrong code, for the page. */
    onWrong?: (remaining: number) => void,
  ): CodeCredential {
    return {
      method: CODE_METHOD[input.channel],
      async verify() {
        try {
          const verified = await deps.codes.verify({
            codeId: input.codeId,
            purpose: 'sign_in',
            code: input.code,
          });
          if (verified.channel !== input.channel) return { ok: false, cause: 'code_failed' };
          return { ok: true, accountId: verified.accountId };
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          if (error.reason === 'code.wrong') {
            onWrong?.(Number(error.params?.remaining ?? 0));
            return { ok: false, cause: 'code_failed' };
          }
          if (error.reason === 'code.expired') return { ok: false, cause: 'code_expired' };
          throw error;
        }
      },
    };
  }

  return { onPage, offered, allowedFor, send, credential };
}

export type CodeSignIn = ReturnType<typeof createCodeSignIn>;
