import type { ColumnType } from 'kysely';

/** Column types the schema files share: timestamps as the database returns them, and JSON written as text. */
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
export type NullableTimestamp = ColumnType<
  Date | null,
  Date | string | null | undefined,
  Date | string | null
>;
export type Json = ColumnType<unknown, string, string>;
