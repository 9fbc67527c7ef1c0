import ExcelJS from 'exceljs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildZip, hostileWorkbooks, inlineRow, sheetXml, workbookParts } from '../../test/workbooks.ts';
import { SheetProblem } from './sheet-problem.ts';
import { readImportSheet, sheetLimits } from './sheet-reader.ts';
import { readSheetInWorker } from './sheet-worker.ts';
import { type XmlHandler, XmlScanner } from './xml-scanner.ts';
import { inflateEntry, zipDirectory } from './zip.ts';

/** The problem a read ends with (fails the test when it succeeds). */
async function problemOf(read: Promise<unknown>): Promise<SheetProblem> {
  try {
    await read;
  } catch (error) {
    if (error instanceof SheetProblem) return error;
    throw error;
  }
  throw new Error('the file was read');
}

const sheetOf = (rows: string, shared?: string) =>
  buildZip(
    workbookParts(
      { content: `${sheetXml.head}${rows}${sheetXml.tail}` },
      shared === undefined ? undefined : { content: shared },
    ),
  );

describe('reading a workbook', () => {
  it('reads what was typed: shared and inline strings, rich text, formulas as text, whole numbers in full', async () => {
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet('Users');
    sheet.addRow(['Notes', 'User name', 'E-mail', '手机', 'Name']);
    sheet.addRow([
      'x',
      'alice',
      'alice@example.com',
      13_800_138_000,
      { richText: [{ text: 'Al' }, { text: 'ice' }] },
    ]);
    sheet.addRow([]);
    sheet.addRow(['only notes']);
    sheet.addRow(['', 'bob', { formula: 'HYPERLINK("http://evil.example","x")', result: 'x' }, 1.5, true]);
    book.addWorksheet('Second').addRow(['Username']);
    const { rows } = await readImportSheet(Buffer.from(await book.xlsx.writeBuffer()));
    // Cells in import-column order: username, name, nickname, email, phone, departments, password.
    expect(rows).toEqual([
      { row: 2, cells: ['alice', 'Alice', '', 'alice@example.com', '13800138000', '', ''] },
      { row: 5, cells: ['bob', 'TRUE', '', '=HYPERLINK("http://evil.example","x")', '1.5', '', ''] },
    ]);
  });

  it('leaves out phonetic guides and decodes entities and character references', async () => {
    const shared =
      '<sst xmlns="x"><si><r><t>Ta</t></r><r><t xml:space="preserve">ro &amp; co</t></r><rPh sb="0" eb="1"><t>たろう</t></rPh></si></sst>';
    const rows = `${inlineRow(1, ['Username', 'Name'])}<row r="2"><c r="A2" t="inlineStr"><is><t>t&#x61;ro</t></is></c><c r="B2" t="s"><v>0</v></c></row>`;
    expect((await readImportSheet(await sheetOf(rows, shared))).rows).toEqual([
      { row: 2, cells: ['taro', 'Taro & co', '', '', '', '', ''] },
    ]);
  });

  const laughs = `<!DOCTYPE worksheet [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>`;
  it.each([
    [
      'a document type with entities (billion laughs)',
      `<?xml version="1.0"?>${laughs}<worksheet><sheetData>${inlineRow(1, ['&b;'])}</sheetData></worksheet>`,
    ],
    ['an unknown entity', `${sheetXml.head}${inlineRow(1, ['&b;'])}${sheetXml.tail}`],
    [
      'nesting 100 000 deep',
      `${sheetXml.head}${'<x>'.repeat(100_000)}${'</x>'.repeat(100_000)}${sheetXml.tail}`,
    ],
    ['a tag that never ends', `${sheetXml.head}<row r="1" spans="${'1'.repeat(300_000)}`],
    [
      'rows out of order',
      `${sheetXml.head}${inlineRow(1, ['Username'])}${inlineRow(3, ['a'])}${inlineRow(2, ['b'])}${sheetXml.tail}`,
    ],
    ['two root elements', `${sheetXml.head}${sheetXml.tail}<worksheet/>`],
  ])('refuses %s as unreadable', async (_, sheet) => {
    const bytes = await buildZip(workbookParts({ content: sheet }));
    expect((await problemOf(readImportSheet(bytes))).reason).toBe('import.unreadable');
  });
});

