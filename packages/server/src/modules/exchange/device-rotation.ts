import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { Jobs } from '../jobs/jobs.ts';
import { issueDevicePassword } from './device-passwords.ts';

/** The job that rotates device passwords (spec §5: every 7 days by default, at most 90). */
export const ROTATION_JOB = 'exchange.rotate-device-passwords';
/** Devices rotated per batch; a run goes on with the next batch while one comes back full. */
const BATCH = 100;
/** A registration nobody approved is forgotten after this many days (it holds a place of the person's limit). */
export const UNAPPROVED_DAYS = 30;

/**
 * Gives every active device whose password is older than its company's rotation period a new
 * one, which its person sees once in the user centre; the old password stops at once. A
 * device changed meanwhile (a new password issued by its person) is left alone. Registrations
 * left unapproved for 30 days are removed. Answers how many passwords were rotated.
 */
export async function rotateDuePasswords(db: Db, sealer: Sealer, batch = BATCH): Promise<number> {
  await db
    .deleteFrom('exchange_devices')
    .where('activation', '=', 'to_be_activated')
    .where('registered_at', '<', sql<Date>`now() - make_interval(days => ${UNAPPROVED_DAYS})`)
    .execute();
  const due = await db
    .selectFrom('exchange_devices as d')
    .innerJoin('exchange_settings as s', 's.company_id', 'd.company_id')
    .select(['d.id', 'd.password_set_at', 's.device_password_digits'])
    .where('d.activation', '=', 'active')
    .where('d.password_set_at', '<', sql<Date>`now() - make_interval(days => s.rotation_days)`)
    .orderBy('d.password_set_at')
    .limit(batch)
    .execute();
  let rotated = 0;
  for (const device of due) {
    const issued = await issueDevicePassword(sealer, device.device_password_digits);
    const result = await db
      .updateTable('exchange_devices')
      .set(issued)
      .where('id', '=', device.id)
      .where('password_set_at', '=', device.password_set_at as Date)
      .executeTakeFirst();
    rotated += Number(result.numUpdatedRows);
  }
  return rotated;
}

/** Registers the rotation as a periodic job: hourly, batch after batch while devices are due. */
export function scheduleRotation(jobs: Jobs, db: Db, sealer: Sealer): void {
  jobs.every(ROTATION_JOB, 3600, async (_job, context) => {
    while ((await rotateDuePasswords(db, sealer)) >= BATCH) {
      if (!(await context.heartbeat())) return;
    }
  });
}
