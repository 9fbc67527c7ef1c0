import { randomBytes } from 'node:crypto';
import { importLimits, unlicensedAllowance } from '@tessera/contract';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  MAIL_NEVER_SENT,
  ownerWithCompany,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import { countAllAccounts, startImport, waitForTask, XLSX } from '../../test/import-kit.ts';
import { buildZip } from '../../test/workbooks.ts';

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
let other: Awaited<ReturnType<typeof ownerWithCompany>>;

beforeAll(async () => {
  ctx = await startTestApp({ mail: MAIL_NEVER_SENT });
  owner = await ownerWithCompany(ctx, 'import-owner', 'Importers Ltd');
  other = await ownerWithCompany(ctx, 'other-owner', 'Other Ltd');
});
afterAll(() => ctx.close());

const HEADER = ['Username', 'Name', 'Nickname', 'Email', 'Phone', 'Departments', 'Password'];

type Cell = ExcelJS.CellValue;

async function workbook(rows: Cell[][], header: string[] = HEADER): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('Users');
  sheet.addRow(header);
  for (const row of rows) sheet.addRow(row);
  return Buffer.from(await book.xlsx.writeBuffer());
}

/** An upload as the console sends it, in the given language. */
const send = (file: { bytes: Buffer; filename: string; type: string }, as = owner, lang?: string) =>
  startImport(ctx, as, file, lang);

const taskOf = (taskId: string, lang = 'en', as = owner) => waitForTask(ctx, as, taskId, lang);

/** Uploads a file and waits for its task to finish. */
async function importRows(
  rows: Cell[][],
  options: { header?: string[]; lang?: string; as?: typeof owner } = {},
) {
  const started = await send(
    { bytes: await workbook(rows, options.header), filename: 'people.xlsx', type: XLSX },
    options.as ?? owner,
  );
  expect(started.code, started.msg).toBe(200);
  return taskOf(started.data.taskId as string, options.lang, options.as ?? owner);
}

async function download(path: string, body: unknown, as = owner) {
  const response = await ctx.tessera.app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/json', access_token: as.token, company_id: as.companyId },
    payload: JSON.stringify(body),
  });
  return response;
}

async function readBook(bytes: Buffer) {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(bytes as unknown as ExcelJS.Buffer);
  return book;
}

const sheetRows = (sheet: ExcelJS.Worksheet) => {
  const rows: string[][] = [];
  sheet.eachRow((row) => {
    const values: string[] = [];
    row.eachCell({ includeEmpty: true }, (cell, column) => {
      values[column - 1] = cell.text;
    });
    rows.push(values);
  });
  return rows;
};

const countAccounts = () => countAllAccounts(ctx);

const accountByUsername = (username: string) =>
  ctx.database.db.selectFrom('accounts').selectAll().where('username', '=', username).executeTakeFirst();

