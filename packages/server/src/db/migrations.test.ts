import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureBootstrapAdmin } from '../modules/account/bootstrap.ts';
import { openTestDatabase } from '../test/harness.ts';
import { openPglite } from './database.ts';
import { migrate, migrations } from './migrations.ts';

describe('migrations', () => {
  it('apply once, and a second run (even a concurrent one) changes nothing', async () => {
    const handle = await openTestDatabase({ migrated: false });
    try {
      const [first, second] = await Promise.all([migrate(handle.db), migrate(handle.db)]);
      expect([...first, ...second]).toEqual(migrations.map((m) => m.name));
      expect(await migrate(handle.db)).toEqual([]);
      const applied = await handle.db.selectFrom('schema_migrations').select('id').execute();
      expect(applied).toHaveLength(migrations.length);
    } finally {
      await handle.close();
    }
  });

  it('reopen the embedded database on restart without initialising it again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tessera-data-'));
    const first = await openPglite({ dataDir: dir });
    await migrate(first.db);
    const created = await ensureBootstrapAdmin(first.db, { username: 'admin', password: undefined });
    expect(created).toMatchObject({ created: true, username: 'admin' });
    if (created.created) expect(created.generatedPassword).toMatch(/^[\w-]{16}$/);
    await first.close();

    const second = await openPglite({ dataDir: dir });
    expect(await migrate(second.db)).toEqual([]);
    expect(await ensureBootstrapAdmin(second.db, { username: 'other', password: 'other-password' })).toEqual({
      created: false,
    });
    const admins = await second.db
      .selectFrom('accounts')
      .select('username')
      .where('is_platform_admin', '=', true)
      .execute();
    expect(admins).toEqual([{ username: 'admin' }]);
    await second.close();
  });
});
