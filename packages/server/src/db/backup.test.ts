import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAccountsRepo } from '../modules/account/account.repo.ts';
import { createSignInService } from '../modules/signin/signin.service.ts';
import { createAccount, openTestDatabase } from '../test/harness.ts';
import { backupPglite, restorePglite } from './backup.ts';
import { type DatabaseHandle, openPglite, openPostgres } from './database.ts';
import { migrate } from './migrations.ts';

/**
 * Issue 20, operations: a backup restored into an empty database is an installation people sign
 * in to, for the embedded database (npm run backup / restore) and for PostgreSQL (pg_dump and
 * pg_restore, as the README says).
 */

const run = promisify(execFile);
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tessera-backup-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const signIn = (database: DatabaseHandle, identifier: string, password: string) =>
  createSignInService({ db: database.db, accounts: createAccountsRepo(database.db) }).signInWithPassword({
    identifier,
    password,
    ip: '127.0.0.1',
    userAgent: 'vitest',
    clientId: 'tessera-console-dev',
    companyId: null,
  });

describe('backup and restore', () => {
  it('restores an embedded database backup into an empty data folder, where its people sign in', async () => {
    const source = join(dir, 'source');
    // From the run's migrated dump, as a fresh installation would be after its first start.
    const original = await openPglite({
      dataDir: source,
      loadDataDir: new Blob([await readFile(inject('pgliteDump'))]),
    });
    await createAccount({ database: original }, { username: 'kept', password: 'Kept-password-1' });
    await original.close();

    const file = join(dir, 'tessera.tar.gz');
    const size = await backupPglite(source, file);
    expect((await stat(file)).size).toBe(size);
    await expect(backupPglite(source, file)).rejects.toThrow(/EEXIST/);

    const target = join(dir, 'target');
    await restorePglite(file, target);
    await expect(restorePglite(file, target)).rejects.toThrow(/already holds a database/);
    const restored = await openPglite({ dataDir: target });
    try {
      expect(await signIn(restored, 'kept', 'Kept-password-1')).toMatchObject({ ok: true });
      expect(await signIn(restored, 'kept', 'wrong-password')).toMatchObject({ ok: false });
    } finally {
      await restored.close();
    }
  });

  const serverUrl = process.env.TESSERA_TEST_DATABASE_URL;
  it.skipIf(!serverUrl)(
    'restores a pg_dump of PostgreSQL into an empty database, where its people sign in',
    async () => {
      const bin = readdirSync('/usr/lib/postgresql')
        .map((version) => `/usr/lib/postgresql/${version}/bin`)
        .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
        .at(-1);
      const original = await openTestDatabase();
      const target = `tessera_restore_${Date.now()}`;
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      try {
        await createAccount({ database: original }, { username: 'kept-pg', password: 'Kept-password-1' });
        const { rows } = await sql<{ db: string }>`select current_database() as db`.execute(original.db);
        const url = new URL(serverUrl ?? '');
        url.pathname = `/${rows[0]?.db}`;
        const file = join(dir, 'tessera.pgdump');
        await run(`${bin}/pg_dump`, ['--format=custom', `--file=${file}`, url.toString()]);
        await admin.query(`create database ${target}`);
        url.pathname = `/${target}`;
        await run(`${bin}/pg_restore`, ['--no-owner', `--dbname=${url.toString()}`, file]);
        const restored = await openPostgres(url.toString(), { onConnectionError: () => {} });
        try {
          await migrate(restored.db);
          expect(await signIn(restored, 'kept-pg', 'Kept-password-1')).toMatchObject({ ok: true });
        } finally {
          await restored.close();
        }
      } finally {
        await original.close();
        await admin.query(`drop database if exists ${target} with (force)`);
        await admin.end();
      }
    },
  );
});
