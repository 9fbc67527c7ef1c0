import { randomBytes } from 'node:crypto';
import { crc32, createDeflateRaw } from 'node:zlib';

/**
 * Workbooks written by hand, part by part, for the tests of the import's reader: honest ones,
 * and the hostile kinds (zips that state false sizes, parts that inflate to hundreds of MiB, rows
 * and columns by the hundred thousand). Large parts are generated and deflated as streams, so a
 * test never holds what the reader is meant to refuse.
 */

/** A part's content: text, or one chunk repeated many times between a head and a tail. */
type PartContent = string | { head?: string; repeat: string; times: number; tail?: string };

interface ZipPart {
  name: string;
  content: PartContent | Buffer;
  /** Stored as is (no compression). */
  stored?: boolean;
  /** The inflated size the archive states, when it should lie. */
  declaredSize?: number;
}

function* chunksOf(content: PartContent | Buffer): Generator<Buffer> {
  if (Buffer.isBuffer(content) || typeof content === 'string') {
    yield Buffer.from(content);
    return;
  }
  if (content.head) yield Buffer.from(content.head);
  // Repeat in blocks of about 1 MiB.
  const per = Math.max(1, Math.floor((1024 * 1024) / Buffer.byteLength(content.repeat)));
  const block = Buffer.from(content.repeat.repeat(per));
  let left = content.times;
  for (; left >= per; left -= per) yield block;
  if (left > 0) yield Buffer.from(content.repeat.repeat(left));
  if (content.tail) yield Buffer.from(content.tail);
}

async function pack(part: ZipPart) {
  let size = 0;
  let crc = 0;
  if (part.stored) {
    const data = Buffer.concat([...chunksOf(part.content)]);
    return { data, size: data.length, crc: crc32(data) };
  }
  const deflater = createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  deflater.on('data', (chunk: Buffer) => out.push(chunk));
  const done = new Promise((resolve, reject) => deflater.on('end', resolve).on('error', reject));
  for (const chunk of chunksOf(part.content)) {
    size += chunk.length;
    crc = crc32(chunk, crc);
    if (!deflater.write(chunk)) await new Promise((resolve) => deflater.once('drain', resolve));
  }
  deflater.end();
  await done;
  return { data: Buffer.concat(out), size, crc };
}

