import { importLimits } from '@tessera/contract/constants';
import { type ImportColumn, importColumnOf, importColumns, labels } from './columns.ts';
import { SheetProblem } from './sheet-problem.ts';
import { attribute, type XmlHandler, XmlScanner } from './xml-scanner.ts';
import {
  assertDeclaredWithin,
  type InflateBudget,
  inflateEntry,
  type ZipEntry,
  zipDirectory,
} from './zip.ts';

/**
 * Reads the first sheet of an uploaded .xlsx workbook into the rows of a user import: the
 * header row (row 1) names the columns, in either language; every later row that is not blank
 * is a user. It runs in a worker (sheet.worker.ts) and reads only the parts it needs, as
 * streams, with a cap on everything a hostile file could inflate.
 */

export const sheetLimits = {
  /** Inflated bytes of the parts read (workbook, relationships, shared strings, the sheet). */
  inflatedBytes: 128 * 1024 * 1024,
  /** Row elements of the sheet, blank ones included. */
  sheetRows: 2 * importLimits.maxRows,
  /** Cells in one row. */
  rowCells: 1_000,
  /** Cells of the sheet in all. */
  cells: 2_000_000,
  /** Characters of one imported or header cell. */
  cellLength: 2_000,
  /** Characters of one shared string (Excel's own limit for a cell). */
  sharedStringLength: 32_767,
  /** Characters of all shared strings, and of all imported cells. */
  textChars: 16 * 1024 * 1024,
  /** Non-blank data rows (users). */
  rows: importLimits.maxRows,
};
type SheetLimits = typeof sheetLimits;

export interface ImportSheet {
  /** Data rows that are not blank: the row number a spreadsheet shows, the cells in importColumns order. */
  rows: { row: number; cells: string[] }[];
}

/** The highest row and column a worksheet can have. */
const MAX_ROW_NUMBER = 1_048_576;
const MAX_COLUMN_NUMBER = 16_384;

const unreadable = () => new SheetProblem('import.unreadable');

/** Streams one part of the archive through a handler. */
async function scanPart(bytes: Uint8Array, entry: ZipEntry, budget: InflateBudget, handler: XmlHandler) {
  const scanner = new XmlScanner(handler);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of inflateEntry(bytes, entry, budget))
      scanner.write(decoder.decode(chunk, { stream: true }));
    scanner.write(decoder.decode());
  } catch (error) {
    // The decoder's TypeError: not UTF-8.
    throw error instanceof SheetProblem ? error : unreadable();
  }
  scanner.end();
}

/** The first sheet of xl/workbook.xml, by relationship id. */
function firstSheetHandler() {
  const found: { id?: string } = {};
  let inSheets = false;
  const handler: XmlHandler = {
    open(name, attributes) {
      if (name === 'sheets') inSheets = true;
      else if (inSheets && name === 'sheet' && found.id === undefined)
        found.id = attribute(attributes, '*:id');
    },
    close(name) {
      if (name === 'sheets') inSheets = false;
    },
    text() {},
  };
  return { handler, found };
}

/** Relationships of the workbook: id → target part name, and the shared strings part. */
function relationshipsHandler() {
  const targets = new Map<string, string>();
  const found: { sharedStrings?: string } = {};
  const handler: XmlHandler = {
    open(name, attributes) {
      if (name !== 'Relationship' || attribute(attributes, 'TargetMode') === 'External') return;
      const id = attribute(attributes, 'Id');
      const target = attribute(attributes, 'Target');
      if (!id || !target) return;
      const part = partName(target);
      targets.set(id, part);
      if (attribute(attributes, 'Type')?.endsWith('/sharedStrings')) found.sharedStrings = part;
    },
    close() {},
    text() {},
  };
  return { handler, targets, found };
}

