import { oneTimeCodeRules } from '@tessera/contract';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../lib/errors.ts';
import { createAccount, startTestApp, type TestContext } from '../../test/harness.ts';
import { startTestSmtp } from '../../test/smtp.ts';
import { createMailer } from '../mail/mailer.ts';
import type { SmsCode, SmsSender } from '../sms/sms.ts';
import { createOneTimeCodes, type OneTimeCodes } from './one-time-codes.ts';

let smtp: Awaited<ReturnType<typeof startTestSmtp>>;
let ctx: TestContext;
let codes: OneTimeCodes;
const texts: SmsCode[] = [];
const sms: SmsSender = { available: async () => true, sendCode: async (message) => void texts.push(message) };

beforeAll(async () => {
  smtp = await startTestSmtp();
  ctx = await startTestApp();
  const mailer = createMailer(
    { smtpUrl: smtp.url, from: 'Tessera <id@tessera.example>' },
    { warn: () => {} },
  );
  codes = createOneTimeCodes({ db: ctx.database.db, mailer, sms });
});
afterAll(async () => {
  await ctx.close();
  await smtp.close();
});

const reasonOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (error: unknown) => (error instanceof AppError ? error.reason : String(error)),
  );
const codeIn = (mail: ParsedMail) => /\b\d{6}\b/.exec(mail.text ?? '')?.[0] ?? '';
const setPhone = (accountId: string, phone: string | null) =>
  ctx.database.db.updateTable('accounts').set({ phone }).where('id', '=', accountId).execute();
const mailTo = (address: string) =>
  smtp.received.filter((mail) => mail.text && JSON.stringify(mail.to).includes(address));

