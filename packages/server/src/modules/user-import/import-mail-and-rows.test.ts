import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  MAIL_NEVER_SENT,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import { countAllAccounts, startImport, waitForTask } from '../../test/import-kit.ts';

/**
 * Issue 35: without mail (TESSERA_SMTP_URL) people imported without a password could never sign
 * in, so such a file is refused as a whole; and a row lists every one of its problems, a username
 * that belongs to someone beside the row's bad cells.
 */

type Owner = Awaited<ReturnType<typeof ownerWithCompany>>;
let withoutMail: TestContext;
let withMail: TestContext;
let bareOwner: Owner;
let mailOwner: Owner;

beforeAll(async () => {
  withoutMail = await startTestApp();
  withMail = await startTestApp({ mail: MAIL_NEVER_SENT });
  bareOwner = await ownerWithCompany(withoutMail, 'nomail-owner', 'No Mail Ltd');
  mailOwner = await ownerWithCompany(withMail, 'rows-owner', 'Rows Ltd');
});
afterAll(async () => {
  await withoutMail?.close();
  await withMail?.close();
});

const HEADER = ['Username', 'Name', 'Nickname', 'Email', 'Phone', 'Departments', 'Password'];

/** A real .xlsx as a spreadsheet program writes it (exceljs). */
async function workbook(rows: string[][]): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Users');
  sheet.addRow(HEADER);
  for (const row of rows) sheet.addRow(row);
  return Buffer.from(await book.xlsx.writeBuffer());
}

async function importRows(ctx: TestContext, as: Owner, rows: string[][], lang = 'en') {
  const started = await startImport(ctx, as, { bytes: await workbook(rows) }, lang);
  expect(started.code, started.msg).toBe(200);
  return waitForTask(ctx, as, started.data.taskId as string, lang);
}

describe('mail off', () => {
  it('tells the console that mail is off, or on', async () => {
    const off = await call(withoutMail, '/api/v1/manage/system/info', {}, { token: bareOwner.token });
    expect(off.data).toMatchObject({ mailEnabled: false });
    const on = await call(withMail, '/api/v1/manage/system/info', {}, { token: mailOwner.token });
    expect(on.data).toMatchObject({ mailEnabled: true });
  });

  it('refuses a whole file with rows without a password, saying what to do, in English and Chinese; nothing stored', async () => {
    const rows = [
      ['pw.given', '', '', '', '', '', 'Given-Pass-2026'],
      ['pw.missing.a', '', '', '', '', '', ''],
      ['pw.missing.b', '', '', '', '', '', ''],
    ];
    const before = await countAllAccounts(withoutMail);
    const english = await importRows(withoutMail, bareOwner, rows);
    expect(english.status).toBe('failed');
    expect(english.errors).toEqual([
      {
        row: 0,
        field: null,
        message:
          '2 rows have no password, and mail is not set up on this platform (TESSERA_SMTP_URL), so these people could never sign in: add their passwords to the file, or ask the platform administrator to set up mail',
      },
      {
        row: 3,
        field: 'Password',
        message: 'No password, and mail is not set up to let the person choose one',
      },
      {
        row: 4,
        field: 'Password',
        message: 'No password, and mail is not set up to let the person choose one',
      },
    ]);
    const chinese = await importRows(withoutMail, bareOwner, rows, 'zh');
    expect(chinese.errors[0]).toEqual({
      row: 0,
      field: null,
      message:
        '有 2 行未填写密码，且本平台未配置邮件（TESSERA_SMTP_URL），这些人将无法登录：请在文件中填写密码，或请平台管理员配置邮件',
    });
    expect(chinese.errors[1]).toMatchObject({ row: 3, field: '密码' });
    expect(await countAllAccounts(withoutMail)).toBe(before);

    // With every password given, the same people are imported.
    const done = await importRows(
      withoutMail,
      bareOwner,
      rows.map((row) => [...row.slice(0, 6), 'Given-Pass-2026']),
    );
    expect(done).toMatchObject({ status: 'success', created: 3 });
  });

  it('imports rows without a password when mail is on (they get in through a sign-in link)', async () => {
    const done = await importRows(withMail, mailOwner, [
      ['linked.person', '', '', 'lp@example.com', '', '', ''],
    ]);
    expect(done).toMatchObject({ status: 'success', created: 1 });
  });
});

describe('every problem of a row', () => {
  it("lists a username that belongs to someone beside the same row's other errors", async () => {
    await importRows(withMail, mailOwner, [['taken.name', '', '', 'taken@example.com', '', '', '']]);
    const before = await countAllAccounts(withMail);
    const task = await importRows(withMail, mailOwner, [
      ['fresh.one', '', '', '', '', '', ''],
      ['Taken.Name', '', '', 'not-an-email', '', 'Nowhere', 'short'],
      ['other.one', '', '', 'TAKEN@example.com', '12', '', ''],
    ]);
    expect(task.status).toBe('failed');
    expect(task.errors).toEqual([
      { row: 3, field: 'Username', message: 'This username is already taken' },
      { row: 3, field: 'Email', message: 'Please enter a valid email address' },
      { row: 3, field: 'Departments', message: 'The company has no department "Nowhere"' },
      { row: 3, field: 'Password', message: 'The password must be at least 8 characters' },
      { row: 4, field: 'Email', message: 'This email address is already in use' },
      { row: 4, field: 'Phone', message: expect.stringContaining('phone') },
    ]);
    expect(await countAllAccounts(withMail)).toBe(before);
  });
});
