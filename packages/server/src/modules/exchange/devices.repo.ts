import type { DeviceActivation, DeviceStatus } from '@tessera/contract';
import { type Insertable, type RawBuilder, type Selectable, sql, type Updateable } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { ExchangeDevicesTable } from '../../db/schema.ts';

/**
 * Exchange devices of a company. Every function takes the company first (a device of another
 * company is never found), except the agent's lookups at the end, which start from what a
 * phone sends.
 */

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);
const onlineNow = sql<boolean>`coalesce(d.online_until > now(), false)`;

/** A device with its person, as the console shows it. */
export const deviceColumns = [
  'd.id',
  'd.company_id',
  'd.account_id',
  'd.device_id',
  'd.device_type',
  'd.name',
  'd.os',
  'd.user_agent',
  'd.activation',
  'd.status',
  'd.access_permission',
  'd.policy',
  'd.password_set_at',
  'd.registered_at',
  'd.activated_at',
  'd.last_login_at',
  'd.last_offline_at',
  'd.last_seen_at',
  'd.last_ip',
  'a.username',
  'a.display_name',
] as const;

export type DeviceRow = Pick<
  Selectable<ExchangeDevicesTable>,
  | 'id'
  | 'company_id'
  | 'account_id'
  | 'device_id'
  | 'device_type'
  | 'name'
  | 'os'
  | 'user_agent'
  | 'activation'
  | 'status'
  | 'access_permission'
  | 'policy'
  | 'password_set_at'
  | 'registered_at'
  | 'activated_at'
  | 'last_login_at'
  | 'last_offline_at'
  | 'last_seen_at'
  | 'last_ip'
> & { username: string; display_name: string | null; online: boolean; password_pending: boolean };

const devicesOf = (db: Db, companyId: string) =>
  db
    .selectFrom('exchange_devices as d')
    .innerJoin('accounts as a', 'a.id', 'd.account_id')
    .where('d.company_id', '=', companyId);

const selectDevices = (db: Db, companyId: string) =>
  devicesOf(db, companyId).select([
    ...deviceColumns,
    onlineNow.as('online'),
    sql<boolean>`d.password_pending_sealed is not null`.as('password_pending'),
  ]);

export interface DeviceQuery {
  accountId?: string;
  keyword?: string;
  os?: string;
  type?: string;
  status?: DeviceStatus;
  activation?: DeviceActivation;
  online?: boolean;
  page: number;
  pageSize: number;
}

/** The conditions of a device query (on `d`, the device, and `a`, its person's account). */
function deviceFilter(query: DeviceQuery): RawBuilder<boolean> {
  const conditions: RawBuilder<unknown>[] = [sql`true`];
  const keyword = query.keyword?.trim().toLowerCase();
  if (query.accountId) conditions.push(sql`d.account_id = ${query.accountId}`);
  if (keyword) conditions.push(sql`a.search_text like ${`%${escapeLike(keyword)}%`}`);
  if (query.os) conditions.push(sql`d.os = ${query.os}`);
  if (query.type) conditions.push(sql`d.device_type = ${query.type}`);
  if (query.status) conditions.push(sql`d.status = ${query.status}`);
  if (query.activation) conditions.push(sql`d.activation = ${query.activation}`);
  if (query.online !== undefined) conditions.push(query.online ? onlineNow : sql`not ${onlineNow}`);
  return sql<boolean>`${sql.join(conditions, sql` and `)}`;
}

export async function findDevices(db: Db, companyId: string, query: DeviceQuery) {
  const filter = deviceFilter(query);
  const [rows, count, options] = await Promise.all([
    selectDevices(db, companyId)
      .where(filter)
      .orderBy('d.registered_at', 'desc')
      .orderBy('d.id')
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize)
      .execute(),
    devicesOf(db, companyId)
      .where(filter)
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('exchange_devices')
      .select(['os', 'device_type'])
      .distinct()
      .where('company_id', '=', companyId)
      .execute(),
  ]);
  const sorted = (values: (string | null)[]) =>
    [...new Set(values.filter((value): value is string => Boolean(value)))].sort();
  return {
    rows: rows as DeviceRow[],
    total: Number(count.total),
    osOptions: sorted(options.map((row) => row.os)),
    typeOptions: sorted(options.map((row) => row.device_type)),
  };
}

export async function findDevice(db: Db, companyId: string, id: string): Promise<DeviceRow | undefined> {
  return (await selectDevices(db, companyId).where('d.id', '=', id).executeTakeFirst()) as
    | DeviceRow
    | undefined;
}

/** The devices of these ids that the company has, with their people's roles (locked for the change). */
export async function findDevicesForChange(db: Db, companyId: string, ids: readonly string[]) {
  if (!ids.length) return [];
  return db
    .selectFrom('exchange_devices as d')
    .innerJoin('company_members as m', (join) =>
      join.onRef('m.company_id', '=', 'd.company_id').onRef('m.account_id', '=', 'd.account_id'),
    )
    .select(['d.id', 'd.account_id', 'd.activation', 'd.status', 'd.name', 'm.role'])
    .where('d.company_id', '=', companyId)
    .where('d.id', 'in', [...ids])
    .forUpdate('d')
    .execute();
}

export async function updateDevices(
  db: Db,
  companyId: string,
  ids: readonly string[],
  values: Updateable<ExchangeDevicesTable>,
): Promise<number> {
  if (!ids.length) return 0;
  const result = await db
    .updateTable('exchange_devices')
    .set(values)
    .where('company_id', '=', companyId)
    .where('id', 'in', [...ids])
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function deleteDevices(db: Db, companyId: string, ids: readonly string[]): Promise<number> {
  if (!ids.length) return 0;
  const result = await db
    .deleteFrom('exchange_devices')
    .where('company_id', '=', companyId)
    .where('id', 'in', [...ids])
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function insertDevice(db: Db, device: Insertable<ExchangeDevicesTable>): Promise<boolean> {
  const inserted = await db
    .insertInto('exchange_devices')
    .values(device)
    .onConflict((oc) => oc.columns(['company_id', 'account_id', 'device_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function countDevicesOf(db: Db, companyId: string, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('exchange_devices')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where('company_id', '=', companyId)
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

/** The agent's recent decisions about a device (login events that name it). */
export async function eventsOfDevice(db: Db, companyId: string, id: string, limit = 20) {
  return db
    .selectFrom('login_events')
    .select(['id', 'created_at', 'result', 'failure_cause', 'ip'])
    .where('company_id', '=', companyId)
    .where('device_id', '=', id)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
}
