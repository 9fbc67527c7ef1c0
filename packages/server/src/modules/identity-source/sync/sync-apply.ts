import { type ErrorReason, isErrorReason } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import { AppError } from '../../../lib/errors.ts';
import { newId } from '../../../lib/ids.ts';
import { UNUSABLE_PASSWORD_HASH } from '../../account/password.ts';
import { insertAuditEvent } from '../../audit/audit.repo.ts';
import * as departments from '../../department/department.repo.ts';
import type { QuotaService } from '../../license/quota.service.ts';
import { lockUser } from '../../user/user.repo.ts';
import { changeUserStatus } from '../../user/user-status.ts';
import type { SyncPlan } from './sync-plan.ts';

/**
 * Applies a sync plan: the departments in one transaction, then the people in transactional
 * batches (a refused batch leaves the others done and is recorded), then the departments the
 * directory dropped. People it creates are the company's, fully managed, without a local
 * password (the directory or the scan signs them in), taking their places in the company quota;
 * disabling and enabling go through the console's own status change.
 */

export const BATCH_SIZE = 500;

export interface StoredError {
  reason: ErrorReason;
  params: Record<string, string>;
}

export const storedError = (error: unknown): StoredError => {
  if (error instanceof AppError)
    return {
      reason: error.reason,
      params: Object.fromEntries(Object.entries(error.params).map(([k, v]) => [k, String(v)])),
    };
  const { reason, params } = error as { reason?: string; params?: Record<string, string> };
  if (reason && isErrorReason(reason)) return { reason, params: params ?? {} };
  const { code, message } = error as { code?: string; message?: string };
  // A parallel change took an identifier the plan gave to someone (the unique indexes have the last word).
  if (code === '23505') return { reason: 'sync.preview_stale', params: {} };
  return { reason: 'sync.failed', params: { detail: (message ?? String(error)).slice(0, 300) } };
};

const chunks = <T>(items: T[], size = BATCH_SIZE): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
};

export interface ApplyContext {
  db: Db;
  quotas: Pick<QuotaService, 'takePlaces'>;
  companyId: string;
  sourceId: string;
  /** The source's departments by external id, as the plan found them. */
  sourceDepartments: Map<string, string>;
}

async function applyDepartments(ctx: ApplyContext, plan: SyncPlan, ids: Map<string, string>) {
  const { companyId, sourceId } = ctx;
  await ctx.db.transaction().execute(async (trx) => {
    const root = await departments.ensureRoot(trx, companyId);
    const parentOf = (ext: string | null) => (ext === null ? root.id : ids.get(ext));
    const audit = (action: string, id: string, after: unknown) =>
      insertAuditEvent(trx, {
        companyId,
        actorAccountId: null,
        action,
        targetType: 'department',
        targetId: id,
        after,
      });
    for (const department of plan.departments.create) {
      const parentId = parentOf(department.parentExternalId) ?? root.id;
      const id = await departments.insertDepartment(trx, companyId, {
        parentId,
        name: department.name,
        managerId: null,
      });
      await trx
        .insertInto('identity_source_departments')
        .values({ source_id: sourceId, external_id: department.externalId, department_id: id })
        .execute();
      ids.set(department.externalId, id);
      await audit('department.create', id, { name: department.name, parentId, sourceId });
    }
    for (const { externalId, departmentId } of plan.departments.adopt) {
      await trx
        .insertInto('identity_source_departments')
        .values({ source_id: sourceId, external_id: externalId, department_id: departmentId })
        .execute();
      ids.set(externalId, departmentId);
      await audit('department.update', departmentId, { linkedTo: sourceId });
    }
    for (const change of plan.departments.update) {
      const parentId = change.parentExternalId !== undefined ? parentOf(change.parentExternalId) : undefined;
      await departments.updateDepartmentById(trx, companyId, change.departmentId, {
        ...(change.name !== undefined ? { name: change.name } : {}),
        ...(parentId ? { parent_id: parentId } : {}),
      });
      await audit('department.update', change.departmentId, { name: change.name, parentId, sourceId });
    }
  });
}

/** Creates people linked to the source (a batch of a sync, or one first sign-in), in one transaction. */
export async function createLinkedPeople(
  ctx: Omit<ApplyContext, 'sourceDepartments'>,
  batch: SyncPlan['people']['create'],
  ids: Map<string, string>,
) {
  const { companyId, sourceId } = ctx;
  await ctx.db.transaction().execute(async (trx) => {
    await ctx.quotas.takePlaces(trx, companyId, 'user', batch.length);
    const rows = batch.map((person) => ({ id: newId(), person }));
    await trx
      .insertInto('accounts')
      .values(
        rows.map(({ id, person }) => ({
          id,
          username: person.username,
          display_name: person.name,
          email: person.email,
          phone: person.phone,
          password_hash: UNUSABLE_PASSWORD_HASH,
          status: 'enabled' as const,
          must_change_password: false,
          home_company_id: companyId,
        })),
      )
      .execute();
    await trx
      .insertInto('company_members')
      .values(rows.map(({ id }) => ({ company_id: companyId, account_id: id, role: 'member' as const })))
      .execute();
    await trx
      .insertInto('identity_links')
      .values(
        rows.map(({ id, person }) => ({
          source_id: sourceId,
          company_id: companyId,
          account_id: id,
          external_id: person.externalId,
          external_dn: person.dn,
          external_name: person.username,
        })),
      )
      .execute();
    const memberships = rows.flatMap(({ id, person }) =>
      [
        ...new Set(
          person.departmentExternalIds.map((ext) => ids.get(ext)).filter((d): d is string => Boolean(d)),
        ),
      ].map((departmentId) => ({ department_id: departmentId, company_id: companyId, account_id: id })),
    );
    for (const part of chunks(memberships, 2000))
      await trx.insertInto('department_members').values(part).execute();
    await trx
      .insertInto('audit_events')
      .values(
        rows.map(({ id, person }) => ({
          id: newId(),
          company_id: companyId,
          actor_account_id: null,
          action: 'user.create',
          target_type: 'user',
          target_id: id,
          before: null,
          after: JSON.stringify({
            username: person.username,
            name: person.name,
            email: person.email,
            phone: person.phone,
            sourceId,
          }),
          ip: null,
        })),
      )
      .execute();
  });
}

