import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { openPostgres } from './database.ts';

const serverUrl = process.env.TESSERA_TEST_DATABASE_URL;

// Runs in the PostgreSQL pass of the tests (npm run test:pg); the embedded database has no connections.
describe.runIf(serverUrl)('PostgreSQL connections', () => {
  it('survive the server ending an idle connection: reported, then replaced on the next query', async () => {
    const name = `tessera_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const url = new URL(serverUrl as string);
    url.pathname = `/${name}`;
    const lost: Error[] = [];
    const handle = await openPostgres(url.toString(), { onConnectionError: (error) => lost.push(error) });
    try {
      await sql`select 1`.execute(handle.db);
      // What a PostgreSQL restart does to the pool's idle connection.
      await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
        [name],
      );
      await vi.waitFor(() => expect(lost.length).toBeGreaterThan(0));
      const again = await sql<{ one: number }>`select 1 as one`.execute(handle.db);
      expect(again.rows).toEqual([{ one: 1 }]);
    } finally {
      await handle.close();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });
});