/** A zip archive of the parts, deflated unless stored, stating each part's real size unless told to lie. */
export async function buildZip(parts: ZipPart[]): Promise<Buffer> {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const { data, size, crc } = await pack(part);
    const stated = part.declaredSize ?? size;
    const method = part.stored ? 0 : 8;
    const name = Buffer.from(part.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(stated, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(stated, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += 30 + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** The head and tail of a worksheet around its rows. */
export const sheetXml = {
  head: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="${MAIN}" xmlns:r="${RELS}"><sheetData>`,
  tail: '</sheetData></worksheet>',
};

/** A row of inline-string cells from column A. */
export const inlineRow = (row: number, cells: string[]) =>
  `<row r="${row}">${cells
    .map((text, i) => `<c r="${String.fromCharCode(65 + i)}${row}" t="inlineStr"><is><t>${text}</t></is></c>`)
    .join('')}</row>`;

/**
 * The parts of a one-sheet workbook: `sheet` is the worksheet part (give `sheetXml.head` and
 * `.tail` around generated rows), `sharedStrings` the shared strings part if any.
 */
export function workbookParts(
  sheet: Omit<ZipPart, 'name'>,
  sharedStrings?: Omit<ZipPart, 'name'>,
): ZipPart[] {
  const sharedRelationship = sharedStrings
    ? `<Relationship Id="rId2" Type="${RELS}/sharedStrings" Target="sharedStrings.xml"/>`
    : '';
  return [
    {
      name: '[Content_Types].xml',
      content:
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>',
    },
    {
      name: '_rels/.rels',
      content: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${RELS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    },
    {
      name: 'xl/workbook.xml',
      content: `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${MAIN}" xmlns:r="${RELS}"><sheets><sheet name="Users" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      content: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${RELS}/worksheet" Target="worksheets/sheet1.xml"/>${sharedRelationship}</Relationships>`,
    },
    { name: 'xl/worksheets/sheet1.xml', ...sheet },
    ...(sharedStrings ? [{ name: 'xl/sharedStrings.xml', ...sharedStrings }] : []),
  ];
}

const HEADER = ['Username', 'Name', 'Nickname', 'Email', 'Phone', 'Departments', 'Password'];
const MIB = 1024 * 1024;

/** A worksheet of a header row (Username only, or the whole template) and generated rows. */
const generatedSheet = (
  rows: { head?: string; repeat: string; times: number; tail?: string },
  header = ['Username'],
) =>
  workbookParts({
    content: {
      head: `${sheetXml.head}${inlineRow(1, header)}${rows.head ?? ''}`,
      repeat: rows.repeat,
      times: rows.times,
      tail: `${rows.tail ?? ''}${sheetXml.tail}`,
    },
  });

/** 300 MiB of blank space inside the sheet data: a valid worksheet, once inflated. */
const blankSpace = { repeat: ' '.repeat(1024), times: 300 * 1024 };

/** The kinds of workbook an attacker uploads, each small as a file. */
export const hostileWorkbooks = {
  /** A sheet that inflates to 300 MiB while the archive states 2 000 bytes. */
  lyingSizes: () =>
    buildZip(
      workbookParts({
        content: { head: sheetXml.head, ...blankSpace, tail: sheetXml.tail },
        declaredSize: 2_000,
      }),
    ),
  /** A few MiB (an image that is never read) whose sheet states, honestly, that it inflates to 300 MiB. */
  hundredsOfMiB: async () =>
    buildZip([
      ...workbookParts({ content: { head: sheetXml.head, ...blankSpace, tail: sheetXml.tail } }),
      { name: 'xl/media/image1.png', content: randomBytes(3 * MIB), stored: true },
    ]),
  /** Empty row elements, one after the other. */
  blankRows: (count: number) => buildZip(generatedSheet({ repeat: '<row/>', times: count })),
  /** One row of empty cells. */
  wideRow: (cells: number) =>
    buildZip(generatedSheet({ head: '<row r="2">', repeat: '<c/>', times: cells, tail: '</row>' })),
  /** Rows of 999 empty cells each, `cells` in all. */
  manyCells: (cells: number) =>
    buildZip(generatedSheet({ repeat: `<row>${'<c/>'.repeat(999)}</row>`, times: Math.ceil(cells / 999) })),
  /** A name cell of `length` characters in row 3. */
  longCell: (length: number) =>
    buildZip(
      workbookParts({
        content: `${sheetXml.head}${inlineRow(1, ['Username', 'Name'])}${inlineRow(2, ['ok', 'fine'])}${inlineRow(3, ['ok2', 'n'.repeat(length)])}${sheetXml.tail}`,
      }),
    ),
  /** One shared string of `length` characters used by every cell of 49 000 full rows (billion laughs). */
  sharedStringLaughs: (length: number) => {
    const cells = HEADER.map((_, i) => `<c r="${String.fromCharCode(65 + i)}9" t="s"><v>0</v></c>`).join('');
    return buildZip(
      workbookParts(
        {
          content: {
            head: `${sheetXml.head}${inlineRow(1, HEADER)}`,
            repeat: `<row>${cells}</row>`,
            times: 49_000,
            tail: sheetXml.tail,
          },
        },
        { content: `<sst xmlns="x"><si><t>${'x'.repeat(length)}</t></si></sst>` },
      ),
    );
  },
  /** Entities defined in a document type, each ten times the one before (the classic billion laughs). */
  entityLaughs: () => {
    const entities = Array.from({ length: 9 }, (_, i) =>
      i === 0 ? '<!ENTITY e0 "lol">' : `<!ENTITY e${i} "${`&e${i - 1};`.repeat(10)}">`,
    ).join('');
    return buildZip(
      workbookParts({
        content: `<?xml version="1.0"?><!DOCTYPE worksheet [${entities}]><worksheet><sheetData>${inlineRow(1, ['Username'])}${inlineRow(2, ['&e8;'])}</sheetData></worksheet>`,
      }),
    );
  },
  /** Elements nested `depth` deep inside the sheet data. */
  deepNesting: (depth: number) =>
    buildZip(generatedSheet({ repeat: '<x>', times: depth, tail: '</x>'.repeat(depth) })),
};
