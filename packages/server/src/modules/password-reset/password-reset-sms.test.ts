import { signInDefaults } from '@tessera/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { openTestDatabase } from '../../test/harness.ts';
import { verifyPassword } from '../account/password.ts';
import type { SmsCode, SmsSender } from '../sms/sms.ts';
import { createPasswordReset } from './password-reset.service.ts';

/**
 * Issue 29, a forgotten password by SMS, against the SMS sender's interface (the providers are
 * built elsewhere): a recording sender stands in for them. Mail is not set up here, so the phone
 * is the only way a code can go.
 */

let database: DatabaseHandle;
const sent: SmsCode[] = [];
const recordingSms: SmsSender = {
  available: async () => true,
  async sendCode(message) {
    sent.push(message);
  },
};
const notices: string[] = [];
let reset: ReturnType<typeof createPasswordReset>;
const context = {
  companyId: null,
  clientId: 'tessera-portal',
  ip: '203.0.113.9',
  userAgent: null,
  lang: 'en' as const,
};

beforeAll(async () => {
  database = await openTestDatabase();
  reset = createPasswordReset({
    db: database.db,
    mailer: {
      configured: false,
      send: () => Promise.reject(new AppError('mail.not_configured')),
      close: () => undefined,
    },
    sms: recordingSms,
    signOut: { prepare: async () => ({ send: async () => ({ sessions: 0, delivered: 0, failed: 0 }) }) },
    notifyCredentialChange: async (accountId) => {
      notices.push(accountId);
    },
    signInPolicy: { ...signInDefaults },
    log: { warn: () => undefined },
  });
});
afterAll(() => database.close());

async function personWithPhone(username: string, phone: string) {
  const id = newId();
  await database.db
    .insertInto('accounts')
    .values({
      id,
      username,
      email: `${username}@example.com`,
      phone,
      display_name: null,
      password_hash: '!',
      status: 'enabled',
    })
    .execute();
  return id;
}

async function smsTo(phone: string) {
  for (let i = 0; i < 100; i++) {
    const message = sent.find((m) => m.phone === phone);
    if (message) return message;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no SMS to ${phone}`);
}

describe('forgot password by SMS', () => {
  it('offers the reset where only SMS can carry the code', async () => {
    expect(await reset.offered(null)).toBe(true);
  });

  it('sends the code to the phone, 10 minutes, and sets the password once', async () => {
    const id = await personWithPhone('sms-ivy', '+8613800000001');
    const { codeId } = await reset.request('sms-ivy', context);
    const message = await smsTo('+8613800000001');
    expect(message).toMatchObject({ purpose: 'password_reset', minutes: 10, lang: 'en' });
    expect(message.code).toMatch(/^\d{6}$/);

    const checked = await reset.checkCode({ codeId, identifier: 'sms-ivy', code: message.code }, context);
    if (!checked.ok) throw new Error(`refused: ${checked.reason}`);
    expect(checked.account.id).toBe(id);
    await reset.setPassword(
      {
        accountId: id,
        credentialVersion: checked.account.credential_version,
        newPassword: 'Phone-Reset-2024',
      },
      context,
    );
    const row = await database.db
      .selectFrom('accounts')
      .select(['password_hash', 'credential_version'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(await verifyPassword(row.password_hash, 'Phone-Reset-2024')).toBe(true);
    expect(row.credential_version).toBe(checked.account.credential_version + 1);
    expect(notices).toContain(id);
    // The grant was for the credential version before: it does not work twice.
    await expect(
      reset.setPassword(
        {
          accountId: id,
          credentialVersion: checked.account.credential_version,
          newPassword: 'Phone-Again-2024',
        },
        context,
      ),
    ).rejects.toMatchObject({ reason: 'code.expired' });
  });

  it('sends nothing for a phone that names nobody, and answers alike', async () => {
    const before = sent.length;
    const answer = await reset.request('+8613899999999', context);
    expect(Object.keys(answer)).toEqual(['codeId']);
    const checked = await reset.checkCode(
      { codeId: answer.codeId, identifier: '+8613899999999', code: '123456' },
      context,
    );
    expect(checked).toEqual({ ok: false, reason: 'wrong', remaining: 4 });
    expect(sent.length).toBe(before);
  });
});
