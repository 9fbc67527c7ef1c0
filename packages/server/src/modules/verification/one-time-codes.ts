import { randomInt } from 'node:crypto';
import {
  type CodeChannel,
  type CodePurpose,
  type Language,
  oneTimeCodeRules as rules,
} from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { type PurgeLimits, purgeBefore } from '../../lib/batched-purge.ts';
import { safeEqual, sha256 } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Mailer } from '../mail/mailer.ts';
import { codeMail } from '../mail/templates.ts';
import type { SmsSender } from '../sms/sms.ts';

export interface CodeRequest {
  companyId: string | null;
  /** Null asks for a decoy: stored and answered like any code, sent nowhere, never valid. */
  accountId: string | null;
  purpose: CodePurpose;
  channel: CodeChannel;
  /** The email address or phone number it goes to. */
  address: string;
  lang: Language;
  /** The company's name, for the mail's subject. */
  companyName?: string;
}

export interface IssuedCode {
  /** The request the code is bound to: the page keeps it and sends it back with the code. */
  codeId: string;
  expiresAt: Date;
  /** When another code may be asked for. */
  resendAt: Date;
}

export interface VerifiedCode {
  accountId: string;
  companyId: string | null;
  channel: CodeChannel;
  address: string;
}

const hashOf = (codeId: string, code: string) => sha256(`${codeId}:${code}`);
const sixDigits = () => String(randomInt(0, 10 ** rules.digits)).padStart(rules.digits, '0');
const HOUR_MS = 3_600_000;

/**
 * Codes sent by email or SMS, for every purpose. A code is bound to the request that asked for
 * it, lives minutes, is used once, and its fifth wrong try ends it. Issuing is paced (one a
 * minute per address and purpose) and budgeted per address and per person each hour. A code is
 * never logged: only its hash is stored.
 */