describe('import template', () => {
  it('downloads in English and in Chinese, with a second sheet explaining the columns', async () => {
    for (const [language, header, notes] of [
      ['en', 'Username', 'Instructions'],
      ['zh', '用户名', '填写说明'],
    ] as const) {
      const response = await download('/api/v1/manage/user/batch-task/template', { language });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe(XLSX);
      expect(response.headers['content-disposition']).toMatch(/^attachment; /);
      const book = await readBook(response.rawPayload);
      const [users, explained] = book.worksheets;
      expect(sheetRows(users as ExcelJS.Worksheet)[0]?.[0]).toBe(header);
      expect(sheetRows(users as ExcelJS.Worksheet)).toHaveLength(2);
      expect(explained?.name).toBe(notes);
      expect(sheetRows(explained as ExcelJS.Worksheet).length).toBeGreaterThan(7);
    }
  });

  it('is imported as it comes, in either language: the example row becomes a managed user', async () => {
    for (const [language, username] of [
      ['en', 'jane.doe'],
      ['zh', 'zhangsan'],
    ] as const) {
      const template = await download('/api/v1/manage/user/batch-task/template', { language });
      const started = await send({
        bytes: template.rawPayload,
        filename: `template-${language}.xlsx`,
        type: XLSX,
      });
      expect(started.code, started.msg).toBe(200);
      const task = await taskOf(started.data.taskId as string);
      expect(task).toMatchObject({ status: 'success', total: 1, created: 1, errors: [] });
      const account = await accountByUsername(username);
      expect(account).toMatchObject({
        password_hash: '!',
        must_change_password: true,
        home_company_id: owner.companyId,
        status: 'enabled',
      });
      const record = await ctx.database.db
        .selectFrom('company_members')
        .selectAll()
        .where('account_id', '=', account?.id as string)
        .executeTakeFirst();
      expect(record).toMatchObject({ company_id: owner.companyId, role: 'member', status: 'enabled' });
    }
    expect((await accountByUsername('zhangsan'))?.phone).toBe('13800138000');
    expect((await accountByUsername('jane.doe'))?.phone).toBe('+4915112345678');
    const audit = await ctx.database.db
      .selectFrom('audit_events')
      .selectAll()
      .where('action', '=', 'user.import')
      .where('company_id', '=', owner.companyId)
      .execute();
    expect(audit).toHaveLength(2);
    expect(audit[0]?.after).toMatchObject({ count: 1 });
  });
});

describe('files that are not .xlsx', () => {
  const refusals: [string, { bytes: Buffer | (() => Promise<Buffer>); filename: string; type: string }][] = [
    [
      'a .csv',
      {
        bytes: Buffer.from('Username,Email\nbob,bob@example.com\n'),
        filename: 'people.csv',
        type: 'text/csv',
      },
    ],
    [
      'a text file renamed to .xlsx',
      { bytes: Buffer.from('Username\nbob\n'), filename: 'people.xlsx', type: XLSX },
    ],
    [
      'a zip archive that is not a workbook',
      {
        bytes: () =>
          buildZip([
            { name: 'readme.txt', content: 'hello' },
            { name: 'data/people.csv', content: 'bob' },
          ]),
        filename: 'people.xlsx',
        type: XLSX,
      },
    ],
    [
      'a workbook sent as another type',
      { bytes: Buffer.alloc(0), filename: 'people.xlsx', type: 'application/vnd.ms-excel' },
    ],
    ['a workbook named otherwise', { bytes: Buffer.alloc(0), filename: 'people.xls', type: XLSX }],
  ];

  it.each(refusals)('refuses %s with a localised message and records no task', async (_, file) => {
    const bytes =
      typeof file.bytes === 'function'
        ? await file.bytes()
        : file.bytes.length
          ? file.bytes
          : await workbook([['bob']]);
    const before = await ctx.database.db.selectFrom('import_tasks').select('id').execute();
    const en = await send({ ...file, bytes });
    expect(en).toMatchObject({
      code: 415,
      msg: 'Only .xlsx files can be imported',
      data: { reason: 'import.not_xlsx' },
    });
    const zh = await send({ ...file, bytes }, owner, 'zh-CN');
    expect(zh).toMatchObject({ code: 415, msg: '只能导入 .xlsx 文件' });
    expect(await ctx.database.db.selectFrom('import_tasks').select('id').execute()).toEqual(before);
  });

  it('takes a workbook that the browser declares as a generic binary', async () => {
    const bytes = await workbook([['generic.type']]);
    const started = await send({
      bytes,
      filename: 'people.xlsx',
      type: 'application/octet-stream',
    });
    expect(started.code).toBe(200);
  });

  it('takes a workbook of several MiB, refuses one over 10 MiB', async () => {
    // Columns the template does not know are ignored: here they make the file large.
    const filler = Array.from({ length: 90 }, () => randomBytes(24_000).toString('base64'));
    const large = await workbook(
      [['big.file', ...filler]],
      ['Username', ...filler.map((_, i) => `Notes ${i}`)],
    );
    expect(large.length).toBeGreaterThan(1.5 * 1024 * 1024);
    const started = await send({
      bytes: large,
      filename: 'big.xlsx',
      type: XLSX,
    });
    expect(started.code, started.msg).toBe(200);
    expect(await taskOf(started.data.taskId as string)).toMatchObject({ status: 'success', created: 1 });
    const tooLarge = await send({
      bytes: Buffer.concat([large, randomBytes(importLimits.fileBytes + 1 - large.length)]),
      filename: 'huge.xlsx',
      type: XLSX,
    });
    expect(tooLarge).toMatchObject({ code: 413, data: { reason: 'upload.too_large' } });
  });

  it('fails the task of a damaged workbook, a sheet without the username column and an empty sheet', async () => {
    const good = await workbook([['bob']]);
    // The zip's directory survives, a part is cut short.
    const damaged = Buffer.from(good);
    damaged.fill(0x41, 200, 1200);
    const noUsername = await workbook([['Bob', 'bob@example.com']], ['Name', 'Email']);
    const empty = await workbook([]);
    const outcomes = [
      [damaged, /^The file is damaged/],
      [noUsername, /^The first row must be the header of the import template \(missing column: Username\)$/],
      [empty, /^The file has no users to import$/],
    ] as const;
    for (const [bytes, message] of outcomes) {
      // The upload is taken at once: the workbook is read when the task runs.
      const started = await send({ bytes, filename: 'a.xlsx', type: XLSX });
      expect(started.code, started.msg).toBe(200);
      const task = await taskOf(started.data.taskId as string);
      expect(task).toMatchObject({ status: 'failed', created: 0, total: 0 });
      expect(task.errors).toEqual([{ row: 0, field: null, message: expect.stringMatching(message) }]);
    }
    const zh = await taskOf(
      (await send({ bytes: empty, filename: 'a.xlsx', type: XLSX })).data.taskId as string,
      'zh',
    );
    expect(zh.errors[0]?.message).toBe('文件中没有可导入的用户');
  });
});

