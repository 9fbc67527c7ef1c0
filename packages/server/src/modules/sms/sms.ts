import type { CodePurpose, Language } from '@tessera/contract';
import { AppError } from '../../lib/errors.ts';

/** One code message: the provider fills the company's (or the platform's) code template with it. */
export interface SmsCode {
  /** The company whose sign name and template apply; null for the platform's own. */
  companyId: string | null;
  phone: string;
  code: string;
  /** How long the code lives, for templates that say so. */
  minutes: number;
  purpose: CodePurpose;
  lang: Language;
}

/**
 * Text messages through the provider the platform operator configured. A failure is an
 * AppError for the person (`sms.not_configured`, `sms.send_failed`) and an event for the
 * operator; nothing is retried in a loop.
 */
export interface SmsSender {
  /** Whether codes can go by SMS for this company. */
  available(companyId: string | null): Promise<boolean>;
  sendCode(message: SmsCode): Promise<void>;
}

/** The sender of an installation without an SMS provider. */
export const noSmsProvider: SmsSender = {
  available: async () => false,
  async sendCode() {
    throw new AppError('sms.not_configured');
  },
};
