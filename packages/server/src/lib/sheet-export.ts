import { PassThrough } from 'node:stream';

/**
 * Spreadsheet exports, written as they are read: .xlsx through exceljs' streaming writer, or CSV.
 * Every cell is text, and a cell a spreadsheet program would run as a formula (or as DDE) gets a
 * leading quote: exported data (a username, a user agent) is someone's input.
 */
export const neutraliseFormula = (text: string): string => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);

type ExcelJS = typeof import('exceljs');
let exceljs: Promise<ExcelJS> | undefined;
/** exceljs, loaded on the first workbook: it is large (about 30 MB) and most servers rarely need it. */
export const loadExcelJS = () =>
  // A CommonJS package: its exports are the default export of the dynamic import.
  (exceljs ??= import('exceljs').then((loaded) => (loaded as unknown as { default: ExcelJS }).default));

/** A one-sheet workbook: the header row, then `rows`, each committed as it comes. */
export function streamXlsx(
  sheetName: string,
  header: readonly string[],
  rows: AsyncIterable<readonly string[]>,
): AsyncIterable<Uint8Array> {
  const output = new PassThrough();
  (async () => {
    const ExcelJS = await loadExcelJS();
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
      stream: output,
      useStyles: false,
      useSharedStrings: false,
    });
    const sheet = workbook.addWorksheet(sheetName);
    sheet.addRow([...header]).commit();
    for await (const row of rows) sheet.addRow(row.map(neutraliseFormula)).commit();
    sheet.commit();
    await workbook.commit();
  })().catch((error) => output.destroy(error as Error));
  return output;
}

const csvCell = (text: string) => {
  const value = neutraliseFormula(text);
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
};

/** CSV (RFC 4180, CRLF) with a byte order mark, so that spreadsheet programs read UTF-8 (Chinese) right. */
export async function* streamCsv(
  header: readonly string[],
  rows: AsyncIterable<readonly string[]>,
): AsyncIterable<Uint8Array> {
  yield Buffer.from(`\uFEFF${header.map(csvCell).join(',')}\r\n`, 'utf8');
  let batch: string[] = [];
  for await (const row of rows) {
    batch.push(`${row.map(csvCell).join(',')}\r\n`);
    if (batch.length >= 500) {
      yield Buffer.from(batch.join(''), 'utf8');
      batch = [];
    }
  }
  if (batch.length) yield Buffer.from(batch.join(''), 'utf8');
}

/** The whole output of a stream, as one fresh buffer. */
export async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array<ArrayBuffer>> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts) as Uint8Array<ArrayBuffer>;
}
