import type { Language } from '@tessera/contract';
import type { Mailer } from '../mail/mailer.ts';
import { directoryResetMail } from '../mail/templates.ts';
import type { AfterAnswer, Log } from '../verification/deferred-codes.ts';

/** Tells a directory person, by mail once the answer has left, that their directory resets their password. */
export function sendDirectoryNotice(
  deps: { mailer: Mailer; log: Log },
  afterAnswer: AfterAnswer,
  lang: Language,
  to: string,
  input: { name: string; username: string; company: string },
) {
  afterAnswer(() => {
    deps.mailer
      .send(directoryResetMail(lang, to, input))
      .catch((error: unknown) => deps.log.warn({ err: error }, 'sending a directory reset notice failed'));
  });
}
