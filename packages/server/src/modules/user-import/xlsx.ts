import { importLimits, type Language } from '@tessera/contract';
import ExcelJS from 'exceljs';
import { AppError } from '../../lib/errors.ts';
import { collect, streamXlsx } from '../../lib/sheet-export.ts';

/**
 * The spreadsheet side of user import and export: which columns there are, checking that an
 * upload really is an .xlsx workbook before exceljs opens it, reading its cells as the text
 * that was typed, and writing workbooks (the template, the export).
 */

export const importColumns = [
  'username',
  'name',
  'nickname',
  'email',
  'phone',
  'departments',
  'password',
] as const;
export type ImportColumn = (typeof importColumns)[number];

export const exportColumns = [
  'username',
  'name',
  'nickname',
  'email',
  'phone',
  'departments',
  'status',
  'role',
  'managed',
  'loginCount',
  'lastLoginAt',
  'createdAt',
] as const;
export type ExportColumn = (typeof exportColumns)[number];

type Column = ImportColumn | ExportColumn;

const labels: Record<Language, Record<Column, string>> = {
  en: {
    username: 'Username',
    name: 'Name',
    nickname: 'Nickname',
    email: 'Email',
    phone: 'Phone',
    departments: 'Departments',
    password: 'Password',
    status: 'Status',
    role: 'Role',
    managed: 'Managed by this company',
    loginCount: 'Login count',
    lastLoginAt: 'Last login',
    createdAt: 'Created at',
  },
  zh: {
    username: '用户名',
    name: '姓名',
    nickname: '昵称',
    email: '邮箱',
    phone: '手机号',
    departments: '部门',
    password: '密码',
    status: '状态',
    role: '角色',
    managed: '由本企业管理',
    loginCount: '登录次数',
    lastLoginAt: '最近登录',
    createdAt: '创建时间',
  },
};

export const columnLabel = (lang: Language, column: Column): string => labels[lang][column];

/** Headers are matched without case, spaces, a "*" (required) mark or a parenthesised note. */
const headerKey = (text: string) =>
  text
    .toLowerCase()
    .replace(/[(（].*?[)）]/g, '')
    .replace(/[\s*_\-:：]/g, '');

/** Either language's header, and a few spellings people type, name a column. */
const headerAliases = new Map<string, ImportColumn>();
for (const column of importColumns) {
  for (const text of [column, labels.en[column], labels.zh[column]])
    headerAliases.set(headerKey(text), column);
}
for (const [text, column] of [
  ['user name', 'username'],
  ['login name', 'username'],
  ['账号', 'username'],
  ['登录名', 'username'],
  ['display name', 'name'],
  ['full name', 'name'],
  ['名称', 'name'],
  ['e-mail', 'email'],
  ['mail', 'email'],
  ['电子邮箱', 'email'],
  ['mobile', 'phone'],
  ['phone number', 'phone'],
  ['手机', 'phone'],
  ['电话', 'phone'],
  ['department', 'departments'],
  ['所属部门', 'departments'],
  ['initial password', 'password'],
  ['初始密码', 'password'],
] as const) {
  headerAliases.set(headerKey(text), column);
}

export interface ImportSheet {
  /** Where each import column is (0-based cell index). */
  columns: Partial<Record<ImportColumn, number>>;
  /** Data rows that are not blank, with their row number as a spreadsheet shows it. */
  rows: { row: number; cells: string[] }[];
}

const ZIP_LOCAL_HEADER = 0x04034b50;
const ZIP_CENTRAL_HEADER = 0x02014b50;
const ZIP_END = 0x06054b50;
/** A workbook that inflates beyond this is refused before it is opened (zip bombs). */
const MAX_INFLATED_BYTES = 400 * 1024 * 1024;

/**
 * Lists the entries of a zip archive from its central directory, with their inflated sizes.
 * Returns undefined when the bytes are not a well-formed (non-ZIP64) zip archive.
 */
function zipEntries(bytes: Buffer): { name: string; size: number }[] | undefined {
  if (bytes.length < 22 || bytes.readUInt32LE(0) !== ZIP_LOCAL_HEADER) return undefined;
  // The end record is in the last 22 + 65 535 (comment) bytes.
  let end = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 65_535); at--) {
    if (bytes.readUInt32LE(at) === ZIP_END) {
      end = at;
      break;
    }
  }
  if (end < 0) return undefined;
  const count = bytes.readUInt16LE(end + 10);
  let at = bytes.readUInt32LE(end + 16);
  const entries: { name: string; size: number }[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== ZIP_CENTRAL_HEADER) return undefined;
    const size = bytes.readUInt32LE(at + 24);
    const nameLength = bytes.readUInt16LE(at + 28);
    const extraLength = bytes.readUInt16LE(at + 30);
    const commentLength = bytes.readUInt16LE(at + 32);
    const name = bytes.toString('utf8', at + 46, at + 46 + nameLength);
    // 0xFFFFFFFF: a ZIP64 size, which a 10 MiB workbook has no reason to use.
    if (size === 0xffffffff) return undefined;
    entries.push({ name, size });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** What a browser declares for a file whose type it does not know. */
