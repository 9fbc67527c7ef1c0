import type { Language } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import type { Mailer } from '../mail/mailer.ts';
import { directoryResetMail } from '../mail/templates.ts';
import type { SmsSender } from '../sms/sms.ts';
import { createOneTimeCodes } from '../verification/one-time-codes.ts';

type Log = { warn(details: object, message: string): void };

/**
 * Whether an account exists must not show in how long the answer takes: a code for a real person
 * goes out over SMTP or an SMS provider (hundreds of milliseconds), a decoy goes nowhere. So the
 * reset's codes are handed to the mailer and the SMS sender without waiting: the answer leaves
 * as soon as the code is stored, and a failed send is logged (the person asks again after a
 * minute). The codes are the one-time codes of every purpose (verification/one-time-codes.ts),
 * over senders that return at once.
 */
export function backgroundCodes(deps: { db: Db; mailer: Mailer; sms: SmsSender; log: Log }) {
  const later = (what: string, send: () => Promise<void>) => {
    send().catch((error: unknown) =>
      deps.log.warn({ err: error }, `sending a password reset ${what} failed`),
    );
  };
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

/** Tells a directory person, by mail and without waiting, that their directory resets their password. */
export function sendDirectoryNotice(
  deps: { mailer: Mailer; log: Log },
  lang: Language,
  to: string,
  input: { name: string; username: string; company: string },
) {
  deps.mailer
    .send(directoryResetMail(lang, to, input))
    .catch((error: unknown) => deps.log.warn({ err: error }, 'sending a directory reset notice failed'));
}
