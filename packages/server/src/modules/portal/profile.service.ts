import {
  type CodeChannel,
  type Language,
  oneTimeCodeRules,
  photoLimits,
  photoTypes,
  user as userCalls,
} from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import type { Account } from '../../db/schema.ts';
import { AppError, uniqueViolationAs } from '../../lib/errors.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { acceptImage, fileUrl, insertFile } from '../files/files.ts';
import { DIRECTORY_PROFILE_FIELDS } from '../identity-source/ldap/ldap-directory.ts';
import type { Mailer } from '../mail/mailer.ts';
import { addressChangedMail } from '../mail/templates.ts';
import type { SmsSender } from '../sms/sms.ts';
import { findTakenIdentifiers } from '../user/user.repo.ts';
import type { OneTimeCodes } from '../verification/one-time-codes.ts';
import * as repo from './profile.repo.ts';

export type ProfileField = (typeof DIRECTORY_PROFILE_FIELDS)[number];
/** How long a code to an address lives, as the code page says it. */
export const CODE_MINUTES = Math.round(oneTimeCodeRules.lifetimeSeconds.verify_address / 60);
export type AddressIntent = 'verify' | 'change';

/** A code sent to an address, as the code page keeps it (sealed) until the person types the code. */
export interface AddressRequest {
  codeId: string;
  channel: CodeChannel;
  intent: AddressIntent;
  /** The account's address when the code was asked for: a change applies only over it. */
  from: string | null;
  address: string;
}

/** What the account page and the profile page say after a confirmed code. */
export type AddressOutcome = 'email_verified' | 'phone_verified' | 'email_changed' | 'phone_changed';

const fieldOf = (channel: CodeChannel): repo.AddressField => (channel === 'email' ? 'email' : 'phone');
const sameAddress = (field: repo.AddressField, a: string | null, b: string | null) =>
  field === 'email' ? (a ?? '').toLowerCase() === (b ?? '').toLowerCase() : a === b;

/** The new address in a notice to the old one: enough to recognise, not to harvest. */
export function maskAddress(address: string): string {
  const at = address.lastIndexOf('@');
  if (at > 0) return `${address.slice(0, 1)}***${address.slice(at)}`;
  return `${'*'.repeat(Math.max(address.length - 4, 0))}${address.slice(-4)}`;
}

/** The refusal of an address another account has, as the console's user edit says it. */
const takenReason = { email: 'user.email_taken', phone: 'user.phone_taken' } as const;

/**
 * The person's own details in the user centre. Name, nickname and photo change at once; an
 * email or phone changes only when the person types the code sent to the new address, and is
 * then verified. Every change is audited (for the person's home company) and a changed address
 * is told to the old email. A directory person edits only what the directory does not own.
 *
 * A company that manages the person (accounts.home_company_id) does not stop them: the details
 * are the person's, and an address is only taken after it is proved.
 *
 * Uniqueness and enumeration: whether another account uses the new address is checked only once
 * its code is proved, so asking for a code answers the same for a free and a taken address (the
 * code goes there either way, paced and budgeted like any); only the owner of that mailbox or
 * phone learns that it is taken.
 */