const GENERIC_TYPES = new Set(['', 'application/octet-stream']);

/**
 * Refuses anything that is not an .xlsx workbook: by its name, its declared type, its bytes (a
 * zip archive holding a workbook part) and its inflated size. exceljs then has to open it.
 */
export function assertXlsxFile(file: { bytes: Buffer; filename: string; declaredType: string }): void {
  if (!/\.xlsx$/i.test(file.filename.trim())) throw new AppError('import.not_xlsx');
  // Browsers on machines without an office suite declare an .xlsx file as a generic binary (or
  // not at all); the bytes below decide then. Any other specific type is refused.
  const declared = file.declaredType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (declared !== importLimits.xlsxType && !GENERIC_TYPES.has(declared))
    throw new AppError('import.not_xlsx');
  if (file.bytes.length > importLimits.fileBytes)
    throw new AppError('upload.too_large', { limit: `${importLimits.fileBytes / 1024 / 1024} MiB` });
  const entries = zipEntries(file.bytes);
  if (!entries) throw new AppError('import.not_xlsx');
  const names = new Set(entries.map((entry) => entry.name));
  if (!names.has('[Content_Types].xml') || !names.has('xl/workbook.xml'))
    throw new AppError('import.not_xlsx');
  const inflated = entries.reduce((sum, entry) => sum + entry.size, 0);
  if (inflated > MAX_INFLATED_BYTES) throw new AppError('import.unreadable');
}

/** What was typed in a cell: a formula's text (never its result), rich text joined, numbers as written. */
export function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value).toString() : String(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (value instanceof Date) return value.toISOString();
  if ('formula' in value && typeof value.formula === 'string') return `=${value.formula}`;
  if ('sharedFormula' in value && typeof value.sharedFormula === 'string') return `=${value.sharedFormula}`;
  if ('richText' in value && Array.isArray(value.richText))
    return value.richText.map((run) => run.text).join('');
  if ('text' in value && 'hyperlink' in value) {
    const text = value.text as unknown;
    if (typeof text === 'string') return text;
    return cellText(text as ExcelJS.CellValue);
  }
  if ('error' in value) return String(value.error);
  return '';
}

/**
 * Opens the workbook and reads its first sheet: the header row names the columns (in either
 * language), every other non-blank row is a user. Throws the localised reason for a file of
 * the wrong shape.
 */
export async function readImportSheet(bytes: Buffer): Promise<ImportSheet> {
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(bytes as unknown as ExcelJS.Buffer);
  } catch {
    throw new AppError('import.unreadable');
  }
  const sheet = workbook.worksheets[0];
  if (!sheet) throw new AppError('import.empty');
  if (sheet.actualRowCount - 1 > importLimits.maxRows)
    throw new AppError('import.too_many_rows', { max: importLimits.maxRows });

  const columns: Partial<Record<ImportColumn, number>> = {};
  const header = sheet.getRow(1);
  for (let index = 1; index <= header.cellCount; index++) {
    const text = cellText(header.getCell(index).value).trim();
    if (!text) continue;
    const column = headerAliases.get(headerKey(text));
    if (!column) continue;
    if (columns[column] !== undefined) throw new AppError('import.duplicate_header', { column: text });
    columns[column] = index - 1;
  }
  if (columns.username === undefined) throw new AppError('import.bad_header', { column: labels.en.username });

  const rows: ImportSheet['rows'] = [];
  sheet.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    if (rowNumber === 1) return;
    const cells: string[] = [];
    let blank = true;
    for (const index of Object.values(columns)) {
      const text = cellText(row.getCell(index + 1).value);
      cells[index] = text;
      if (text.trim()) blank = false;
    }
    if (!blank) rows.push({ row: rowNumber, cells });
  });
  if (rows.length === 0) throw new AppError('import.empty');
  if (rows.length > importLimits.maxRows)
    throw new AppError('import.too_many_rows', { max: importLimits.maxRows });
  return { columns, rows };
}

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
