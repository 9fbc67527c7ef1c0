import { type Insertable, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { ExchangeDevicesTable } from '../../db/schema.ts';
import { insertDevice } from './devices.repo.ts';

/**
 * The agent's reads and writes, each one statement on the path of a phone's request: the
 * devices a phone may be (with their person, the company's agent and the person's own Exchange
 * sign-in, joined), the person when a registration token is sent, and the device's traffic.
 */

/** What the agent needs to know of a company's Exchange and of a person there. */
export interface AgentCompanyView {
  company_id: string;
  account_id: string;
  username: string;
  email: string | null;
  account_status: 'enabled' | 'disabled';
  member_status: 'enabled' | 'disabled' | 'locked';
  enabled: boolean | null;
  exchange_url: string | null;
  credential_mode: 'service' | 'personal' | null;
  service_username: string | null;
  service_password_sealed: string | null;
  own_username: string | null;
  own_password_sealed: string | null;
}

export interface AgentDevice extends AgentCompanyView {
  id: string;
  device_id: string;
  activation: 'to_be_activated' | 'active';
  status: 'enabled' | 'disabled';
  access_permission: 'full' | 'receive_only';
  policy: unknown;
  password_hash: string | null;
  online_until: Date | null;
  last_ip: string | null;
  user_agent: string | null;
}

const companyColumns = sql`
  m.company_id, a.id as account_id, a.username, a.email, a.status as account_status,
  m.status as member_status, s.enabled, s.exchange_url, s.credential_mode, s.service_username,
  s.service_password_sealed, c.username as own_username, c.password_sealed as own_password_sealed`;

/** An account named as people type it: username or email, any case. */
const accountNamed = (name: string) => sql`(lower(a.username) = ${name} or lower(a.email) = ${name})`;

/**
 * The devices of the named person that the request can be: the one with this DeviceId in each
 * company, or, for a request without one (OPTIONS), every active device of the person.
 */
export async function agentDevices(db: Db, name: string, deviceId: string | null): Promise<AgentDevice[]> {
  const which = deviceId === null ? sql`d.activation = 'active'` : sql`d.device_id = ${deviceId}`;
  const result = await sql<AgentDevice>`
    select d.id, d.device_id, d.activation, d.status, d.access_permission, d.policy, d.password_hash,
      d.online_until, d.last_ip, d.user_agent, ${companyColumns}
    from accounts a
    join exchange_devices d on d.account_id = a.id
    join company_members m on m.company_id = d.company_id and m.account_id = d.account_id
    left join exchange_settings s on s.company_id = d.company_id
    left join exchange_credentials c on c.company_id = d.company_id and c.account_id = d.account_id
    where ${accountNamed(name)} and ${which}
    limit 60`.execute(db);
  return result.rows;
}

/** The named person in a company (for a registration token of that company), or undefined. */
export async function agentPerson(
  db: Db,
  companyId: string,
  name: string,
): Promise<AgentCompanyView | undefined> {
  const result = await sql<AgentCompanyView>`
    select ${companyColumns}
    from accounts a
    join company_members m on m.account_id = a.id and m.company_id = ${companyId}
    left join exchange_settings s on s.company_id = m.company_id
    left join exchange_credentials c on c.company_id = m.company_id and c.account_id = a.id
    where ${accountNamed(name)}
    limit 1`.execute(db);
  return result.rows[0];
}

/** The id of the named account, when there is one (for the login event of a refusal). */
export async function accountIdNamed(db: Db, name: string): Promise<string | undefined> {
  const result = await sql<{
    id: string;
  }>`select a.id from accounts a where ${accountNamed(name)} limit 1`.execute(db);
  return result.rows[0]?.id;
}

/**
 * Registers a device unless the person has `limit` devices in the company already. The person's
 * record is locked first, so parallel first requests of several phones cannot pass the limit
 * together. Answers `limit` when refused, `exists` when this phone registered meanwhile.
 */
export async function registerDevice(
  db: Db,
  device: Insertable<ExchangeDevicesTable>,
  limit: number,
): Promise<'registered' | 'limit' | 'exists'> {
  return db.transaction().execute(async (trx) => {
    await trx
      .selectFrom('company_members')
      .select('account_id')
      .where('company_id', '=', device.company_id)
      .where('account_id', '=', device.account_id)
      .forUpdate()
      .executeTakeFirst();
    const count = await trx
      .selectFrom('exchange_devices')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where('company_id', '=', device.company_id)
      .where('account_id', '=', device.account_id)
      .executeTakeFirstOrThrow();
    if (Number(count.total) >= limit) return 'limit';
    return (await insertDevice(trx, device)) ? 'registered' : 'exists';
  });
}

/**
 * A request of the device was let through: it is online until `holdSeconds` from now (a Ping
 * holds that long). Coming back after being offline starts a new online period: `last_login_at`
 * is now and `last_offline_at` the end of the previous period.
 */
export async function recordTraffic(
  db: Db,
  deviceRowId: string,
  traffic: { ip: string; userAgent: string | null; holdSeconds: number },
): Promise<void> {
  await sql`
    update exchange_devices set
      last_seen_at = now(), last_ip = ${traffic.ip}, user_agent = coalesce(${traffic.userAgent}, user_agent),
      last_offline_at = case when online_until < now() then online_until else last_offline_at end,
      last_login_at = case when online_until is null or online_until < now() then now() else last_login_at end,
      online_until = greatest(coalesce(online_until, now()), now() + make_interval(secs => ${traffic.holdSeconds}))
    where id = ${deviceRowId}`.execute(db);
}

/** A long request ended: the device stays online for `graceSeconds` more unless it comes back. */
export async function recordLongRequestEnd(db: Db, deviceRowId: string, graceSeconds: number): Promise<void> {
  await sql`
    update exchange_devices set last_seen_at = now(),
      online_until = least(online_until, now() + make_interval(secs => ${graceSeconds}))
    where id = ${deviceRowId}`.execute(db);
}
