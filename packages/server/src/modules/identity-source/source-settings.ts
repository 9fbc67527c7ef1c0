import type { identitySource as calls, ErrorReason, Language } from '@tessera/contract';
import type { z } from 'zod';
import { AppError } from '../../lib/errors.ts';
import { translateError } from '../../lib/i18n.ts';

/** What every kind of identity source shares: how its secret is sealed, how a request splits into columns. */

export type SettingsInput = z.output<typeof calls.sourceSettings>;

/** The sealing purpose of a source's secret: bound to the source, so it cannot be moved to another. */
export const secretPurpose = (sourceId: string) => `identity-source:${sourceId}`;

/** Splits a request into the stored settings, the secret as typed (undefined: keep) and the columns. */
export function splitSettings(input: SettingsInput) {
  switch (input.type) {
    case 'ldap': {
      const { type, name, enabled, bindPassword, syncIntervalMinutes, ...settings } = input;
      return { type, name, enabled, secret: bindPassword || undefined, syncIntervalMinutes, settings };
    }
    case 'dingtalk': {
      const { type, name, enabled, appSecret, syncIntervalMinutes, ...settings } = input;
      return { type, name, enabled, secret: appSecret || undefined, syncIntervalMinutes, settings };
    }
    case 'weixin': {
      const { type, name, enabled, appSecret, ...settings } = input;
      return { type, name, enabled, secret: appSecret || undefined, syncIntervalMinutes: 0, settings };
    }
    case 'work_weixin': {
      const { type, name, enabled, secret, syncIntervalMinutes, ...settings } = input;
      return { type, name, enabled, secret: secret || undefined, syncIntervalMinutes, settings };
    }
    case 'oidc': {
      const { type, name, enabled, clientSecret, ...settings } = input;
      return { type, name, enabled, secret: clientSecret || undefined, syncIntervalMinutes: 0, settings };
    }
    case 'saml': {
      // The secret is Tessera's own signing key for the source, made at creation (never typed).
      const { type, name, enabled, ...settings } = input;
      return {
        type,
        name,
        enabled,
        secret: undefined as string | undefined,
        syncIntervalMinutes: 0,
        settings,
      };
    }
  }
}

/** A refusal of one field, in the envelope's `fields` (validation messages in the reader's language). */
export function fieldError(
  lang: Language,
  field: string,
  reason: ErrorReason,
  params: Record<string, string> = {},
) {
  const message = translateError(lang, reason, params);
  return new AppError(reason, params, [{ field, message }], message);
}
