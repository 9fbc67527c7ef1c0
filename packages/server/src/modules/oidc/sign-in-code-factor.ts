import { type CodeChannel, type Language, oneTimeCodeRules } from '@tessera/contract';
import type { SentCodeFactors } from '@tessera/portal';
import type { Account } from '../../db/schema.ts';
import { AppError } from '../../lib/errors.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { MfaRequirement } from '../mfa/mfa-requirement.ts';
import type { SmsSender } from '../sms/sms.ts';
import type { OneTimeCodes } from '../verification/one-time-codes.ts';
import { CODE_AMR, codeChannelOf, verifiedAddress } from './code-sign-in.ts';

/** What the second factor by a code sent to a verified address needs (MFA kinds `email`, `sms`). */
export interface SentCodeDeps {
  codes: OneTimeCodes;
  sms: SmsSender;
  mailer: Mailer;
}

/** An address as the page shows it: enough for the person to know it, not to learn it. */
export function maskAddress(address: string, channel: CodeChannel): string {
  if (channel === 'sms') return `${'*'.repeat(Math.max(address.length - 4, 3))}${address.slice(-4)}`;
  const [name = '', domain = ''] = address.split('@');
  return `${name.slice(0, 1)}***@${domain}`;
}

/**
 * The second factor by a code sent to the person's verified email address or phone. A verified
 * address of an allowed kind is a factor of its own (nothing to bind): with mode `optional` a
 * person who has one is asked for it, with `required` a person who has one binds nothing. Not
 * offered: a channel whose code was the first factor (a code by email does not prove the
 * mailbox twice), SMS without a provider, email without mail.
 */
export function createSentCodeFactor(deps: SentCodeDeps) {
  async function channels(
    account: Account,
    requirement: Pick<MfaRequirement, 'sentCodes'>,
    amr: readonly string[] | undefined,
  ): Promise<CodeChannel[]> {
    const usable: CodeChannel[] = [];
    for (const channel of requirement.sentCodes) {
      if (amr?.includes(CODE_AMR[channel]) || !verifiedAddress(account, channel)) continue;
      if (channel === 'email' ? deps.mailer.configured : await deps.sms.available(account.home_company_id))
        usable.push(channel);
    }
    return usable;
  }

  /** The page's part: the channels to send to, and the code sent (StepView.refused keeps its request). */
  async function view(
    account: Account,
    requirement: Pick<MfaRequirement, 'sentCodes'>,
    context: { amr?: readonly string[]; refused?: Record<string, string | undefined> },
  ): Promise<SentCodeFactors | undefined> {
    const usable = await channels(account, requirement, context.amr);
    if (!usable.length) return undefined;
    const addressOf = (channel: CodeChannel) => maskAddress(verifiedAddress(account, channel) ?? '', channel);
    const sentChannel = codeChannelOf(context.refused?.sentChannel);
    const sentCodeId = context.refused?.sentCodeId;
    return {
      channels: usable.map((channel) => ({ channel, address: addressOf(channel) })),
      sent:
        sentChannel && sentCodeId && usable.includes(sentChannel)
          ? {
              codeId: sentCodeId,
              channel: sentChannel,
              address: addressOf(sentChannel),
              minutes: oneTimeCodeRules.lifetimeSeconds.second_factor / 60,
            }
          : undefined,
    };
  }

  /** Sends a code to the channel's verified address, when it is one of the person's usable channels. */
  async function send(
    account: Account,
    requirement: Pick<MfaRequirement, 'sentCodes'>,
    input: { channel: CodeChannel; amr?: readonly string[]; lang: Language; companyName?: string },
  ) {
    const address = verifiedAddress(account, input.channel);
    if (!address || !(await channels(account, requirement, input.amr)).includes(input.channel))
      throw new AppError('code.expired');
    return deps.codes.issue({
      companyId: account.home_company_id,
      accountId: account.id,
      purpose: 'second_factor',
      channel: input.channel,
      address,
      lang: input.lang,
      companyName: input.companyName,
    });
  }

  /** Checks a typed code: right when it is the person's own code of a channel they may use now. */
  async function check(
    account: Account,
    requirement: Pick<MfaRequirement, 'sentCodes'>,
    input: { codeId: string; code: string; amr?: readonly string[] },
  ): Promise<{ ok: boolean; channel?: CodeChannel }> {
    try {
      const verified = await deps.codes.verify({
        codeId: input.codeId,
        purpose: 'second_factor',
        code: input.code,
      });
      const usable = await channels(account, requirement, input.amr);
      const ok = verified.accountId === account.id && usable.includes(verified.channel);
      return { ok, channel: verified.channel };
    } catch (error) {
      if (error instanceof AppError && (error.reason === 'code.wrong' || error.reason === 'code.expired'))
        return { ok: false };
      throw error;
    }
  }

  return { channels, view, send, check };
}

export type SentCodeFactor = ReturnType<typeof createSentCodeFactor>;
