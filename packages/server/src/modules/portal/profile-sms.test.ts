import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../db/database.ts';
import type { Account } from '../../db/schema.ts';
import { AppError } from '../../lib/errors.ts';
import { createAccount, openTestDatabase } from '../../test/harness.ts';
import type { MailMessage } from '../mail/mailer.ts';
import { noSmsProvider, type SmsCode, type SmsSender } from '../sms/sms.ts';
import { createOneTimeCodes } from '../verification/one-time-codes.ts';
import { createOwnProfileService } from './profile.service.ts';

/**
 * Issue 29: the phone verified and changed with a code by SMS, at service level with a recording
 * SMS sender (the providers are another module's); the mail to the person's email tells of it.
 */

let database: DatabaseHandle;
const texts: SmsCode[] = [];
const mails: MailMessage[] = [];
const recordingSms: SmsSender = {
  available: async () => true,
  sendCode: async (message) => {
    texts.push(message);
  },
};
const mailer = { configured: true, send: async (m: MailMessage) => void mails.push(m), close() {} };
const log = { warn() {} };

beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.close());

const profileWith = (sms: SmsSender) => {
  const codes = createOneTimeCodes({ db: database.db, mailer, sms });
  return createOwnProfileService({ db: database.db, codes, mailer, sms, log });
};

async function account(username: string, phone: string | null): Promise<Account> {
  const { id } = await createAccount({ database }, { username, email: `${username}@example.com` });
  await database.db.updateTable('accounts').set({ phone }).where('id', '=', id).execute();
  return database.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

const reasonOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error) => (error instanceof AppError ? error.reason : String(error)),
  );

describe('the phone in the user centre', () => {
  it('changes with the code sent by SMS to the new number; the email tells of it', async () => {
    const profile = profileWith(recordingSms);
    const ivy = await account('sms-ivy', '+8613800000011');
    const request = await profile.requestCode(
      ivy,
      { channel: 'sms', intent: 'change', typed: '+86 139-0000-1111' },
      'zh',
    );
    expect(request).toMatchObject({ intent: 'change', address: '+8613900001111', from: '+8613800000011' });
    const sent = texts.at(-1);
    expect(sent).toMatchObject({
      phone: '+8613900001111',
      purpose: 'verify_address',
      lang: 'zh',
      minutes: 5,
    });
    expect(
      (
        await database.db
          .selectFrom('accounts')
          .select('phone')
          .where('id', '=', ivy.id)
          .executeTakeFirstOrThrow()
      ).phone,
    ).toBe('+8613800000011');

    expect(await profile.confirmCode(ivy, request, sent?.code ?? '', '127.0.0.1', 'zh')).toBe(
      'phone_changed',
    );
    const after = await database.db
      .selectFrom('accounts')
      .select(['phone', 'phone_verified_at'])
      .where('id', '=', ivy.id)
      .executeTakeFirstOrThrow();
    expect(after.phone).toBe('+8613900001111');
    expect(after.phone_verified_at).toBeInstanceOf(Date);
    const notice = mails.at(-1);
    expect(notice?.to).toBe('sms-ivy@example.com');
    expect(notice?.subject).toBe('您账号的手机号已修改');
    expect(notice?.text).toContain('已改为 **********1111');
    const audit = await database.db
      .selectFrom('audit_events')
      .select(['action', 'before', 'after'])
      .where('target_id', '=', ivy.id)
      .executeTakeFirstOrThrow();
    expect(audit).toMatchObject({
      action: 'user.phone_change',
      before: { phone: '+8613800000011' },
      after: { phone: '+8613900001111', verified: true, selfService: true },
    });
  });

  it('verifies the current number, and refuses a number another account has once its code is proved', async () => {
    const profile = profileWith(recordingSms);
    const jon = await account('sms-jon', '+8613800000022');
    await account('sms-kit', '+8613800000033');
    const verify = await profile.requestCode(jon, { channel: 'sms', intent: 'verify' }, 'en');
    expect(await profile.confirmCode(jon, verify, texts.at(-1)?.code ?? '', '127.0.0.1', 'en')).toBe(
      'phone_verified',
    );

    const taken = await profile.requestCode(
      jon,
      { channel: 'sms', intent: 'change', typed: '+8613800000033' },
      'en',
    );
    // Sent like any other: the answer does not say the number is taken.
    expect(texts.at(-1)?.phone).toBe('+8613800000033');
    expect(await reasonOf(profile.confirmCode(jon, taken, texts.at(-1)?.code ?? '', '127.0.0.1', 'en'))).toBe(
      'user.phone_taken',
    );
    expect(
      (
        await database.db
          .selectFrom('accounts')
          .select('phone')
          .where('id', '=', jon.id)
          .executeTakeFirstOrThrow()
      ).phone,
    ).toBe('+8613800000022');
  });

  it('says SMS is not set up, storing no code', async () => {
    const profile = profileWith(noSmsProvider);
    const lea = await account('sms-lea', '+8613800000044');
    expect(await profile.channels(lea)).toEqual({ email: true, sms: false });
    expect(await reasonOf(profile.requestCode(lea, { channel: 'sms', intent: 'verify' }, 'en'))).toBe(
      'sms.not_configured',
    );
    const codes = await database.db
      .selectFrom('one_time_codes')
      .select('id')
      .where('account_id', '=', lea.id)
      .execute();
    expect(codes).toEqual([]);
  });
});
