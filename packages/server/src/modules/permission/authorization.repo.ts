import type { AuthorizationEffect, AuthorizationSubjectType, permission } from '@tessera/contract';
import { sql } from 'kysely';
import type { z } from 'zod';
import type { Db } from '../../db/database.ts';
import type { StoredTimeWindow } from '../../db/schema.ts';
import { AppError } from '../../lib/errors.ts';
import { assertAppInCompany, likePattern } from './resource.service.ts';

export type AuthorizationInput = z.output<typeof permission.authorizationInput>;

const subjectName = sql<string>`case a.subject_type
  when 'user' then (select coalesce(u.display_name, u.username) from accounts u where u.id = a.subject_user_id)
  when 'role' then (select r.name from permission_roles r where r.id = a.subject_role_id)
  else (select d.name from departments d where d.id = a.subject_department_id) end`;

const authorizationColumns = [
  'a.id',
  'a.app_id',
  'p.name as app_name',
  'a.subject_type',
  sql<string>`coalesce(a.subject_user_id, a.subject_role_id, a.subject_department_id)`.as('subject_id'),
  subjectName.as('subject_name'),
  'a.effect',
  'a.resource_scope',
  'a.action_scope',
  'a.actions',
  'a.valid_from',
  'a.valid_until',
  'a.time_windows',
  'a.time_zone',
  'a.ip_ranges',
  'a.description',
  'a.created_at',
  'a.updated_at',
  sql<{ resourceId: string; name: string }[]>`coalesce((select json_agg(json_build_object('resourceId', r.id,
    'name', r.name) order by r.name) from permission_authorization_resources ar
    join permission_resources r on r.id = ar.resource_id where ar.authorization_id = a.id), '[]'::json)`.as(
    'resources',
  ),
] as const;

export interface AuthorizationRow {
  id: string;
  app_id: string;
  app_name: string;
  subject_type: AuthorizationSubjectType;
  subject_id: string;
  subject_name: string;
  effect: AuthorizationEffect;
  resource_scope: 'all' | 'specific';
  action_scope: 'all' | 'specific';
  actions: string[];
  valid_from: Date | null;
  valid_until: Date | null;
  time_windows: StoredTimeWindow[];
  time_zone: string;
  ip_ranges: string[];
  description: string | null;
  created_at: Date;
  updated_at: Date;
  resources: { resourceId: string; name: string }[];
}

