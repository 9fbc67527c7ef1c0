import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../../db/database.ts';

/**
 * Where an uploaded workbook waits until its import runs. On PostgreSQL it is kept in the
 * database, so that any instance can run the task. The embedded database is one process only,
 * and a large value there costs its (main) thread about a second per 10 MiB each way, so there
 * the file waits in a folder of the process's own; a restart then ends the waiting tasks as
 * interrupted.
 */
export interface ImportFileStore {
  /** Keeps the file and records its task with `record` (run in a transaction): both, or neither. */
  save(taskId: string, content: Uint8Array, record: (trx: Db) => Promise<void>): Promise<void>;
  /** The file, or undefined when it is gone (kept by a process that stopped). */
  read(taskId: string): Promise<Uint8Array | undefined>;
  /** The task has ended. */
  drop(taskId: string): Promise<void>;
  close(): Promise<void>;
}

export function databaseFileStore(db: Db): ImportFileStore {
  return {
    save: (taskId, content, record) =>
      db.transaction().execute(async (trx) => {
        await record(trx);
        await trx.insertInto('import_task_files').values({ task_id: taskId, content }).execute();
      }),
    read: async (taskId) =>
      (
        await db
          .selectFrom('import_task_files')
          .select('content')
          .where('task_id', '=', taskId)
          .executeTakeFirst()
      )?.content,
    drop: async (taskId) => {
      await db.deleteFrom('import_task_files').where('task_id', '=', taskId).execute();
    },
    close: async () => {},
  };
}

export async function folderFileStore(db: Db): Promise<ImportFileStore> {
  const folder = await mkdtemp(join(tmpdir(), 'tessera-import-'));
  // Task ids are UUIDs: safe as file names.
  const path = (taskId: string) => join(folder, `${taskId}.xlsx`);
  return {
    async save(taskId, content, record) {
      await writeFile(path(taskId), content, { mode: 0o600 });
      try {
        await db.transaction().execute(record);
      } catch (error) {
        await rm(path(taskId), { force: true });
        throw error;
      }
    },
    read: (taskId) => readFile(path(taskId)).catch(() => undefined),
    drop: (taskId) => rm(path(taskId), { force: true }),
    close: () => rm(folder, { recursive: true, force: true }),
  };
}
