import type { Language } from '@tessera/contract';
import { collect, loadExcelJS, streamXlsx } from '../../lib/sheet-export.ts';
import { type ExportColumn, exportColumns, type ImportColumn, importColumns, labels } from './columns.ts';

/**
 * Workbooks Tessera writes: the import template and the user export (exceljs). Uploaded
 * workbooks are read by sheet-reader.ts, in a worker.
 */

const templateNotes: Record<Language, Record<ImportColumn, string>> = {
  en: {
    username:
      'Required. What the person signs in with: letters, digits, dot, underscore and hyphen, starting with a letter or digit; at most 64 characters. Unique on the whole platform (upper and lower case count as the same).',
    name: 'Optional. The full name, at most 64 characters.',
    nickname: 'Optional. At most 64 characters.',
    email: 'Optional. Unique on the whole platform; sign-in links are sent here.',
    phone:
      'Optional. Digits, optionally starting with +; spaces and hyphens are ignored. Unique on the whole platform.',
    departments:
      'Optional. Existing departments of the company, by path from the top ("Sales/East") or by department id; several separated by ";".',
    password:
      "Optional. Leave empty and the person gets in through a sign-in link sent by email; a password given here must meet the company's password rules. Either way they choose a new password at first sign-in.",
  },
  zh: {
    username:
      '必填。登录用的用户名：字母、数字、点、下划线和连字符，以字母或数字开头，最多 64 个字符。在整个平台内唯一（不区分大小写）。',
    name: '选填。姓名，最多 64 个字符。',
    nickname: '选填。最多 64 个字符。',
    email: '选填。在整个平台内唯一；登录链接会发送到这里。',
    phone: '选填。数字，可以 + 开头；空格和连字符会被忽略。在整个平台内唯一。',
    departments:
      '选填。企业中已有的部门，写从顶层开始的路径（"销售部/华东"）或部门 ID；多个部门用 ";" 分隔。',
    password:
      '选填。留空时，用户通过邮件中的登录链接登录；在此填写的密码必须符合企业的密码规则。无论哪种方式，首次登录时都要设置新密码。',
  },
};

const templateText: Record<
  Language,
  { users: string; notes: string; column: string; meaning: string; rules: string[]; example: string[] }
> = {
  en: {
    users: 'Users',
    notes: 'Instructions',
    column: 'Column',
    meaning: 'Meaning',
    rules: [
      'Fill in one person per row on the first sheet, below the header row; replace the example row. Do not rename the header cells (English or Chinese headers are both accepted).',
      'Only .xlsx files, at most 10 MiB and 50 000 users. If any row has a problem, nothing is imported and every problem is listed with its row.',
    ],
    example: ['jane.doe', 'Jane Doe', 'Jane', 'jane.doe@example.com', '+4915112345678', '', ''],
  },
  zh: {
    users: '用户',
    notes: '填写说明',
    column: '列',
    meaning: '说明',
    rules: [
      '在第一个工作表的表头下方每行填写一个人，并替换示例行。请勿修改表头（中文或英文表头均可）。',
      '只能导入 .xlsx 文件，最大 10 MiB、最多 50 000 个用户。任何一行有问题时不会导入任何数据，并会列出每个问题所在的行。',
    ],
    example: ['zhangsan', '张三', '小张', 'zhangsan@example.com', '13800138000', '', ''],
  },
};

/** The import template: header and an example row, and a second sheet that explains each column. */
export async function buildTemplate(lang: Language): Promise<Uint8Array<ArrayBuffer>> {
  const text = templateText[lang];
  const ExcelJS = await loadExcelJS();
  const workbook = new ExcelJS.Workbook();
  const users = workbook.addWorksheet(text.users);
  users.columns = importColumns.map((column) => ({
    header: labels[lang][column],
    key: column,
    width: column === 'email' || column === 'departments' ? 30 : 18,
    // Text format, so a phone number or a leading zero stays as typed.
    style: { numFmt: '@' },
  }));
  users.getRow(1).font = { bold: true };
  users.addRow(text.example);
  const notes = workbook.addWorksheet(text.notes);
  notes.columns = [
    { header: text.column, key: 'column', width: 18 },
    { header: text.meaning, key: 'meaning', width: 110 },
  ];
  notes.getRow(1).font = { bold: true };
  for (const column of importColumns) notes.addRow([labels[lang][column], templateNotes[lang][column]]);
  notes.addRow([]);
  for (const rule of text.rules) notes.addRow(['', rule]);
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}

/**
 * Writes rows as a one-sheet workbook with the streaming writer of lib/sheet-export.ts: every
 * cell is text (formula look-alikes neutralised), and rows are committed as they come, so only
 * the zipped output is held in memory.
 */
export async function writeExport(
  lang: Language,
  sheetName: string,
  rows: AsyncIterable<Record<ExportColumn, string>>,
): Promise<Uint8Array<ArrayBuffer>> {
  async function* cells() {
    for await (const row of rows) yield exportColumns.map((column) => row[column]);
  }
  return collect(
    streamXlsx(
      sheetName,
      exportColumns.map((column) => labels[lang][column]),
      cells(),
    ),
  );
}
