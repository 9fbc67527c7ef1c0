import { type RawBuilder, sql } from 'kysely';

/**
 * A person's email and phone count as verified only for the address they proved with a code.
 * Whoever else writes a new address (an administrator in the console, a directory sync or a
 * directory sign-in) passes the update through here: the verified mark of an address that
 * changes is cleared in the same statement, so the person verifies the new one again. The
 * comparison reads the stored value of the row being updated, so no earlier read can be stale;
 * an email differing only in letter case is the same mailbox and keeps its mark.
 */
export function clearingVerification<T extends { email?: string | null; phone?: string | null }>(
  set: T,
): T & {
  email_verified_at?: RawBuilder<Date | null>;
  phone_verified_at?: RawBuilder<Date | null>;
} {
  return {
    ...set,
    ...(set.email !== undefined
      ? {
          email_verified_at: sql<Date | null>`case when lower(email) is not distinct from lower(${set.email}::text) then email_verified_at end`,
        }
      : {}),
    ...(set.phone !== undefined
      ? {
          phone_verified_at: sql<Date | null>`case when phone is not distinct from ${set.phone}::text then phone_verified_at end`,
        }
      : {}),
  };
}