export function createOneTimeCodes(deps: { db: Db; mailer: Mailer; sms: SmsSender }) {
  const { db } = deps;

  /** Refuses a request that comes too soon after the last one, or past the hour's budget. */
  async function assertPaced(request: CodeRequest, now: Date) {
    const since = new Date(now.getTime() - HOUR_MS);
    const recent = await db
      .selectFrom('one_time_codes')
      .select(['purpose', 'created_at', 'address'])
      .where('created_at', '>', since)
      .where((eb) =>
        request.accountId
          ? eb.or([eb('address', '=', request.address), eb('account_id', '=', request.accountId)])
          : eb('address', '=', request.address),
      )
      .orderBy('created_at', 'desc')
      .limit(rules.perHour)
      .execute();
    const last = recent.find((row) => row.address === request.address && row.purpose === request.purpose);
    const wait = last ? last.created_at.getTime() + rules.resendAfterSeconds * 1000 - now.getTime() : 0;
    if (wait > 0) throw new AppError('code.resend_wait', { seconds: Math.ceil(wait / 1000) });
    if (recent.length >= rules.perHour) throw new AppError('code.too_many');
  }

  async function deliver(request: CodeRequest, code: string, minutes: number) {
    if (request.channel === 'email') {
      await deps.mailer.send(
        codeMail(request.lang, request.address, {
          code,
          minutes,
          purpose: request.purpose,
          company: request.companyName,
        }),
      );
    } else {
      await deps.sms.sendCode({
        companyId: request.companyId,
        phone: request.address,
        code,
        minutes,
        purpose: request.purpose,
        lang: request.lang,
      });
    }
  }

  return {
    /**
     * Makes a code, stores its hash and sends it. A failed send removes the row, so the person
     * may ask again at once and no code exists that nobody received.
     */
    async issue(request: CodeRequest): Promise<IssuedCode> {
      const now = new Date();
      await assertPaced(request, now);
      const codeId = newId();
      const code = sixDigits();
      const lifetime = rules.lifetimeSeconds[request.purpose];
      const expiresAt = new Date(now.getTime() + lifetime * 1000);
      await db
        .insertInto('one_time_codes')
        .values({
          id: codeId,
          company_id: request.companyId,
          account_id: request.accountId,
          purpose: request.purpose,
          channel: request.channel,
          address: request.address,
          code_hash: hashOf(codeId, code),
          expires_at: expiresAt,
          used_at: null,
          created_at: now,
        })
        .execute();
      if (request.accountId) {
        try {
          await deliver(request, code, Math.round(lifetime / 60));
        } catch (error) {
          await db.deleteFrom('one_time_codes').where('id', '=', codeId).execute();
          throw error;
        }
      }
      return { codeId, expiresAt, resendAt: new Date(now.getTime() + rules.resendAfterSeconds * 1000) };
    },

    /**
     * Checks a code against its request. Every try counts (atomically, so parallel guesses
     * cannot exceed the limit) and the right code is consumed once: of two parallel right
     * answers exactly one wins. `code.wrong` says how many tries are left; `code.expired` covers
     * a used, expired, exhausted, unknown or decoy request alike, and a code sent to an address
     * the person no longer has (an administrator, a directory or SCIM changed it meanwhile).
     */
    async verify(input: { codeId: string; purpose: CodePurpose; code: string }): Promise<VerifiedCode> {
      const row = await db
        .updateTable('one_time_codes')
        .set({ tries: sql`tries + 1` })
        .where('id', '=', input.codeId)
        .where('purpose', '=', input.purpose)
        .where('used_at', 'is', null)
        .where('expires_at', '>', new Date())
        .where('tries', '<', rules.maxTries)
        .where((eb) =>
          eb.or([
            // A decoy counts its tries like any code; a new address's code goes to that address.
            eb('account_id', 'is', null),
            eb('purpose', '=', 'verify_address'),
            // Any other code went to the person's address: it ends when that address changes.
            eb.exists(
              eb
                .selectFrom('accounts')
                .select(sql.lit(1).as('one'))
                .whereRef('accounts.id', '=', 'one_time_codes.account_id')
                .where((inner) =>
                  inner.or([
                    inner.and([
                      inner('one_time_codes.channel', '=', 'email'),
                      inner('accounts.email', '=', inner.ref('one_time_codes.address')),
                    ]),
                    inner.and([
                      inner('one_time_codes.channel', '=', 'sms'),
                      inner('accounts.phone', '=', inner.ref('one_time_codes.address')),
                    ]),
                  ]),
                ),
            ),
          ]),
        )
        .returning(['code_hash', 'tries', 'account_id', 'company_id', 'channel', 'address'])
        .executeTakeFirst();
      if (!row) throw new AppError('code.expired');
      const right = safeEqual(row.code_hash, hashOf(input.codeId, input.code.trim()));
      if (!right || !row.account_id) {
        const remaining = rules.maxTries - row.tries;
        throw new AppError(remaining > 0 ? 'code.wrong' : 'code.expired', { remaining });
      }
      const used = await db
        .updateTable('one_time_codes')
        .set({ used_at: new Date() })
        .where('id', '=', input.codeId)
        .where('used_at', 'is', null)
        .returning('id')
        .executeTakeFirst();
      if (!used) throw new AppError('code.expired');
      return {
        accountId: row.account_id,
        companyId: row.company_id,
        channel: row.channel,
        address: row.address,
      };
    },

    /** Ends a person's open codes of one purpose (after a reset, or when an address changes). */
    async revoke(accountId: string, purpose: CodePurpose) {
      await db
        .updateTable('one_time_codes')
        .set({ used_at: new Date() })
        .where('account_id', '=', accountId)
        .where('purpose', '=', purpose)
        .where('used_at', 'is', null)
        .execute();
    },

    /** Removes codes that ended over an hour ago (a job); pacing only looks back one hour. */
    purge(limits?: PurgeLimits): Promise<number> {
      const hourAgo = new Date(Date.now() - HOUR_MS);
      return purgeBefore(db, 'one_time_codes', 'expires_at', hourAgo, limits);
    },
  };
}

export type OneTimeCodes = ReturnType<typeof createOneTimeCodes>;
