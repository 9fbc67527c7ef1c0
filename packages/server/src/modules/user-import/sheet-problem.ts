import type { ErrorReason } from '@tessera/contract';
import type { ImportColumn } from './columns.ts';

/** Why a workbook cannot be imported, as found while reading it (in the worker). */
type SheetReason = Extract<
  ErrorReason,
  | 'import.unreadable'
  | 'import.damaged'
  | 'import.unpacked_too_large'
  | 'import.empty'
  | 'import.bad_header'
  | 'import.duplicate_header'
  | 'import.too_many_rows'
  | 'import.too_many_sheet_rows'
  | 'import.row_too_wide'
  | 'import.too_many_cells'
  | 'import.cell_too_long'
  | 'import.too_much_text'
  | 'import.read_timeout'
  | 'import.read_memory'
>;

/** A problem as it crosses from the worker: plain data (row 0: the file as a whole). */
export interface SheetProblemData {
  reason: SheetReason;
  params: Record<string, string | number>;
  row: number;
  column: ImportColumn | null;
}

export class SheetProblem extends Error {
  constructor(
    readonly reason: SheetReason,
    readonly params: Record<string, string | number> = {},
    readonly at: { row: number; column: ImportColumn | null } = { row: 0, column: null },
  ) {
    super(reason);
  }

  toData(): SheetProblemData {
    return { reason: this.reason, params: this.params, row: this.at.row, column: this.at.column };
  }
}
