import { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../test/harness.ts';
import type { DatabaseHandle } from './database.ts';
import { keepPrepared, statementName } from './statement-names.ts';

/**
 * Hot statements go by name and stay prepared on each connection (PostgreSQL) or on the
 * embedded database: they answer as unnamed ones do, report errors alike, and survive a schema
 * change that alters what they return (another instance migrated while this one ran).
 */

let database: DatabaseHandle;
beforeAll(async () => {
  database = await openTestDatabase({ migrated: false });
  await database.db.executeQuery(
    CompiledQuery.raw('create table named_probe (id int primary key, label text)'),
  );
});
afterAll(() => database.close());

const run = <R>(text: string, parameters: unknown[] = []) =>
  database.db.executeQuery<R>(CompiledQuery.raw(text, parameters));

describe('statements kept prepared', () => {
  it('answer as unnamed statements do, with their values each time', async () => {
    const insert = 'insert into named_probe (id, label) values ($1, $2) returning id, label';
    keepPrepared(insert);
    expect(statementName(insert)).toMatch(/^tessera_\d+$/);
    for (let id = 1; id <= 7; id++) {
      const { rows, numAffectedRows } = await run(insert, [id, `label ${id}`]);
      expect(rows).toEqual([{ id, label: `label ${id}` }]);
      expect(numAffectedRows).toBe(1n);
    }
    const select = 'select id, label from named_probe where id = any($1::int[]) order by id';
    keepPrepared(select);
    expect((await run(select, [[2, 5]])).rows).toEqual([
      { id: 2, label: 'label 2' },
      { id: 5, label: 'label 5' },
    ]);
    expect((await run(select, [[]])).rows).toEqual([]);
  });

  it('report errors with their code, and the connection goes on', async () => {
    const insert = 'insert into named_probe (id, label) values ($1, $2)';
    keepPrepared(insert);
    await run(insert, [100, 'first']);
    await expect(run(insert, [100, 'again'])).rejects.toMatchObject({ code: '23505' });
    await run(insert, [101, 'next']);
    expect((await run('select count(*)::int as n from named_probe where id >= 100')).rows).toEqual([
      { n: 2 },
    ]);
  });

  it('still run after a column was added to what they return', async () => {
    const everything = 'select * from named_probe where id = $1';
    keepPrepared(everything);
    // Prepared (PostgreSQL runs a statement by name on every connection of the pool in turn).
    for (let i = 0; i < 12; i++) await run(everything, [1]);
    await run('alter table named_probe add column extra text');
    for (let i = 0; i < 12; i++)
      expect((await run(everything, [1])).rows).toEqual([{ id: 1, label: 'label 1', extra: null }]);
  });
});
