import { type QuantityModule, quantityModules } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

/**
 * Company quotas and what they count. Every function takes the handle to run on (inside a
 * transaction: the `trx`); the counted functions are the licence's quantity functions.
 */

/** Names each counted function among advisory locks (one lock per function, for every company). */
const QUANTITY_LOCKS: Record<QuantityModule, number> = { user: 7_316_420_965, app: 7_316_420_966 };

/**
 * Holds the lock of a counted function for the rest of the transaction: creations of users (or
 * of applications) anywhere in the installation wait for each other, so that two of them cannot
 * both see the last free place of a company quota or of the licence.
 */
export async function lockQuantity(trx: Db, module: QuantityModule): Promise<void> {
  await sql`select pg_advisory_xact_lock(${sql.lit(QUANTITY_LOCKS[module])})`.execute(trx);
}

/**
 * Where each counted function's rows are: a company's users are its user records, the people its
 * user list shows (a person in two companies counts in both); its applications are its apps.
 */
const countedRows: Record<QuantityModule, 'company_members' | 'apps'> = {
  user: 'company_members',
  app: 'apps',
};

/** How many each company uses, by company id (companies using none are absent). */
async function countByCompany(from: Db, module: QuantityModule, companyIds: string[]) {
  const rows = await from
    .selectFrom(countedRows[module])
    .select(['company_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('company_id', 'in', companyIds)
    .groupBy('company_id')
    .execute();
  return new Map(rows.map((row) => [row.company_id, Number(row.n)]));
}

/** How many of a counted function one company uses. */
export async function countCompanyUsage(from: Db, companyId: string, module: QuantityModule) {
  return (await countByCompany(from, module, [companyId])).get(companyId) ?? 0;
}

/** What each of these companies uses of every counted function. */
export async function findUsage(from: Db, companyIds: string[]) {
  const out = new Map<string, Record<QuantityModule, number>>();
  for (const id of companyIds)
    out.set(id, Object.fromEntries(quantityModules.map((m) => [m, 0])) as Record<QuantityModule, number>);
  if (!companyIds.length) return out;
  for (const module of quantityModules) {
    for (const [id, n] of await countByCompany(from, module, companyIds)) {
      const usage = out.get(id);
      if (usage) usage[module] = n;
    }
  }
  return out;
}

/** The stored quotas of these companies: company id → function → quota (null: no limit). */
export async function findQuotas(from: Db, companyIds: string[]) {
  const out = new Map<string, Partial<Record<QuantityModule, number | null>>>();
  if (!companyIds.length) return out;
  const rows = await from
    .selectFrom('company_quotas')
    .select(['company_id', 'module', 'quota'])
    .where('company_id', 'in', companyIds)
    .execute();
  for (const row of rows) out.set(row.company_id, { ...out.get(row.company_id), [row.module]: row.quota });
  return out;
}

export async function upsertQuota(trx: Db, companyId: string, module: QuantityModule, quota: number | null) {
  await trx
    .insertInto('company_quotas')
    .values({ company_id: companyId, module, quota })
    .onConflict((oc) => oc.columns(['company_id', 'module']).doUpdateSet({ quota, updated_at: new Date() }))
    .execute();
}

/** Companies by name, paged; the keyword matches the name (any part, any case) or the exact id. */
export async function findCompanies(from: Db, query: { keyword?: string; page: number; pageSize: number }) {
  let companies = from.selectFrom('companies as c').innerJoin('accounts as o', 'o.id', 'c.owner_account_id');
  if (query.keyword) {
    const pattern = `%${query.keyword.replace(/[\\%_]/g, (c) => `\\${c}`).toLowerCase()}%`;
    const keyword = query.keyword;
    companies = companies.where((eb) =>
      eb.or([eb(sql<string>`lower(c.name)`, 'like', pattern), eb('c.id', '=', keyword)]),
    );
  }
  const [rows, count] = await Promise.all([
    companies
      .select(['c.id', 'c.name', 'c.created_at', 'o.username as owner_username'])
      .orderBy(sql`lower(c.name)`)
      .orderBy('c.id')
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize)
      .execute(),
    companies.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export const findCompany = (from: Db, companyId: string) =>
  from
    .selectFrom('companies as c')
    .innerJoin('accounts as o', 'o.id', 'c.owner_account_id')
    .select(['c.id', 'c.name', 'c.created_at', 'o.username as owner_username'])
    .where('c.id', '=', companyId)
    .executeTakeFirst();

export type QuotaCompanyRow = NonNullable<Awaited<ReturnType<typeof findCompany>>>;
