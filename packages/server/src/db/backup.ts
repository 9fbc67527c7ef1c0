import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openPglite } from './database.ts';
import { migrate } from './migrations.ts';

/**
 * Backup and restore of the embedded database (PGlite), which lives in `<data dir>/pglite` and
 * belongs to one process: run these with the server stopped. PostgreSQL is backed up with its
 * own tools (pg_dump / pg_restore, see the README).
 *
 * The master key (`<data dir>/master.key`, unless TESSERA_MASTER_KEY is set) is not part of a
 * dump: keep it apart from the backups, and give the restored installation the same key, or no
 * sealed secret (client secrets, signing keys, OTP seeds) can be read.
 */

/** Writes a compressed dump of the data folder's database to `file`; answers its size in bytes. */
export async function backupPglite(dataDir: string, file: string): Promise<number> {
  const database = await openPglite({ dataDir });
  try {
    const dump = await database.dump?.({ compression: 'gzip' });
    if (!dump) throw new Error('the embedded database gave no dump');
    const bytes = Buffer.from(await dump.arrayBuffer());
    await writeFile(file, bytes, { flag: 'wx', mode: 0o600 });
    return bytes.length;
  } finally {
    await database.close();
  }
}

/**
 * Restores a dump made by `backupPglite` into a data folder that has no database yet (a restore
 * never overwrites one), then applies the migrations this build has, so an older backup opens
 * in a newer version.
 */
export async function restorePglite(file: string, dataDir: string): Promise<void> {
  const existing = await readdir(join(dataDir, 'pglite')).catch(() => []);
  if (existing.length) {
    throw new Error(`${join(dataDir, 'pglite')} already holds a database: restore into an empty data folder`);
  }
  const dump = new Blob([await readFile(file)]);
  const database = await openPglite({ dataDir, loadDataDir: dump });
  try {
    await migrate(database.db);
  } finally {
    await database.close();
  }
}
