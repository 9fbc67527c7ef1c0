import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../db/database.ts';
import { purgeExpiredOidcPayloads } from '../modules/oidc/adapter.ts';
import { purgeUnknownFailures } from '../modules/signin/signin-throttle.ts';
import { createOneTimeCodes } from '../modules/verification/one-time-codes.ts';
import { openTestDatabase } from '../test/harness.ts';
import { purgeWhere } from './batched-purge.ts';
import { purgeIdleBudgets } from './rate-windows.ts';

let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await openTestDatabase();
});
afterAll(() => handle.close());

const small = { batch: 4, maxBatches: 100 };
const count = async (table: string) =>
  Number(
    (await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}`.execute(handle.db)).rows[0]!.n,
  );

describe('maintenance purges delete in bounded batches', () => {
  it('removes every expired provider row over many batches and keeps live ones and those without expiry', async () => {
    const { db } = handle;
    await sql`insert into oidc_payloads (model, id, payload, expires_at)
      select 'Grant', 'old-' || n, '{}'::jsonb, now() - interval '1 minute' from generate_series(1, 23) n`.execute(
      db,
    );
    await sql`insert into oidc_payloads (model, id, payload, expires_at)
      select 'Grant', 'live-' || n, '{}'::jsonb, now() + interval '1 hour' from generate_series(1, 3) n`.execute(
      db,
    );
    await sql`insert into oidc_payloads (model, id, payload) values ('Client', 'forever', '{}'::jsonb)`.execute(
      db,
    );

    expect(await purgeExpiredOidcPayloads(db, small)).toBe(23);
    const left = await db.selectFrom('oidc_payloads').select('id').orderBy('id').execute();
    expect(left.map((row) => row.id)).toEqual(['forever', 'live-1', 'live-2', 'live-3']);
  });

  it('stops at the per-run cap and leaves the rest for the next run', async () => {
    const { db } = handle;
    await sql`insert into oidc_payloads (model, id, payload, expires_at)
      select 'AccessToken', 'capped-' || n, '{}'::jsonb, now() - interval '1 minute' from generate_series(1, 10) n`.execute(
      db,
    );
    expect(await purgeExpiredOidcPayloads(db, { batch: 4, maxBatches: 2 })).toBe(8);
    expect(await purgeExpiredOidcPayloads(db, { batch: 4, maxBatches: 2 })).toBe(2);
    expect(await purgeExpiredOidcPayloads(db, { batch: 4, maxBatches: 2 })).toBe(0);
    expect(await count('oidc_payloads')).toBe(4);
  });

  it('does nothing once the job is stopping', async () => {
    const { db } = handle;
    await sql`insert into oidc_payloads (model, id, payload, expires_at)
      values ('AccessToken', 'stopping', '{}'::jsonb, now() - interval '1 minute')`.execute(db);
    expect(await purgeExpiredOidcPayloads(db, { ...small, signal: AbortSignal.abort() })).toBe(0);
    expect(await purgeExpiredOidcPayloads(db, small)).toBe(1);
  });

  it('deletes by any condition, over several batches, what that condition selects only', async () => {
    const { db } = handle;
    await sql`insert into oidc_payloads (model, id, payload, uid, expires_at)
      select 'Interaction', 'cond-' || n, '{}'::jsonb, case when n % 2 = 0 then 'even' end, now() + interval '1 hour'
        from generate_series(1, 12) n`.execute(db);
    const even = (limits = small) =>
      purgeWhere(db, 'oidc_payloads', (rows) => rows.where((eb) => eb.or([eb('uid', '=', 'even')])), limits);
    expect(await even()).toBe(6);
    expect(
      await db.selectFrom('oidc_payloads').select('id').where('model', '=', 'Interaction').execute(),
    ).toHaveLength(6);
    await db.deleteFrom('oidc_payloads').where('model', '=', 'Interaction').execute();
  });

  it('purges idle rate windows, unknown-identifier failures and ended one-time codes the same way', async () => {
    const { db } = handle;
    await sql`insert into rate_windows (key, last_minute, counts, updated_at)
      select 'idle-' || n, 0, '{1}', now() - interval '2 days' from generate_series(1, 9) n`.execute(db);
    await sql`insert into rate_windows (key, last_minute, counts) values ('busy', 0, '{1}')`.execute(db);
    await sql`insert into sign_in_unknown (identifier, last_failed_at)
      select 'gone-' || n, now() - interval '2 days' from generate_series(1, 9) n`.execute(db);
    await sql`insert into sign_in_unknown (identifier) values ('recent')`.execute(db);
    await sql`insert into one_time_codes (id, purpose, channel, address, code_hash, expires_at)
      select 'ended-' || n, 'sign_in', 'email', 'a@example.com', 'x', now() - interval '2 hours'
        from generate_series(1, 9) n`.execute(db);
    await sql`insert into one_time_codes (id, purpose, channel, address, code_hash, expires_at)
      values ('paced', 'sign_in', 'email', 'a@example.com', 'x', now() - interval '10 minutes')`.execute(db);

    expect(await purgeIdleBudgets(db, small)).toBe(9);
    expect(await purgeUnknownFailures(db, small)).toBe(9);
    const codes = createOneTimeCodes({ db, mailer: {} as never, sms: {} as never });
    expect(await codes.purge(small)).toBe(9);
    expect(await db.selectFrom('rate_windows').select('key').execute()).toEqual([{ key: 'busy' }]);
    expect(await db.selectFrom('sign_in_unknown').select('identifier').execute()).toEqual([
      { identifier: 'recent' },
    ]);
    // Pacing looks back an hour: a code that ended 10 minutes ago stays.
    expect(await db.selectFrom('one_time_codes').select('id').execute()).toEqual([{ id: 'paced' }]);
  });
});
