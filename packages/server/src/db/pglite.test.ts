import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
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