describe('what a hostile file cannot do', () => {
  it('a zip that states false sizes: stops as soon as a part inflates past what it stated', async () => {
    const bomb = await hostileWorkbooks.lyingSizes();
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect((await problemOf(readImportSheet(bomb))).reason).toBe('import.damaged');
  });

  it('a part that states a size past the limit is refused before anything is inflated', async () => {
    const problem = await problemOf(readImportSheet(await hostileWorkbooks.hundredsOfMiB()));
    expect(problem).toMatchObject({ reason: 'import.unpacked_too_large', params: { max: 128 } });
  });

  it('inflated bytes are counted as they come, against a budget shared by the parts', async () => {
    const bytes = await buildZip([{ name: 'a.xml', content: { repeat: 'a', times: 5_000_000 } }]);
    const [entry] = zipDirectory(bytes) ?? [];
    if (!entry) throw new Error('no entry');
    const budget = { remaining: 1_000_000, limit: 1_000_000 };
    let inflated = 0;
    const reading = (async () => {
      for await (const chunk of inflateEntry(bytes, entry, budget)) inflated += chunk.length;
    })();
    expect((await problemOf(reading)).reason).toBe('import.unpacked_too_large');
    expect(inflated).toBeLessThanOrEqual(1_000_000);
  });

  it.each([
    [
      'rows, blank ones included',
      () => hostileWorkbooks.blankRows(sheetLimits.sheetRows + 1),
      'import.too_many_sheet_rows',
      { max: sheetLimits.sheetRows },
      0,
    ],
    [
      'cells in a row',
      () => hostileWorkbooks.wideRow(sheetLimits.rowCells + 1),
      'import.row_too_wide',
      { max: sheetLimits.rowCells },
      2,
    ],
    [
      'cells in all',
      () => hostileWorkbooks.manyCells(sheetLimits.cells + 999),
      'import.too_many_cells',
      { max: sheetLimits.cells },
      0,
    ],
  ] as const)('too many %s', async (_, file, reason, params, row) => {
    expect(await problemOf(readImportSheet(await file()))).toMatchObject({ reason, params, at: { row } });
  });

  it('a cell longer than the limit, named by its row and column', async () => {
    const problem = await problemOf(
      readImportSheet(await hostileWorkbooks.longCell(sheetLimits.cellLength + 1)),
    );
    expect(problem).toMatchObject({
      reason: 'import.cell_too_long',
      params: { max: sheetLimits.cellLength },
      at: { row: 3, column: 'name' },
    });
  });

  it('one long shared string used by every cell (billion laughs): stopped at the text limit', async () => {
    const problem = await problemOf(
      readImportSheet(await hostileWorkbooks.sharedStringLaughs(sheetLimits.cellLength)),
    );
    expect(problem).toMatchObject({ reason: 'import.too_much_text', params: { max: 16 } });
  });

  it('a shared strings table past the text limit', async () => {
    const bytes = await buildZip(
      workbookParts(
        { content: `${sheetXml.head}${inlineRow(1, ['Username'])}${sheetXml.tail}` },
        {
          content: {
            head: '<sst xmlns="x">',
            repeat: `<si><t>${'y'.repeat(1000)}</t></si>`,
            times: 17_000,
            tail: '</sst>',
          },
        },
      ),
    );
    expect((await problemOf(readImportSheet(bytes))).reason).toBe('import.too_much_text');
  });

  it.each([
    ['entities in a document type (billion laughs)', () => hostileWorkbooks.entityLaughs()],
    ['nesting 100 000 deep', () => hostileWorkbooks.deepNesting(100_000)],
  ])('%s: unreadable', async (_, file) => {
    expect((await problemOf(readImportSheet(await file()))).reason).toBe('import.unreadable');
  });
});

describe('the worker', () => {
  it('reads off the main thread and hands back plain rows', async () => {
    const bytes = await sheetOf(`${inlineRow(1, ['Username'])}${inlineRow(2, ['worker.one'])}`);
    expect(await readSheetInWorker(bytes)).toEqual({
      rows: [{ row: 2, cells: ['worker.one', '', '', '', '', '', ''] }],
    });
    const problem = await problemOf(readSheetInWorker(await sheetOf(inlineRow(1, ['Name']))));
    expect(problem).toMatchObject({ reason: 'import.bad_header', params: { column: 'Username' } });
  });

  it('is ended at its deadline, and when it needs more memory than allowed', async () => {
    const rows = {
      repeat: `<row>${'<c t="inlineStr"><is><t>n</t></is></c>'.repeat(900)}</row>`,
      times: 2_000,
    };
    const bytes = await buildZip(
      workbookParts({
        content: { head: `${sheetXml.head}${inlineRow(1, ['Username'])}`, ...rows, tail: sheetXml.tail },
      }),
    );
    const late = await problemOf(readSheetInWorker(bytes, { heapMb: 192, deadlineMs: 50 }));
    expect(late).toMatchObject({ reason: 'import.read_timeout', params: { seconds: 0.05 } });
    const shared = await buildZip(
      workbookParts(
        { content: `${sheetXml.head}${inlineRow(1, ['Username'])}${sheetXml.tail}` },
        {
          content: { head: '<sst xmlns="x">', repeat: '<si><t>z</t></si>', times: 1_500_000, tail: '</sst>' },
        },
      ),
    );
    const hungry = await problemOf(readSheetInWorker(shared, { heapMb: 8, deadlineMs: 60_000 }));
    expect(hungry).toMatchObject({ reason: 'import.read_memory', params: { max: 8 } });
  });
});

describe('the XML scanner', () => {
  it('gives the same elements and text however the input is cut', () => {
    const xml =
      '<?xml version="1.0"?><!-- c --><a x="1&amp;2" y=\'>\'><b>t&lt;e&#x4e2d;xt</b><c/><![CDATA[<raw>]]></a>';
    const events = (pieces: string[]) => {
      const seen: string[] = [];
      const handler: XmlHandler = {
        open: (name, attributes) => seen.push(`<${name}${attributes}>`),
        close: (name) => seen.push(`</${name}>`),
        text: (text) => {
          // Text may come in pieces: join neighbours.
          const last = seen.length - 1;
          if (seen[last]?.startsWith('"')) seen[last] = `${seen[last]?.slice(0, -1)}${text}"`;
          else seen.push(`"${text}"`);
        },
      };
      const scanner = new XmlScanner(handler);
      for (const piece of pieces) scanner.write(piece);
      scanner.end();
      return seen;
    };
    const whole = events([xml]);
    expect(whole).toEqual([
      '<a x="1&amp;2" y=\'>\'>',
      '<b>',
      '"t<e中xt"',
      '</b>',
      '<c>',
      '</c>',
      '"<raw>"',
      '</a>',
    ]);
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: xml.length - 1 }), { maxLength: 12 }), (cuts) => {
        const sorted = [0, ...cuts.sort((a, b) => a - b), xml.length];
        const pieces = sorted.slice(1).map((end, i) => xml.slice(sorted[i], end));
        expect(events(pieces)).toEqual(whole);
      }),
    );
  });
});
