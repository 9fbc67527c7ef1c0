import { crc32, createInflateRaw } from 'node:zlib';
import { SheetProblem } from './sheet-problem.ts';

/**
 * Zip archives as far as an .xlsx workbook needs: the central directory (read without inflating
 * anything) and one entry at a time, inflated as a stream. The sizes an archive states are never
 * trusted: inflated bytes are counted as they come, against what the entry declared and against
 * a budget shared by every entry read from the file.
 */

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  flags: number;
  crc: number;
  compressedSize: number;
  /** The inflated size the archive states (checked while inflating). */
  size: number;
  localOffset: number;
}

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_RECORD = 0x06054b50;
/** More entries than any workbook has (Excel writes a dozen or so, a few more per image). */
const MAX_ZIP_ENTRIES = 4_096;
const INFLATE_CHUNK = 64 * 1024;

/**
 * The entries of a zip archive from its central directory. Undefined when the bytes are not a
 * well-formed, unencrypted, non-ZIP64 archive of at most MAX_ZIP_ENTRIES entries with distinct
 * names (part names of a workbook compare without case).
 */
export function zipDirectory(bytes: Uint8Array): ZipEntry[] | undefined {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.length < 22 || view.readUInt32LE(0) !== LOCAL_HEADER) return undefined;
  // The end record is in the last 22 + 65 535 (comment) bytes.
  let end = -1;
  for (let at = view.length - 22; at >= Math.max(0, view.length - 22 - 65_535); at--) {
    if (view.readUInt32LE(at) === END_RECORD) {
      end = at;
      break;
    }
  }
  if (end < 0) return undefined;
  const count = view.readUInt16LE(end + 10);
  if (count > MAX_ZIP_ENTRIES) return undefined;
  let at = view.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  const names = new Set<string>();
  for (let i = 0; i < count; i++) {
    if (at + 46 > view.length || view.readUInt32LE(at) !== CENTRAL_HEADER) return undefined;
    const nameLength = view.readUInt16LE(at + 28);
    const entry: ZipEntry = {
      flags: view.readUInt16LE(at + 8),
      method: view.readUInt16LE(at + 10),
      crc: view.readUInt32LE(at + 16),
      compressedSize: view.readUInt32LE(at + 20),
      size: view.readUInt32LE(at + 24),
      localOffset: view.readUInt32LE(at + 42),
      name: view.toString('utf8', at + 46, at + 46 + nameLength),
    };
    // 0xFFFFFFFF: a ZIP64 size or offset, which a 10 MiB workbook has no reason to use. Bit 0: encrypted.
    if ([entry.compressedSize, entry.size, entry.localOffset].includes(0xffffffff) || entry.flags & 1)
      return undefined;
    const key = entry.name.toLowerCase();
    if (names.has(key)) return undefined;
    names.add(key);
    entries.push(entry);
    at += 46 + nameLength + view.readUInt16LE(at + 30) + view.readUInt16LE(at + 32);
  }
  return entries;
}

/** How many inflated bytes the entries read from one file may still produce. */
export interface InflateBudget {
  remaining: number;
  /** The whole budget, for the message. */
  readonly limit: number;
}

const tooLarge = (budget: InflateBudget) =>
  new SheetProblem('import.unpacked_too_large', { max: Math.round(budget.limit / 1024 / 1024) });

/** Refuses at once a set of entries whose stated sizes already exceed the budget. */
export function assertDeclaredWithin(entries: readonly ZipEntry[], budget: InflateBudget): void {
  if (entries.reduce((sum, entry) => sum + entry.size, 0) > budget.remaining) throw tooLarge(budget);
}

/** Where an entry's compressed bytes are, checked against the file. */
function compressedBytes(bytes: Uint8Array, entry: ZipEntry): Uint8Array {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = entry.localOffset;
  if (at + 30 > view.length || view.readUInt32LE(at) !== LOCAL_HEADER)
    throw new SheetProblem('import.damaged');
  const start = at + 30 + view.readUInt16LE(at + 26) + view.readUInt16LE(at + 28);
  if (start + entry.compressedSize > view.length) throw new SheetProblem('import.damaged');
  return view.subarray(start, start + entry.compressedSize);
}

/**
 * The inflated bytes of one entry, chunk by chunk. Ends with `import.damaged` when the entry
 * inflates to more (or less) than it states or its checksum differs, and with
 * `import.unpacked_too_large` when the budget runs out, as soon as that is known.
 */
export async function* inflateEntry(
  bytes: Uint8Array,
  entry: ZipEntry,
  budget: InflateBudget,
): AsyncGenerator<Buffer> {
  const compressed = compressedBytes(bytes, entry);
  let produced = 0;
  let crc = 0;
  const take = (chunk: Buffer) => {
    produced += chunk.length;
    budget.remaining -= chunk.length;
    if (produced > entry.size) throw new SheetProblem('import.damaged');
    if (budget.remaining < 0) throw tooLarge(budget);
    crc = crc32(chunk, crc);
    return chunk;
  };
  if (entry.method === 0) {
    for (let at = 0; at < compressed.length; at += INFLATE_CHUNK)
      yield take(Buffer.from(compressed.subarray(at, at + INFLATE_CHUNK)));
  } else if (entry.method === 8) {
    const inflater = createInflateRaw({ chunkSize: INFLATE_CHUNK });
    inflater.end(compressed);
    try {
      for await (const chunk of inflater) yield take(chunk as Buffer);
    } catch (error) {
      if (error instanceof SheetProblem) throw error;
      throw new SheetProblem('import.damaged');
    } finally {
      inflater.destroy();
    }
  } else {
    throw new SheetProblem('import.unreadable');
  }
  if (produced !== entry.size || crc !== entry.crc) throw new SheetProblem('import.damaged');
}
