import { importLimits } from '@tessera/contract';
import { AppError } from '../../lib/errors.ts';
import { zipDirectory } from './zip.ts';

/** What a browser declares for a file whose type it does not know. */
const GENERIC_TYPES = new Set(['', 'application/octet-stream']);

/**
 * Refuses, while the upload is answered, anything that is not an .xlsx workbook: by its name,
 * its declared type, its size and its zip directory (a zip archive holding a workbook part).
 * Nothing is inflated here: the workbook is read by a worker when the task's turn comes.
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
  const entries = zipDirectory(file.bytes);
  if (!entries) throw new AppError('import.not_xlsx');
  const names = new Set(entries.map((entry) => entry.name.toLowerCase()));
  if (!names.has('[content_types].xml') || !names.has('xl/workbook.xml'))
    throw new AppError('import.not_xlsx');
}