export function createOwnProfileService(deps: {
  db: Db;
  codes: OneTimeCodes;
  mailer: Mailer;
  sms: SmsSender;
  log: { warn(details: object, message: string): void };
}) {
  const { db } = deps;

  /** The directory the person comes from and the fields it owns; undefined for everyone else. */
  async function directoryOf(accountId: string) {
    const source = await repo.findDirectoryName(db, accountId);
    return source ? { source, fields: [...DIRECTORY_PROFILE_FIELDS] as ProfileField[] } : undefined;
  }

  async function assertEditable(accountId: string, field: ProfileField) {
    if ((await directoryOf(accountId))?.fields.includes(field)) throw new AppError('user.directory_managed');
  }

  /** Whether codes can go to each channel for the person. */
  async function channels(account: Account) {
    return { email: deps.mailer.configured, sms: await deps.sms.available(account.home_company_id) };
  }

  const audit = (
    trx: Db,
    account: Account,
    action: string,
    change: { before: unknown; after: unknown; ip: string },
  ) =>
    insertAuditEvent(trx, {
      companyId: account.home_company_id,
      actorAccountId: account.id,
      action,
      targetType: 'user',
      targetId: account.id,
      before: change.before,
      after: { ...(change.after as object), selfService: true },
      ip: change.ip,
    });

  async function updateNames(
    account: Account,
    input: { name: string | null; nickname: string | null },
    ip: string,
  ) {
    if ((input.name ?? null) !== (account.display_name ?? null)) await assertEditable(account.id, 'name');
    await db.transaction().execute(async (trx) => {
      await repo.updateNames(trx, account.id, { display_name: input.name, nickname: input.nickname });
      await audit(trx, account, 'user.profile_change', {
        before: { username: account.username, name: account.display_name, nickname: account.nickname },
        after: { username: account.username, name: input.name, nickname: input.nickname },
        ip,
      });
    });
  }

  async function updatePhoto(account: Account, upload: Buffer, ip: string) {
    if (upload.length > photoLimits.bytes)
      throw new AppError('upload.too_large', { limit: `${photoLimits.bytes / 1024 / 1024} MiB` });
    const image = await acceptImage(upload, photoTypes);
    await db.transaction().execute(async (trx) => {
      const fileId = await insertFile(trx, account.home_company_id, image.contentType, image.bytes);
      const replaced = await repo.replacePhoto(trx, account.id, fileId);
      await audit(trx, account, 'user.photo_change', {
        before: { username: account.username, photo: fileUrl(replaced) },
        after: {
          username: account.username,
          photo: fileUrl(fileId),
          contentType: image.contentType,
          bytes: image.bytes.length,
        },
        ip,
      });
    });
  }

  /** The address a change asks for, normalised as the console's forms do; refused when malformed. */
  function parseAddress(field: repo.AddressField, typed: string): string {
    const parsed = (field === 'email' ? userCalls.email : userCalls.phone).safeParse(typed);
    if (!parsed.success || !parsed.data)
      throw new AppError(field === 'email' ? 'user.email_invalid' : 'user.phone_invalid');
    return parsed.data;
  }

  /**
   * Sends a code: to the current address (verify), or to a new one (change). Nothing is stored on
   * the account until the code is typed.
   */
  async function requestCode(
    account: Account,
    input: { channel: CodeChannel; intent: AddressIntent; typed?: string },
    lang: Language,
  ): Promise<AddressRequest & { minutes: number }> {
    const field = fieldOf(input.channel);
    const from = account[field];
    let intent = input.intent;
    let address: string;
    if (intent === 'change') {
      address = parseAddress(field, input.typed ?? '');
      await assertEditable(account.id, field);
      // The same address again is a verification of it.
      if (from && sameAddress(field, address, from)) {
        intent = 'verify';
        address = from;
      }
    } else {
      // Nothing to verify: the page offers this only for an address the account has.
      if (!from) throw new AppError('request.invalid');
      address = from;
    }
    const { codeId } = await deps.codes.issue({
      companyId: account.home_company_id,
      accountId: account.id,
      purpose: 'verify_address',
      channel: input.channel,
      address,
      lang,
    });
    return { codeId, channel: input.channel, intent, from, address, minutes: CODE_MINUTES };
  }

  /** Tells the old email of a changed address (best effort: the change is made and stays). */
  async function tellOldAddress(
    account: Account,
    change: { field: repo.AddressField; to: string | null; address: string },
    lang: Language,
  ) {
    const { field, to, address } = change;
    if (!to || !deps.mailer.configured) return;
    try {
      await deps.mailer.send(
        addressChangedMail(lang, to, {
          name: account.display_name ?? account.username,
          username: account.username,
          field,
          address: maskAddress(address),
          at: new Date(),
        }),
      );
    } catch (error) {
      deps.log.warn({ err: error, accountId: account.id }, 'the notice of a changed address was not sent');
    }
  }

  /** Checks the code and applies what it was asked for; answers what the page says. */
  async function confirmCode(
    account: Account,
    request: AddressRequest,
    code: string,
    ip: string,
    lang: Language,
  ): Promise<AddressOutcome> {
    const proved = await deps.codes.verify({ codeId: request.codeId, purpose: 'verify_address', code });
    if (proved.accountId !== account.id || proved.channel !== request.channel)
      throw new AppError('code.expired');
    const field = fieldOf(request.channel);
    if (request.intent === 'verify') {
      if (!(await repo.markVerified(db, account.id, field, proved.address)))
        throw new AppError('code.expired');
      await audit(db, account, 'user.address_verify', {
        before: { username: account.username, [field]: proved.address, verified: false },
        after: { username: account.username, [field]: proved.address, verified: true },
        ip,
      });
      return field === 'email' ? 'email_verified' : 'phone_verified';
    }
    await assertEditable(account.id, field);
    // Only now, with the address proved, may the answer say that someone else has it.
    const taken = await findTakenIdentifiers(
      db,
      { [field]: proved.address },
      { exceptAccountId: account.id },
    );
    if (taken[field]) throw new AppError(takenReason[field]);
    if (taken.emailIsUsername) throw new AppError('user.email_is_username');
    await uniqueViolationAs(
      {
        accounts_email_key: takenReason.email,
        accounts_phone_key: takenReason.phone,
        accounts_email_is_username: 'user.email_is_username',
      },
      () =>
        db.transaction().execute(async (trx) => {
          const changed = await repo.replaceAddress(trx, account.id, field, {
            from: request.from,
            to: proved.address,
          });
          if (!changed) throw new AppError('code.expired');
          await audit(trx, account, `user.${field}_change`, {
            before: { username: account.username, [field]: request.from },
            after: { username: account.username, [field]: proved.address, verified: true },
            ip,
          });
        }),
    );
    // Codes sent to the old address for anything else end with it.
    for (const purpose of ['sign_in', 'second_factor', 'password_reset'] as const)
      await deps.codes.revoke(account.id, purpose);
    // The old email hears of an email change; of a phone change, the (unchanged) email does.
    const to = field === 'email' ? request.from : account.email;
    await tellOldAddress(account, { field, to, address: proved.address }, lang);
    return field === 'email' ? 'email_changed' : 'phone_changed';
  }

  return { directoryOf, channels, updateNames, updatePhoto, requestCode, confirmCode };
}

export type OwnProfileService = ReturnType<typeof createOwnProfileService>;
