import type { ResourceType } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { AppError, uniqueViolationAs } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import type { PermissionCache } from './policy-cache.ts';

export interface PermissionActor {
  accountId: string;
  ip: string;
}

/** A keyword for `like`, with its wildcards escaped. */
export const likePattern = (keyword: string) =>
  `%${keyword.replace(/[\\%_]/g, (c) => `\\${c}`).toLowerCase()}%`;

const resourcesOf = (db: Db, companyId: string) =>
  db
    .selectFrom('permission_resources as r')
    .innerJoin('apps as a', 'a.id', 'r.app_id')
    .where('r.company_id', '=', companyId);

const resourceColumns = [
  'r.id',
  'r.app_id',
  'a.name as app_name',
  'r.name',
  'r.type',
  'r.description',
  'r.data',
  'r.actions',
  'r.created_at',
  'r.updated_at',
  sql<number>`(select count(*) from permission_authorization_resources ar where ar.resource_id = r.id)::int`.as(
    'authorization_count',
  ),
] as const;

type ResourceRow = {
  id: string;
  app_id: string;
  app_name: string;
  name: string;
  type: ResourceType;
  description: string | null;
  data: string | null;
  actions: string[];
  authorization_count: number;
  created_at: Date;
  updated_at: Date;
};

const toResource = (row: ResourceRow) => ({
  resourceId: row.id,
  appId: row.app_id,
  appName: row.app_name,
  name: row.name,
  type: row.type,
  description: row.description,
  data: row.data,
  actions: row.actions,
  authorizationCount: row.authorization_count,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

const auditView = (row: ResourceRow) => ({
  appId: row.app_id,
  name: row.name,
  type: row.type,
  description: row.description,
  data: row.data,
  actions: row.actions,
});

async function findResource(db: Db, companyId: string, resourceId: string) {
  const row = await resourcesOf(db, companyId)
    .select(resourceColumns)
    .where('r.id', '=', resourceId)
    .executeTakeFirst();
  if (!row) throw new AppError('resource.not_found');
  return row as ResourceRow;
}

/** The application of the company; another company's is not found. */
export async function assertAppInCompany(db: Db, companyId: string, appId: string) {
  const app = await db
    .selectFrom('apps')
    .select(['id', 'name'])
    .where('company_id', '=', companyId)
    .where('id', '=', appId)
    .executeTakeFirst();
  if (!app) throw new AppError('app.not_found');
  return app;
}

const nameIndex = { permission_resources_name: 'resource.name_taken' } as const;

/** Resources of the company's applications (spec §3 Resource). */
export function createResourceService(deps: { db: Db; cache: PermissionCache }) {
  const { db, cache } = deps;

  async function list(
    companyId: string,
    query: { appId?: string; type?: ResourceType; keyword?: string; page: number; pageSize: number },
  ) {
    let base = resourcesOf(db, companyId);
    if (query.appId) base = base.where('r.app_id', '=', query.appId);
    if (query.type) base = base.where('r.type', '=', query.type);
    if (query.keyword) {
      const pattern = likePattern(query.keyword);
      base = base.where((eb) =>
        eb.or([
          eb(sql<string>`lower(r.name)`, 'like', pattern),
          eb(sql<string>`lower(coalesce(r.description, ''))`, 'like', pattern),
          eb(sql<string>`lower(coalesce(r.data, ''))`, 'like', pattern),
        ]),
      );
    }
    const [rows, count] = await Promise.all([
      base
        .select(resourceColumns)
        .orderBy('a.name')
        .orderBy('r.name')
        .orderBy('r.id')
        .limit(query.pageSize)
        .offset((query.page - 1) * query.pageSize)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { list: (rows as ResourceRow[]).map(toResource), total: Number(count.n) };
  }

  async function create(
    actor: PermissionActor,
    companyId: string,
    input: {
      appId: string;
      name: string;
      type: ResourceType;
      description?: string | null;
      data?: string | null;
      actions: string[];
    },
  ) {
    const created = await uniqueViolationAs(nameIndex, () =>
      db.transaction().execute(async (trx) => {
        await assertAppInCompany(trx, companyId, input.appId);
        const id = newId();
        await trx
          .insertInto('permission_resources')
          .values({
            id,
            company_id: companyId,
            app_id: input.appId,
            name: input.name,
            type: input.type,
            description: input.description ?? null,
            data: input.data ?? null,
            actions: JSON.stringify(input.actions),
          })
          .execute();
        const row = await findResource(trx, companyId, id);
        await insertAuditEvent(trx, {
          companyId,
          actorAccountId: actor.accountId,
          action: 'permission.resource.create',
          targetType: 'permission_resource',
          targetId: id,
          after: auditView(row),
          ip: actor.ip,
        });
        return toResource(row);
      }),
    );
    cache.companyChanged(companyId);
    return created;
  }

  async function update(
    actor: PermissionActor,
    companyId: string,
    input: {
      resourceId: string;
      name?: string;
      type?: ResourceType;
      description?: string | null;
      data?: string | null;
      actions?: string[];
    },
  ) {
    const updated = await uniqueViolationAs(nameIndex, () =>
      db.transaction().execute(async (trx) => {
        const locked = await trx
          .selectFrom('permission_resources')
          .select('id')
          .where('company_id', '=', companyId)
          .where('id', '=', input.resourceId)
          .forUpdate()
          .executeTakeFirst();
        if (!locked) throw new AppError('resource.not_found');
        const before = await findResource(trx, companyId, locked.id);
        await trx
          .updateTable('permission_resources')
          .set({
            ...(input.name !== undefined ? { name: input.name } : {}),
            ...(input.type !== undefined ? { type: input.type } : {}),
            ...(input.description !== undefined ? { description: input.description } : {}),
            ...(input.data !== undefined ? { data: input.data } : {}),
            ...(input.actions !== undefined ? { actions: JSON.stringify(input.actions) } : {}),
            updated_at: sql`now()`,
          })
          .where('id', '=', locked.id)
          .execute();
        const after = await findResource(trx, companyId, locked.id);
        await insertAuditEvent(trx, {
          companyId,
          actorAccountId: actor.accountId,
          action: 'permission.resource.update',
          targetType: 'permission_resource',
          targetId: locked.id,
          before: auditView(before),
          after: auditView(after),
          ip: actor.ip,
        });
        return toResource(after);
      }),
    );
    cache.companyChanged(companyId);
    return updated;
  }

  /** Deletes a resource, and the authorizations that named it alone (they would name nothing). */
  async function remove(actor: PermissionActor, companyId: string, resourceId: string) {
    const removed = await db.transaction().execute(async (trx) => {
      const locked = await trx
        .selectFrom('permission_resources')
        .select('id')
        .where('company_id', '=', companyId)
        .where('id', '=', resourceId)
        .forUpdate()
        .executeTakeFirst();
      if (!locked) throw new AppError('resource.not_found');
      const before = await findResource(trx, companyId, locked.id);
      const orphans = await trx
        .selectFrom('permission_authorization_resources as ar')
        .select('ar.authorization_id')
        .where('ar.resource_id', '=', locked.id)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('permission_authorization_resources as other')
                .select('other.resource_id')
                .whereRef('other.authorization_id', '=', 'ar.authorization_id')
                .where('other.resource_id', '<>', locked.id),
            ),
          ),
        )
        .execute();
      const orphanIds = orphans.map((row) => row.authorization_id);
      if (orphanIds.length)
        await trx
          .deleteFrom('permission_authorizations')
          .where('company_id', '=', companyId)
          .where('id', 'in', orphanIds)
          .execute();
      await trx.deleteFrom('permission_resources').where('id', '=', locked.id).execute();
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'permission.resource.delete',
        targetType: 'permission_resource',
        targetId: locked.id,
        before: auditView(before),
        after: { authorizationsRemoved: orphanIds },
        ip: actor.ip,
      });
      return { resourceId: locked.id, authorizationsRemoved: orphanIds.length };
    });
    cache.companyChanged(companyId);
    return removed;
  }

  return { list, create, update, remove };
}

export type ResourceService = ReturnType<typeof createResourceService>;
