import { type Selectable, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { RadiusClientsTable } from '../../db/schema.ts';

/** RADIUS clients, who may use them, and Access-Challenge states (SQL only). */

export type RadiusClientRow = Selectable<RadiusClientsTable>;

/** The channel on which every instance hears that a company's RADIUS clients changed. */
export const RADIUS_CLIENTS_CHANNEL = 'tessera_radius_clients';

export const notifyClientsChanged = (db: Db, companyId: string) =>
  sql`select pg_notify(${RADIUS_CLIENTS_CHANNEL}, ${companyId})`.execute(db);

export const listClients = (db: Db, companyId: string) =>
  db
    .selectFrom('radius_clients')
    .selectAll()
    .where('company_id', '=', companyId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

export const findClient = (db: Db, companyId: string, clientId: string) =>
  db
    .selectFrom('radius_clients')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', clientId)
    .executeTakeFirst();

export async function countClients(db: Db, companyId: string) {
  const row = await db
    .selectFrom('radius_clients')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('company_id', '=', companyId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A source address or range as PostgreSQL normalises it (`10.0.0.7` → `10.0.0.7/32`), or undefined when it is none. */
export async function normaliseSource(db: Db, source: string): Promise<string | undefined> {
  if (!/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(source)) return undefined;
  try {
    const { rows } = await sql<{ source: string }>`select network(${source}::inet)::text as source`.execute(
      db,
    );
    return rows[0]?.source;
  } catch {
    return undefined;
  }
}

export const insertClient = (
  db: Db,
  row: Pick<
    RadiusClientRow,
    'id' | 'company_id' | 'name' | 'source' | 'secret_sealed' | 'enabled' | 'access' | 'otp_mode'
  > &
    Partial<Pick<RadiusClientRow, 'sms_codes'>>,
) => db.insertInto('radius_clients').values(row).execute();

export const updateClient = (
  db: Db,
  companyId: string,
  clientId: string,
  changes: Partial<
    Pick<
      RadiusClientRow,
      'name' | 'source' | 'secret_sealed' | 'enabled' | 'access' | 'otp_mode' | 'sms_codes'
    >
  >,
) =>
  db
    .updateTable('radius_clients')
    .set({ ...changes, updated_at: sql<Date>`now()` })
    .where('company_id', '=', companyId)
    .where('id', '=', clientId)
    .execute();

export const deleteClient = (db: Db, companyId: string, clientId: string) =>
  db.deleteFrom('radius_clients').where('company_id', '=', companyId).where('id', '=', clientId).execute();

/** The departments of the company's clients, by client. */
export async function departmentsOf(db: Db, companyId: string) {
  const rows = await db
    .selectFrom('radius_client_departments as r')
    .innerJoin('departments as d', 'd.id', 'r.department_id')
    .select(['r.client_id', 'd.id', 'd.name'])
    .where('d.company_id', '=', companyId)
    .orderBy('d.name')
    .execute();
  const byClient = new Map<string, { departmentId: string; name: string }[]>();
  for (const row of rows) {
    const list = byClient.get(row.client_id) ?? [];
    list.push({ departmentId: row.id, name: row.name });
    byClient.set(row.client_id, list);
  }
  return byClient;
}

/** How many of the ids are departments of the company. */
export async function countDepartments(db: Db, companyId: string, ids: string[]) {
  if (!ids.length) return 0;
  const row = await db
    .selectFrom('departments')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('company_id', '=', companyId)
    .where('id', 'in', ids)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function replaceDepartments(db: Db, clientId: string, ids: string[]) {
  await db.deleteFrom('radius_client_departments').where('client_id', '=', clientId).execute();
  if (ids.length)
    await db
      .insertInto('radius_client_departments')
      .values(ids.map((department_id) => ({ client_id: clientId, department_id })))
      .execute();
}

/** Every enabled client of every company, oldest first, as the RADIUS server keeps them (with the company's language). */
export const enabledClients = (db: Db) =>
  db
    .selectFrom('radius_clients as r')
    .innerJoin('companies as c', 'c.id', 'r.company_id')
    .select([
      'r.id',
      'r.company_id',
      'r.name',
      'r.source',
      'r.secret_sealed',
      'r.access',
      'r.otp_mode',
      'r.sms_codes',
      'c.default_language',
    ])
    .where('r.enabled', '=', true)
    .orderBy('r.created_at')
    .orderBy('r.id')
    .execute();

/** What the RADIUS server reads of a person whose password was right (see `clientAccessOf`). */
export interface ClientAccess {
  /** An enabled user of the client's company, and with access `restricted`, in one of its departments. */
  allowed: boolean;
  /** Their role in the company (mode `admins` asks administrators for a second factor). */
  role: string;
  /** The company's stored MFA settings (company_safety.mfa; null: the defaults). */
  mfa: unknown;
}

/**
 * Whether the account may sign in through the client, with what the second factor needs (the
 * person's role and the company's MFA settings), in one statement; undefined when the account is
 * no user of the client's company. Allowed: an enabled user of its company, and with access
 * `restricted`, a member of one of its departments or of a department below one. Further kinds
 * of "who" (roles, with the permissions work) join here as another `or exists`.
 */
export async function clientAccessOf(
  db: Db,
  client: { id: string; company_id: string; access: 'all' | 'restricted' },
  accountId: string,
): Promise<ClientAccess | undefined> {
  const { rows } = await sql<ClientAccess>`
    with recursive allowed_departments(id) as (
      select department_id from radius_client_departments
      where client_id = ${client.id} and ${client.access} = 'restricted'
      union
      select d.id from departments d join allowed_departments a on d.parent_id = a.id
    )
    select m.role, s.mfa,
      m.status = 'enabled' and (${client.access} = 'all' or exists (
        select 1 from department_members dm
        where dm.account_id = ${accountId} and dm.company_id = ${client.company_id}
          and dm.department_id in (select id from allowed_departments))) as allowed
    from company_members m
    left join company_safety s on s.company_id = m.company_id
    where m.company_id = ${client.company_id} and m.account_id = ${accountId}`.execute(db);
  return rows[0];
}

export interface ClientCounts {
  accepts: number;
  rejects: number;
  challenges: number;
  droppedNoAuthenticator: number;
  droppedBadAuthenticator: number;
  lastRequestAt: Date | null;
}

/** Adds counts gathered in memory to the client's counters (one statement per client). */
export const addCounts = (db: Db, clientId: string, counts: ClientCounts) =>
  db
    .updateTable('radius_clients')
    .set({
      accepts: sql`accepts + ${counts.accepts}`,
      rejects: sql`rejects + ${counts.rejects}`,
      challenges: sql`challenges + ${counts.challenges}`,
      dropped_no_authenticator: sql`dropped_no_authenticator + ${counts.droppedNoAuthenticator}`,
      dropped_bad_authenticator: sql`dropped_bad_authenticator + ${counts.droppedBadAuthenticator}`,
      last_request_at: counts.lastRequestAt
        ? sql<Date>`greatest(last_request_at, ${counts.lastRequestAt})`
        : undefined,
    })
    .where('id', '=', clientId)
    .execute();

export const insertChallenge = (
  db: Db,
  row: {
    state_hash: string;
    client_id: string;
    account_id: string;
    username: string;
    expires_at: Date;
    code_id?: string | null;
  },
) => db.insertInto('radius_challenges').values(row).execute();

/** Uses a challenge State once: only a request that finds it unexpired gets it. */
export const claimChallenge = (db: Db, stateHash: string, clientId: string) =>
  db
    .deleteFrom('radius_challenges')
    .where('state_hash', '=', stateHash)
    .where('client_id', '=', clientId)
    .returning(['account_id', 'username', 'expires_at', 'code_id'])
    .executeTakeFirst();

export const purgeExpiredChallenges = (db: Db) =>
  db.deleteFrom('radius_challenges').where('expires_at', '<', sql<Date>`now()`).execute();