async function updatePeople(ctx: ApplyContext, batch: SyncPlan['people']['update']) {
  await ctx.db.transaction().execute(async (trx) => {
    for (const { accountId, set } of batch) {
      await trx.updateTable('accounts').set(set).where('id', '=', accountId).execute();
      await insertAuditEvent(trx, {
        companyId: ctx.companyId,
        actorAccountId: null,
        action: 'user.update',
        targetType: 'user',
        targetId: accountId,
        after: { ...set, sourceId: ctx.sourceId },
      });
    }
  });
}

async function movePeople(ctx: ApplyContext, batch: SyncPlan['people']['move'], ids: Map<string, string>) {
  const { companyId } = ctx;
  await ctx.db.transaction().execute(async (trx) => {
    for (const { accountId, add, remove } of batch) {
      if (remove.length)
        await trx
          .deleteFrom('department_members')
          .where('company_id', '=', companyId)
          .where('account_id', '=', accountId)
          .where('department_id', 'in', remove)
          .execute();
      const added = add.map((ext) => ids.get(ext)).filter((d): d is string => Boolean(d));
      if (added.length)
        await trx
          .insertInto('department_members')
          .values(
            added.map((departmentId) => ({
              department_id: departmentId,
              company_id: companyId,
              account_id: accountId,
            })),
          )
          .onConflict((oc) => oc.columns(['department_id', 'account_id']).doNothing())
          .execute();
    }
  });
}

async function setStatuses(
  ctx: ApplyContext,
  batch: { accountId: string; why?: string }[],
  status: 'enabled' | 'disabled',
) {
  await ctx.db.transaction().execute(async (trx) => {
    for (const { accountId, why } of batch) {
      const row = await lockUser(trx, ctx.companyId, accountId);
      if (!row) continue;
      await changeUserStatus(trx, { accountId: null, ip: null, role: 'admin' }, ctx.companyId, row, status, {
        sourceId: ctx.sourceId,
        ...(why ? { why } : {}),
      });
      await trx
        .updateTable('identity_links')
        .set({ disabled_by_sync: status === 'disabled', updated_at: sql<Date>`now()` })
        .where('source_id', '=', ctx.sourceId)
        .where('account_id', '=', accountId)
        .execute();
    }
  });
}

async function relinkPeople(ctx: ApplyContext, batch: SyncPlan['people']['relink']) {
  await ctx.db.transaction().execute(async (trx) => {
    for (const { accountId, externalDn, externalName } of batch)
      await trx
        .updateTable('identity_links')
        .set({ external_dn: externalDn, external_name: externalName, updated_at: sql<Date>`now()` })
        .where('source_id', '=', ctx.sourceId)
        .where('account_id', '=', accountId)
        .execute();
  });
}

async function finishDepartments(ctx: ApplyContext, plan: SyncPlan) {
  await ctx.db.transaction().execute(async (trx) => {
    for (const { externalId } of plan.departments.unlink)
      await trx
        .deleteFrom('identity_source_departments')
        .where('source_id', '=', ctx.sourceId)
        .where('external_id', '=', externalId)
        .execute();
    for (const { departmentId } of plan.departments.remove) {
      // Only if the plan's reasons still hold: empty and without sub departments.
      const [members, children] = await Promise.all([
        departments.findDepartmentMemberIds(trx, ctx.companyId, departmentId),
        departments.hasChildren(trx, ctx.companyId, departmentId),
      ]);
      if (members.length || children) throw new AppError('sync.preview_stale');
      await departments.deleteDepartmentById(trx, ctx.companyId, departmentId);
      await insertAuditEvent(trx, {
        companyId: ctx.companyId,
        actorAccountId: null,
        action: 'department.delete',
        targetType: 'department',
        targetId: departmentId,
        after: { sourceId: ctx.sourceId },
      });
    }
  });
}

/** Applies the plan; answers the problems of the steps that were refused (the others are done). */
export async function applyPlan(ctx: ApplyContext, plan: SyncPlan): Promise<StoredError[]> {
  const errors: StoredError[] = [];
  const attempt = async (work: () => Promise<void>) => {
    try {
      await work();
    } catch (error) {
      errors.push(storedError(error));
    }
  };
  const ids = new Map(ctx.sourceDepartments);
  const { people } = plan;
  await attempt(() => applyDepartments(ctx, plan, ids));
  if (errors.length) return errors;
  for (const batch of chunks(people.create)) await attempt(() => createLinkedPeople(ctx, batch, ids));
  for (const batch of chunks(people.update)) await attempt(() => updatePeople(ctx, batch));
  for (const batch of chunks(people.move)) await attempt(() => movePeople(ctx, batch, ids));
  for (const batch of chunks(people.disable)) await attempt(() => setStatuses(ctx, batch, 'disabled'));
  for (const batch of chunks(people.enable)) await attempt(() => setStatuses(ctx, batch, 'enabled'));
  for (const batch of chunks(people.relink)) await attempt(() => relinkPeople(ctx, batch));
  await attempt(() => finishDepartments(ctx, plan));
  return errors;
}