/** A relationship target of xl/workbook.xml as a part name ("worksheets/sheet1.xml" → "xl/worksheets/sheet1.xml"). */
function partName(target: string): string {
  const segments: string[] = target.startsWith('/') ? [] : ['xl'];
  for (const segment of target.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return segments.join('/');
}

/** The shared strings table: rich-text runs joined, phonetic guides left out. */
function sharedStringsHandler(limits: SheetLimits) {
  const strings: string[] = [];
  let inItem = false;
  let inText = false;
  let phonetic = 0;
  let current = '';
  let total = 0;
  const handler: XmlHandler = {
    open(name) {
      if (name === 'si') {
        inItem = true;
        current = '';
      } else if (inItem && name === 'rPh') phonetic++;
      else if (inItem && name === 't' && !phonetic) inText = true;
    },
    close(name) {
      if (name === 't') inText = false;
      else if (name === 'rPh') phonetic--;
      else if (name === 'si') {
        inItem = false;
        if (strings.length >= limits.cells)
          throw new SheetProblem('import.too_much_text', { max: limits.textChars / 1024 / 1024 });
        strings.push(current);
      }
    },
    text(text) {
      if (!inText) return;
      if (current.length + text.length > limits.sharedStringLength)
        throw new SheetProblem('import.cell_too_long', { max: limits.sharedStringLength });
      total += text.length;
      if (total > limits.textChars)
        throw new SheetProblem('import.too_much_text', { max: limits.textChars / 1024 / 1024 });
      current += text;
    },
  };
  return { handler, strings };
}

/** "AB12" → 28; undefined when it is not a cell reference. */
function columnNumber(reference: string): number | undefined {
  const letters = /^([A-Z]{1,3})[0-9]+$/.exec(reference)?.[1];
  if (!letters) return undefined;
  let number = 0;
  for (let i = 0; i < letters.length; i++) number = number * 26 + (letters.charCodeAt(i) - 64);
  return number;
}

/** A number cell as it was typed: whole numbers in full (no exponent), others as JavaScript writes them. */
function numberText(raw: string): string {
  const value = Number(raw);
  if (!raw.trim() || !Number.isFinite(value)) return raw;
  return Number.isInteger(value) ? BigInt(value).toString() : String(value);
}

/** The cell being read: its column, type and the text of its value, formula or inline string. */
interface Cell {
  column: number;
  type: string;
  /** Whether its text is kept (header row, or an import column). */
  kept: boolean;
  /** The child whose text is being read. */
  into: 'value' | 'formula' | 'inline' | null;
  value: string;
  formula: string | undefined;
  inline: string;
}

/** What was typed in a cell: a formula's text (never its result), a shared or inline string, a number as written. */
function cellText(c: Cell, shared: readonly string[]): string {
  if (c.formula !== undefined) return `=${c.formula}`;
  switch (c.type) {
    case 's': {
      const found = /^\s*\d+\s*$/.test(c.value) ? shared[Number(c.value)] : undefined;
      if (found === undefined) throw unreadable();
      return found;
    }
    case 'inlineStr':
      return c.inline;
    case 'b':
      return c.value.trim() === '1' ? 'TRUE' : 'FALSE';
    case 'n':
      return numberText(c.value);
    default:
      // str (a formula's text result), e (an error such as #N/A), d (an ISO date).
      return c.value;
  }
}

/**
 * The rows of the sheet: counts rows and cells as they come, keeps the header and the cells of
 * the import columns only, and ends at the first limit passed.
 */
function sheetRowsHandler(limits: SheetLimits, shared: readonly string[]) {
  const rows: ImportSheet['rows'] = [];
  let inData = false;
  let rowElements = 0;
  let cellCount = 0;
  let keptChars = 0;
  let rowNumber = 0;
  let rowCells = 0;
  let lastColumn = 0;
  let headerCells: Map<number, string> | undefined;
  let columns: Map<number, number> | undefined;
  let current: string[] = [];
  let blank = true;
  let cell: Cell | undefined;
  let inInline = false;
  let phonetic = 0;

  const at = (column: number) => ({
    row: rowNumber,
    column: rowNumber === 1 ? null : (importColumns[columns?.get(column) ?? -1] ?? null),
  });
  const tooLong = (column: number, max: number) =>
    new SheetProblem('import.cell_too_long', { max }, at(column));

  const startRow = (attributes: string) => {
    if (++rowElements > limits.sheetRows)
      throw new SheetProblem('import.too_many_sheet_rows', { max: limits.sheetRows });
    const r = attribute(attributes, 'r');
    const number = r === undefined ? rowNumber + 1 : /^\d{1,7}$/.test(r) ? Number(r) : 0;
    if (number <= rowNumber || number > MAX_ROW_NUMBER) throw unreadable();
    rowNumber = number;
    rowCells = 0;
    lastColumn = 0;
    if (rowNumber === 1) headerCells = new Map();
    else {
      // No row 1: no header.
      columns ??= headerColumns(new Map());
      current = importColumns.map(() => '');
      blank = true;
    }
  };

  const startCell = (attributes: string) => {
    if (++cellCount > limits.cells) throw new SheetProblem('import.too_many_cells', { max: limits.cells });
    if (++rowCells > limits.rowCells)
      throw new SheetProblem(
        'import.row_too_wide',
        { max: limits.rowCells },
        { row: rowNumber, column: null },
      );
    const r = attribute(attributes, 'r');
    const column = r === undefined ? lastColumn + 1 : columnNumber(r);
    if (column === undefined || column <= lastColumn || column > MAX_COLUMN_NUMBER) throw unreadable();
    lastColumn = column;
    const kept = rowNumber === 1 || columns?.has(column) === true;
    cell = {
      column,
      type: attribute(attributes, 't') ?? 'n',
      kept,
      into: null,
      value: '',
      formula: undefined,
      inline: '',
    };
  };

  const endCell = (c: Cell) => {
    if (!c.kept) return;
    const value = cellText(c, shared);
    if (value.length > limits.cellLength) throw tooLong(c.column, limits.cellLength);
    if (rowNumber === 1) {
      headerCells?.set(c.column, value);
      return;
    }
    keptChars += value.length;
    if (keptChars > limits.textChars)
      throw new SheetProblem('import.too_much_text', { max: limits.textChars / 1024 / 1024 });
    current[columns?.get(c.column) ?? -1] = value;
    if (value.trim()) blank = false;
  };

  const endRow = () => {
    if (rowNumber === 1) {
      columns = headerColumns(headerCells ?? new Map());
      headerCells = undefined;
    } else if (!blank) {
      rows.push({ row: rowNumber, cells: current });
      if (rows.length > limits.rows) throw new SheetProblem('import.too_many_rows', { max: limits.rows });
    }
  };

  const handler: XmlHandler = {
    open(name, attributes) {
      if (name === 'sheetData') inData = true;
      else if (!inData) return;
      else if (name === 'row') startRow(attributes);
      else if (name === 'c') startCell(attributes);
      else if (!cell?.kept) return;
      else if (name === 'v') cell.into = 'value';
      else if (name === 'f') {
        cell.into = 'formula';
        cell.formula = '';
      } else if (name === 'is') inInline = true;
      else if (name === 'rPh') phonetic++;
      else if (name === 't' && inInline && !phonetic) cell.into = 'inline';
    },
    close(name) {
      if (!inData) return;
      if (name === 'sheetData') inData = false;
      else if (name === 'row') endRow();
      else if (name === 'c' && cell) {
        endCell(cell);
        cell = undefined;
      } else if (name === 'is') inInline = false;
      else if (name === 'rPh') phonetic--;
      else if (cell && (name === 'v' || name === 'f' || name === 't')) cell.into = null;
    },
    text(piece) {
      if (!cell?.into) return;
      const sofar = cell.into === 'formula' ? (cell.formula ?? '') : cell[cell.into];
      // A shared string's index is short; anything else is the cell's own text.
      if (sofar.length + piece.length > limits.cellLength) throw tooLong(cell.column, limits.cellLength);
      if (cell.into === 'formula') cell.formula = sofar + piece;
      else cell[cell.into] = sofar + piece;
    },
  };

  const finish = (): ImportSheet => {
    columns ??= headerColumns(headerCells ?? new Map());
    if (!rows.length) throw new SheetProblem('import.empty');
    return { rows };
  };
  return { handler, finish };
}

/**
 * Reads the workbook. Throws a SheetProblem for a file that is not a readable workbook, is
 * damaged, inflates past the limits, or has no header or no users.
 */
export async function readImportSheet(
  bytes: Uint8Array,
  limits: SheetLimits = sheetLimits,
): Promise<ImportSheet> {
  const entries = zipDirectory(bytes);
  if (!entries) throw unreadable();
  const byName = new Map(entries.map((entry) => [entry.name.toLowerCase(), entry]));
  const entry = (name: string) => byName.get(name.toLowerCase());
  const budget: InflateBudget = { remaining: limits.inflatedBytes, limit: limits.inflatedBytes };

  const workbookPart = entry('xl/workbook.xml');
  const relationshipsPart = entry('xl/_rels/workbook.xml.rels');
  if (!workbookPart || !relationshipsPart) throw unreadable();
  assertDeclaredWithin([workbookPart, relationshipsPart], budget);
  const workbook = firstSheetHandler();
  await scanPart(bytes, workbookPart, budget, workbook.handler);
  if (workbook.found.id === undefined) throw new SheetProblem('import.empty');
  const relationships = relationshipsHandler();
  await scanPart(bytes, relationshipsPart, budget, relationships.handler);
  const sheetName = relationships.targets.get(workbook.found.id);
  const sheetPart = sheetName === undefined ? undefined : entry(sheetName);
  if (!sheetPart) throw unreadable();
  const sharedPart = relationships.found.sharedStrings ? entry(relationships.found.sharedStrings) : undefined;
  // A file that states its size honestly is refused before anything is inflated.
  assertDeclaredWithin(sharedPart ? [sharedPart, sheetPart] : [sheetPart], budget);

  const shared = sharedStringsHandler(limits);
  if (sharedPart) await scanPart(bytes, sharedPart, budget, shared.handler);
  const sheet = sheetRowsHandler(limits, shared.strings);
  await scanPart(bytes, sheetPart, budget, sheet.handler);
  return sheet.finish();
}

/** Which column (1-based) holds which import column, from the header cells. */
function headerColumns(cells: ReadonlyMap<number, string>): Map<number, number> {
  const byColumn = new Map<number, number>();
  const seen = new Set<ImportColumn>();
  for (const [column, text] of [...cells].sort((a, b) => a[0] - b[0])) {
    const trimmed = text.trim();
    const named = trimmed ? importColumnOf(trimmed) : undefined;
    if (!named) continue;
    if (seen.has(named)) throw new SheetProblem('import.duplicate_header', { column: trimmed });
    seen.add(named);
    byColumn.set(column, importColumns.indexOf(named));
  }
  if (!seen.has('username')) throw new SheetProblem('import.bad_header', { column: labels.en.username });
  return byColumn;
}
