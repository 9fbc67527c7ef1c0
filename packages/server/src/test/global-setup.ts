import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openPglite } from '../db/database.ts';
import { migrate } from '../db/migrations.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteDump: string;
  }
}

/** Migrates one embedded database per run and dumps it; every test file starts from the dump. */
export default async function setup(project: TestProject) {
  const dir = await mkdtemp(join(tmpdir(), 'tessera-test-'));
  const handle = await openPglite({});
  await migrate(handle.db);
  const dump = await handle.dump!();
  await handle.close();
  const file = join(dir, 'migrated.tar');
  await writeFile(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('pgliteDump', file);
  return async () => {
    await rm(dir, { recursive: true, force: true });
  };
}