describe('one-time codes', () => {
  it('mails a 6-digit code that works once, for its own request and purpose only', async () => {
    const person = await createAccount(ctx, { username: 'code-once', email: 'code-once@example.com' });
    const issued = await codes.issue({
      companyId: null,
      accountId: person.id,
      purpose: 'sign_in',
      channel: 'email',
      address: 'code-once@example.com',
      lang: 'zh',
    });
    const [mail] = mailTo('code-once@example.com');
    expect(mail?.subject).toBe('您的登录验证码');
    const code = codeIn(mail as ParsedMail);
    expect(code).toMatch(/^\d{6}$/);
    expect(issued.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(300_000);
    // Only the hash is stored.
    const rows = await ctx.database.db
      .selectFrom('one_time_codes')
      .selectAll()
      .where('id', '=', issued.codeId)
      .execute();
    expect(JSON.stringify(rows)).not.toContain(code);

    expect(await reasonOf(codes.verify({ codeId: issued.codeId, purpose: 'password_reset', code }))).toBe(
      'code.expired',
    );
    expect(await codes.verify({ codeId: issued.codeId, purpose: 'sign_in', code })).toMatchObject({
      accountId: person.id,
      channel: 'email',
    });
    expect(await reasonOf(codes.verify({ codeId: issued.codeId, purpose: 'sign_in', code }))).toBe(
      'code.expired',
    );
  });

  it('ends a code at its fifth wrong try, and of parallel right answers exactly one wins', async () => {
    const person = await createAccount(ctx, { username: 'code-tries' });
    await setPhone(person.id, '+8613800000001');
    const request = {
      companyId: null,
      accountId: person.id,
      purpose: 'second_factor' as const,
      channel: 'sms' as const,
      address: '+8613800000001',
      lang: 'en' as const,
    };
    const first = await codes.issue(request);
    const code = texts.at(-1)?.code as string;
    const wrong = code === '000000' ? '000001' : '000000';
    const answers = [];
    for (let i = 0; i < oneTimeCodeRules.maxTries; i++)
      answers.push(
        await reasonOf(codes.verify({ codeId: first.codeId, purpose: 'second_factor', code: wrong })),
      );
    expect(answers).toEqual(['code.wrong', 'code.wrong', 'code.wrong', 'code.wrong', 'code.expired']);
    expect(await reasonOf(codes.verify({ codeId: first.codeId, purpose: 'second_factor', code }))).toBe(
      'code.expired',
    );

    // Pacing: the next code for this address and purpose comes a minute later.
    expect(await reasonOf(codes.issue(request))).toBe('code.resend_wait');
    await ctx.database.db
      .updateTable('one_time_codes')
      .set({ created_at: new Date(Date.now() - 61_000) })
      .where('id', '=', first.codeId)
      .execute();
    const second = await codes.issue(request);
    const secondCode = texts.at(-1)?.code as string;
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        reasonOf(codes.verify({ codeId: second.codeId, purpose: 'second_factor', code: secondCode })),
      ),
    );
    expect(results.filter((result) => result === 'ok')).toHaveLength(1);
  });

  it("ends a code sent to an address the person no longer has, but not a new address's code", async () => {
    const person = await createAccount(ctx, { username: 'code-moved' });
    await setPhone(person.id, '+8613800000040');
    const request = {
      companyId: null,
      accountId: person.id,
      purpose: 'sign_in' as const,
      channel: 'sms' as const,
      address: '+8613800000040',
      lang: 'en' as const,
    };
    const issued = await codes.issue(request);
    const code = texts.at(-1)?.code as string;
    const newAddress = await codes.issue({
      ...request,
      purpose: 'verify_address',
      address: '+8613800000041',
    });
    const newAddressCode = texts.at(-1)?.code as string;
    // An administrator (or a directory, or SCIM) changes the number before the code is typed.
    await setPhone(person.id, '+8613800000042');
    expect(await reasonOf(codes.verify({ codeId: issued.codeId, purpose: 'sign_in', code }))).toBe(
      'code.expired',
    );
    expect(
      await reasonOf(
        codes.verify({ codeId: newAddress.codeId, purpose: 'verify_address', code: newAddressCode }),
      ),
    ).toBe('ok');
  });

  it('answers a decoy like any code and sends nothing', async () => {
    const before = smtp.received.length + texts.length;
    const decoy = await codes.issue({
      companyId: null,
      accountId: null,
      purpose: 'password_reset',
      channel: 'email',
      address: 'nobody@example.com',
      lang: 'en',
    });
    expect(
      await reasonOf(codes.verify({ codeId: decoy.codeId, purpose: 'password_reset', code: '123456' })),
    ).toBe('code.wrong');
    expect(smtp.received.length + texts.length).toBe(before);
  });

  it('keeps no code whose sending failed, and budgets an address per hour', async () => {
    const person = await createAccount(ctx, { username: 'code-bounce' });
    const failing = { ...sms, sendCode: async () => Promise.reject(new AppError('sms.send_failed')) };
    const failingCodes = createOneTimeCodes({
      db: ctx.database.db,
      mailer: createMailer(undefined, { warn: () => {} }),
      sms: failing,
    });
    const request = {
      companyId: null,
      accountId: person.id,
      purpose: 'verify_address' as const,
      channel: 'sms' as const,
      address: '+8613800000002',
      lang: 'en' as const,
    };
    expect(await reasonOf(failingCodes.issue(request))).toBe('sms.send_failed');
    // Nothing stored: the person may ask again at once.
    expect(await reasonOf(codes.issue(request))).toBe('ok');

    const old = new Date(Date.now() - 120_000);
    await ctx.database.db
      .insertInto('one_time_codes')
      .values(
        Array.from({ length: oneTimeCodeRules.perHour }, (_, i) => ({
          id: `budget-${i}`,
          company_id: null,
          account_id: null,
          purpose: 'sign_in' as const,
          channel: 'sms' as const,
          address: '+8613800000003',
          code_hash: 'x',
          expires_at: old,
          used_at: null,
          created_at: old,
        })),
      )
      .execute();
    expect(await reasonOf(codes.issue({ ...request, address: '+8613800000003' }))).toBe('code.too_many');
  });
});
