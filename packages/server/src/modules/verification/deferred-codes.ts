import type { Db } from '../../db/database.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { SmsSender } from '../sms/sms.ts';
import { createOneTimeCodes } from './one-time-codes.ts';

export type Log = { warn(details: object, message: string): void };

/** Runs work once the answer has left (the route's), or soon (callers without one). */
export type AfterAnswer = (work: () => void) => void;

/**
 * Whether an account exists must not show in how long the answer takes: a code for a real person
 * goes out over SMTP or an SMS provider (hundreds of milliseconds, and the mail's composition
 * takes the main thread a millisecond or two), a decoy goes nowhere. So where the answer must
 * not tell (a forgotten password, a code sign-in), the code is handed to the mailer or the SMS
 * sender only once the answer has left (`afterAnswer`), and a failed send is logged (the SMS
 * sender also audits it; the person asks again after a minute). The codes are the one-time codes of
 * every purpose (verification/one-time-codes.ts), over senders that return at once: one set for
 * each request, so that its sends wait for its own answer.
 */
export function deferredCodes(
  deps: { db: Db; mailer: Mailer; sms: SmsSender; log: Log },
  afterAnswer: AfterAnswer,
) {
  const later = (what: string, send: () => Promise<void>) =>
    afterAnswer(() => {
      send().catch((error: unknown) => deps.log.warn({ err: error }, `sending a one-time ${what} failed`));
    });
  const mailer: Mailer = {
    configured: deps.mailer.configured,
    send: async (message) => later('code by mail', () => deps.mailer.send(message)),
    close: () => undefined,
  };
  const sms: SmsSender = {
    available: (companyId) => deps.sms.available(companyId),
    sendCode: async (message) => later('code by SMS', () => deps.sms.sendCode(message)),
  };
  return createOneTimeCodes({ db: deps.db, mailer, sms });
}