export const toAuthorization = (row: AuthorizationRow) => ({
  authorizationId: row.id,
  appId: row.app_id,
  appName: row.app_name,
  subject: { type: row.subject_type, id: row.subject_id, name: row.subject_name ?? '' },
  effect: row.effect,
  resourceScope: row.resource_scope,
  resources: row.resource_scope === 'all' ? [] : row.resources,
  actionScope: row.action_scope,
  actions: row.action_scope === 'all' ? [] : row.actions,
  restrictions: {
    validFrom: row.valid_from?.toISOString() ?? null,
    validUntil: row.valid_until?.toISOString() ?? null,
    timeWindows: row.time_windows,
    timeZone: row.time_zone,
    ipRanges: row.ip_ranges,
  },
  description: row.description,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

const authorizationsOf = (db: Db, companyId: string) =>
  db
    .selectFrom('permission_authorizations as a')
    .innerJoin('apps as p', 'p.id', 'a.app_id')
    .where('a.company_id', '=', companyId);

export async function findAuthorization(db: Db, companyId: string, id: string) {
  const row = await authorizationsOf(db, companyId)
    .select(authorizationColumns)
    .where('a.id', '=', id)
    .executeTakeFirst();
  if (!row) throw new AppError('authorization.not_found');
  return row as AuthorizationRow;
}

export async function lockAuthorization(trx: Db, companyId: string, id: string) {
  const row = await trx
    .selectFrom('permission_authorizations')
    .select('id')
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw new AppError('authorization.not_found');
  return findAuthorization(trx, companyId, row.id);
}

export async function findAuthorizations(
  db: Db,
  companyId: string,
  query: {
    appId?: string;
    subjectType?: AuthorizationSubjectType;
    subjectId?: string;
    effect?: AuthorizationEffect;
    keyword?: string;
    page: number;
    pageSize: number;
  },
) {
  let base = authorizationsOf(db, companyId);
  if (query.appId) base = base.where('a.app_id', '=', query.appId);
  if (query.subjectType) base = base.where('a.subject_type', '=', query.subjectType);
  if (query.subjectId)
    base = base.where(
      sql<string>`coalesce(a.subject_user_id, a.subject_role_id, a.subject_department_id)`,
      '=',
      query.subjectId,
    );
  if (query.effect) base = base.where('a.effect', '=', query.effect);
  if (query.keyword) {
    const pattern = likePattern(query.keyword);
    base = base.where((eb) =>
      eb.or([
        eb(sql<string>`lower(${subjectName})`, 'like', pattern),
        eb(sql<string>`lower(coalesce(a.description, ''))`, 'like', pattern),
        eb(sql<string>`lower(p.name)`, 'like', pattern),
        eb.exists(
          eb
            .selectFrom('permission_authorization_resources as ar')
            .innerJoin('permission_resources as r', 'r.id', 'ar.resource_id')
            .select('ar.resource_id')
            .whereRef('ar.authorization_id', '=', 'a.id')
            .where(sql<string>`lower(r.name)`, 'like', pattern),
        ),
      ]),
    );
  }
  const [rows, count] = await Promise.all([
    base
      .select(authorizationColumns)
      .orderBy('a.created_at', 'desc')
      .orderBy('a.id')
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows: rows as AuthorizationRow[], total: Number(count.n) };
}

/**
 * Checks an authorization against the company's data: the application, the subject and the
 * resources are the company's, the resources are the application's, and each chosen action is
 * declared by a chosen resource (or by any resource of the application, for all resources).
 */
export async function validateAuthorization(db: Db, companyId: string, input: AuthorizationInput) {
  await assertAppInCompany(db, companyId, input.appId);
  const subject = input.subject;
  const table =
    subject.type === 'user'
      ? db
          .selectFrom('company_members')
          .select('account_id as id')
          .where('company_id', '=', companyId)
          .where('account_id', '=', subject.id)
      : subject.type === 'role'
        ? db
            .selectFrom('permission_roles')
            .select('id')
            .where('company_id', '=', companyId)
            .where('id', '=', subject.id)
        : db
            .selectFrom('departments')
            .select('id')
            .where('company_id', '=', companyId)
            .where('id', '=', subject.id);
  if (!(await table.executeTakeFirst())) throw new AppError('authorization.subject_not_found');
  let resources = db
    .selectFrom('permission_resources')
    .select(['id', 'app_id', 'actions'])
    .where('company_id', '=', companyId);
  resources =
    input.resourceScope === 'all'
      ? resources.where('app_id', '=', input.appId)
      : resources.where('id', 'in', input.resourceIds);
  const found = await resources.execute();
  if (input.resourceScope === 'specific') {
    if (found.length !== input.resourceIds.length || found.some((r) => r.app_id !== input.appId))
      throw new AppError('authorization.resource_not_in_app');
  }
  if (input.actionScope === 'specific') {
    const declared = new Set(found.flatMap((r) => r.actions));
    const unknown = input.actions.find((action) => !declared.has(action));
    if (unknown) throw new AppError('authorization.action_unknown', { action: unknown });
  }
}

/** The stored columns of an authorization input. */
export const storedColumns = (input: AuthorizationInput) => ({
  app_id: input.appId,
  subject_type: input.subject.type,
  subject_user_id: input.subject.type === 'user' ? input.subject.id : null,
  subject_role_id: input.subject.type === 'role' ? input.subject.id : null,
  subject_department_id: input.subject.type === 'department' ? input.subject.id : null,
  effect: input.effect,
  resource_scope: input.resourceScope,
  action_scope: input.actionScope,
  actions: JSON.stringify(input.actionScope === 'all' ? [] : input.actions),
  valid_from: input.restrictions.validFrom,
  valid_until: input.restrictions.validUntil,
  time_windows: JSON.stringify(input.restrictions.timeWindows),
  time_zone: input.restrictions.timeZone,
  ip_ranges: JSON.stringify(input.restrictions.ipRanges),
  description: input.description ?? null,
});

export async function replaceResources(
  trx: Db,
  companyId: string,
  authorizationId: string,
  input: AuthorizationInput,
) {
  await trx
    .deleteFrom('permission_authorization_resources')
    .where('authorization_id', '=', authorizationId)
    .execute();
  if (input.resourceScope === 'specific' && input.resourceIds.length)
    await trx
      .insertInto('permission_authorization_resources')
      .values(
        input.resourceIds.map((resourceId) => ({
          authorization_id: authorizationId,
          company_id: companyId,
          resource_id: resourceId,
        })),
      )
      .execute();
}
