import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { CHECKPOINT_JOB } from '../app-services.ts';
import { startTestApp } from '../test/harness.ts';
import { openPglite } from './database.ts';

describe('the embedded database (PGlite) on a data folder', () => {
  it('is made apart on a first start, then opened on template1 with the small memory settings', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tessera-data-'));
    try {
      const handle = await openPglite({ dataDir: dir });
      try {
        const { rows } = await sql<{ database: string; sharedBuffers: string; maintenanceWorkMem: string }>`
          select current_database() as database, current_setting('shared_buffers') as "sharedBuffers",
            current_setting('maintenance_work_mem') as "maintenanceWorkMem"`.execute(handle.db);
        // Folders written by PGlite 0.3 have their tables in template1: the database opened stays the same.
        expect(rows).toEqual([{ database: 'template1', sharedBuffers: '16MB', maintenanceWorkMem: '16MB' }]);
      } finally {
        await handle.close();
      }
      expect(existsSync(join(dir, 'pglite', 'PG_VERSION'))).toBe(true);
      expect(await readdir(dir)).toEqual(['pglite']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a folder that holds files but no database, and leaves them as they are', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tessera-data-'));
    try {
      await mkdir(join(dir, 'pglite'));
      await writeFile(join(dir, 'pglite', 'notes.txt'), 'not a database');
      await expect(openPglite({ dataDir: dir })).rejects.toThrow(/holds files but no database/);
      expect(await readdir(join(dir, 'pglite'))).toEqual(['notes.txt']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the embedded database in the running server', () => {
  it('is checkpointed by a periodic job, so that its write-ahead log is recycled', async () => {
    const ctx = await startTestApp({ jobs: { run: false } });
    try {
      if (ctx.database.kind !== 'pglite') return;
      const redo = async () =>
        (
          await sql<{ lsn: string }>`select redo_lsn::text as lsn from pg_control_checkpoint()`.execute(
            ctx.database.db,
          )
        ).rows[0]?.lsn;
      const before = await redo();
      await sql`create temporary table filler as select repeat('x', 200) as v from generate_series(1, 2000)`.execute(
        ctx.database.db,
      );
      await ctx.database.db
        .updateTable('jobs')
        .set({ run_after: new Date(0) })
        .where('kind', '=', CHECKPOINT_JOB)
        .execute();
      await ctx.tessera.jobs.drain();
      expect(await redo()).not.toBe(before);
    } finally {
      await ctx.close();
    }
  });
});
