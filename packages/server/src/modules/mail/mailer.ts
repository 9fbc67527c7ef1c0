import type { Transporter } from 'nodemailer';
import type { MailConfig } from '../../config.ts';
import { AppError } from '../../lib/errors.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  /** False when the deployment has no TESSERA_SMTP_URL. */
  readonly configured: boolean;
  /** Delivers the message to the SMTP server; `mail.not_configured` / `mail.send_failed` otherwise. */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * SMTP through nodemailer, configured per deployment. The transport keeps no pool: mails are
 * rare (an administrator's click) and a stale pooled connection would only add failure modes.
 * nodemailer (about 14 MB) is loaded with the first mail, not at start.
 */
export function createMailer(
  config: MailConfig | undefined,
  log: { warn(details: object, message: string): void },
): Mailer {
  const smtpUrl = config?.smtpUrl;
  let transport: Promise<Transporter> | undefined;
  const transportFor = (url: string) =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        url,
        // An administrator waits for the answer: a dead server must not hold the request for minutes.
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 20_000,
      }),
    ));
  return {
    configured: Boolean(smtpUrl),
    async send(message) {
      if (!smtpUrl || !config) throw new AppError('mail.not_configured');
      try {
        await (await transportFor(smtpUrl)).sendMail({ from: config.from, ...message });
      } catch (error) {
        // The SMTP answer helps the operator; the caller only learns that sending failed.
        const { code, responseCode, command } = error as {
          code?: string;
          responseCode?: number;
          command?: string;
        };
        log.warn({ code, responseCode, command, err: error }, 'sending mail failed');
        throw new AppError('mail.send_failed');
      }
    },
    close() {
      void transport?.then((opened) => opened.close()).catch(() => undefined);
    },
  };
}
