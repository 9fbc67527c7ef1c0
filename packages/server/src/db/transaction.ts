import type { Db } from './database.ts';

/**
 * Runs `work` in a transaction: a new one on a database handle, or the caller's own when `db` is
 * already a transaction (then it commits or rolls back with everything else the caller does).
 * Services that take their handle as a dependency use it, so that one built on a transaction
 * (user.service.ts `atomically`) joins it instead of failing.
 */
export function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}