describe('import', () => {
  it('stores every row: profile, departments by path or id, passwords by the rules', async () => {
    const tree = await call<{ tree: { departmentId: string } }>(
      ctx,
      '/api/v1/manage/department/tree',
      {},
      owner,
    );
    const rootId = tree.data.tree.departmentId;
    const sales = await call<{ departmentId: string }>(
      ctx,
      '/api/v1/manage/department/create',
      { name: 'Sales', parentId: rootId },
      owner,
    );
    const east = await call<{ departmentId: string }>(
      ctx,
      '/api/v1/manage/department/create',
      { name: 'East', parentId: sales.data.departmentId },
      owner,
    );
    const task = await importRows([
      ['Carol', 'Carol King', 'CK', 'Carol@Example.com', '138 0013 8001', 'Sales/East; Sales', ''],
      ['dave', '', '', '', '', ` ${east.data.departmentId} `, 'Quiet-Harbour-77'],
    ]);
    expect(task, JSON.stringify(task.errors)).toMatchObject({ status: 'success', total: 2, created: 2 });
    const carol = await accountByUsername('Carol');
    expect(carol).toMatchObject({
      display_name: 'Carol King',
      nickname: 'CK',
      email: 'carol@example.com',
      phone: '13800138001',
      password_hash: '!',
    });
    const dave = await accountByUsername('dave');
    expect(dave?.password_hash).toMatch(/^\$argon2id\$/);
    expect(dave?.must_change_password).toBe(true);
    const memberships = await ctx.database.db
      .selectFrom('department_members')
      .select(['account_id', 'department_id'])
      .where('company_id', '=', owner.companyId)
      .execute();
    expect(
      memberships
        .filter((m) => m.account_id === carol?.id)
        .map((m) => m.department_id)
        .sort(),
    ).toEqual([sales.data.departmentId, east.data.departmentId].sort());
    expect(memberships.filter((m) => m.account_id === dave?.id).map((m) => m.department_id)).toEqual([
      east.data.departmentId,
    ]);
  });

  it('stores cells that look like formulas as the text that was typed, never a result', async () => {
    const task = await importRows([
      [
        'formula.one',
        { formula: 'HYPERLINK("http://evil.example","click")', result: 'click' },
        '+1 boss',
        '',
        '',
        '',
        '',
      ],
      ['formula.two', "=cmd|' /C calc'!A0", '@SUM(1+1)', '', '', '', ''],
      ['formula.three', '-2+3', '=1+1', '', '+8613800138002', '', ''],
    ]);
    expect(task.status).toBe('success');
    expect(await accountByUsername('formula.one')).toMatchObject({
      display_name: '=HYPERLINK("http://evil.example","click")',
      nickname: '+1 boss',
    });
    expect(await accountByUsername('formula.two')).toMatchObject({
      display_name: "=cmd|' /C calc'!A0",
      nickname: '@SUM(1+1)',
    });
    expect(await accountByUsername('formula.three')).toMatchObject({
      display_name: '-2+3',
      nickname: '=1+1',
      phone: '+8613800138002',
    });
  });

  it('refuses duplicates inside the file (username in any case, email, phone): every row named, nothing stored', async () => {
    const before = await countAccounts();
    const task = await importRows([
      ['erin', 'Erin', '', 'erin@example.com', '13900000001', '', ''],
      ['frank', '', '', 'ERIN@example.com', '', '', ''],
      ['Erin', '', '', '', '139-0000-0001', '', ''],
      ['grace', '', '', '', '', '', ''],
    ]);
    expect(task).toMatchObject({ status: 'failed', total: 4, created: 0 });
    expect(task.errors).toEqual([
      { row: 3, field: 'Email', message: 'The same value is already in row 2 of the file' },
      { row: 4, field: 'Username', message: 'The same value is already in row 2 of the file' },
      { row: 4, field: 'Phone', message: 'The same value is already in row 2 of the file' },
    ]);
    expect(await countAccounts()).toBe(before);
    expect(await accountByUsername('grace')).toBeUndefined();
  });

  it('refuses what other accounts already have and bad cells, with localised reasons; nothing stored', async () => {
    const before = await countAccounts();
    const task = await importRows(
      [
        ['IMPORT-OWNER', '', '', '', '', '', ''],
        ['henry', '', '', 'carol@EXAMPLE.com', '13800138001', '', ''],
        ['bad name!', '', '', 'not-an-email', '12', 'Nowhere', 'short'],
        ['ivan', '', '', '', '', '', ''],
      ],
      { lang: 'zh-CN' },
    );
    expect(task.status).toBe('failed');
    // Every problem of every row at once: what other accounts have beside the bad cells (issue 35).
    expect(task.errors).toEqual([
      { row: 2, field: '用户名', message: expect.any(String) },
      { row: 3, field: '邮箱', message: expect.any(String) },
      { row: 3, field: '手机号', message: expect.any(String) },
      {
        row: 4,
        field: '用户名',
        message:
          '用户名只能包含字母、数字、点、下划线和连字符，可带一个 @ 及其后的域名（如 alice@example.com）',
      },
      { row: 4, field: '邮箱', message: '请输入有效的邮箱地址' },
      { row: 4, field: '手机号', message: '请输入有效的手机号（数字，可以 + 开头）' },
      { row: 4, field: '部门', message: '企业中没有部门“Nowhere”' },
      { row: 4, field: '密码', message: expect.stringContaining('8') },
    ]);
    // Once the bad row is fixed, the platform's answers alone.
    const second = await importRows([
      ['IMPORT-OWNER', '', '', '', '', '', ''],
      ['henry', '', '', 'carol@EXAMPLE.com', '13800138001', '', ''],
      ['ivan', '', '', '', '', '', ''],
    ]);
    expect(second.errors).toEqual([
      { row: 2, field: 'Username', message: 'This username is already taken' },
      { row: 3, field: 'Email', message: 'This email address is already in use' },
      { row: 3, field: 'Phone', message: 'This phone number is already in use' },
    ]);
    expect(await countAccounts()).toBe(before);
    expect(await accountByUsername('ivan')).toBeUndefined();
  });

  it("refuses a file that would exceed the licence's user quantity; nothing stored", async () => {
    const before = await countAccounts();
    const room = unlicensedAllowance.user - before;
    const rows = Array.from({ length: room + 1 }, (_, i) => [`quota-${i}`]);
    const task = await importRows(rows, { header: ['Username'] });
    expect(task.status).toBe('failed');
    expect(task.errors).toEqual([
      { row: 0, field: null, message: expect.stringContaining(String(unlicensedAllowance.user)) },
    ]);
    expect(await countAccounts()).toBe(before);
  });

  it("does not show another company's task: not found", async () => {
    const task = await importRows([['kate']], { header: ['Username'] });
    const asOther = await call(ctx, '/api/v1/manage/user/batch-task', { taskId: task.taskId }, other);
    expect(asOther).toMatchObject({ code: 404, data: { reason: 'import.task_not_found' } });
    const unknown = await call(ctx, '/api/v1/manage/user/batch-task', { taskId: 'no-such-task' }, owner);
    expect(unknown).toMatchObject({ code: 404, data: { reason: 'import.task_not_found' } });
  });
});

describe('export', () => {
  it('writes the filtered list as text, with formula look-alikes neutralised, headers in the chosen language', async () => {
    const response = await download('/api/v1/manage/user/export', { keyword: 'formula', language: 'zh' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe(XLSX);
    const sheet = (await readBook(response.rawPayload)).worksheets[0] as ExcelJS.Worksheet;
    const rows = sheetRows(sheet);
    expect(rows[0]?.slice(0, 6)).toEqual(['用户名', '姓名', '昵称', '邮箱', '手机号', '部门']);
    const byUsername = new Map(rows.slice(1).map((row) => [row[0], row]));
    expect([...byUsername.keys()].sort()).toEqual(['formula.one', 'formula.three', 'formula.two']);
    expect(byUsername.get('formula.one')?.slice(1, 3)).toEqual([
      `'=HYPERLINK("http://evil.example","click")`,
      "'+1 boss",
    ]);
    expect(byUsername.get('formula.two')?.slice(1, 3)).toEqual([`'=cmd|' /C calc'!A0`, "'@SUM(1+1)"]);
    expect(byUsername.get('formula.three')?.slice(1, 5)).toEqual(["'-2+3", "'=1+1", '', "'+8613800138002"]);
    // Every cell is a string: nothing a spreadsheet would compute.
    sheet.eachRow((row) =>
      row.eachCell((cell) => {
        expect(cell.type).toBe(ExcelJS.ValueType.String);
      }),
    );
  });

  it('filters by department and status as the user list does, and keeps other companies out', async () => {
    const tree = await call<{
      tree: { departmentId: string; children: { departmentId: string; name: string }[] };
    }>(ctx, '/api/v1/manage/department/tree', {}, owner);
    const sales = tree.data.tree.children.find((d) => d.name === 'Sales');
    const response = await download('/api/v1/manage/user/export', {
      departmentId: sales?.departmentId,
      status: 'enabled',
    });
    const rows = sheetRows((await readBook(response.rawPayload)).worksheets[0] as ExcelJS.Worksheet);
    expect(rows[0]?.[0]).toBe('Username');
    expect(
      rows
        .slice(1)
        .map((row) => row[0])
        .sort(),
    ).toEqual(['Carol', 'dave']);
    expect(rows.find((row) => row[0] === 'Carol')?.[5]).toBe('Sales; Sales/East');
    const foreign = await download(
      '/api/v1/manage/user/export',
      { departmentId: sales?.departmentId },
      other,
    );
    expect(foreign.json()).toMatchObject({ code: 404, data: { reason: 'department.not_found' } });
    const theirs = await download('/api/v1/manage/user/export', {}, other);
    const theirRows = sheetRows((await readBook(theirs.rawPayload)).worksheets[0] as ExcelJS.Worksheet);
    expect(theirRows.slice(1).map((row) => row[0])).toEqual(['other-owner']);
  });
});
