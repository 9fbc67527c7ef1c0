import { randomInt } from 'node:crypto';
import {
  type MemberRole,
  RADIUS_CHALLENGE_SECONDS,
  type RadiusAccessMode,
  type RadiusOtpMode,
  radiusLimits,
} from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import * as repo from './radius.repo.ts';

/**
 * The company's RADIUS clients (spec §2 /safety-management/radius): who may send requests (a
 * source address or range), with which shared secret (made here, sealed, shown once), whether
 * it is on, who may sign in through it and how they give their second factor. Every change is
 * announced to all instances, which reload their clients.
 */

export interface RadiusActor {
  accountId: string;
  ip: string;
  role: MemberRole;
}

export const SECRET_PURPOSE = 'radius-shared-secret';

/**
 * Shared secrets: 32 letters and digits (~190 bits). Long random secrets are what RFC 6614 and
 * the Blast-RADIUS advisories ask for; letters and digits type into every device's form.
 */
const SECRET_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
const newSecret = () =>
  Array.from({ length: 32 }, () => SECRET_ALPHABET[randomInt(SECRET_ALPHABET.length)]).join('');

const mayManage = (role: MemberRole) => role === 'owner' || role === 'admin';

export function createRadiusService(deps: {
  db: Db;
  sealer: Sealer;
  port: () => number | null;
  /** This instance's RADIUS server reloads its clients (the others hear the notice). */
  clientsChanged: () => Promise<void>;
}) {
  const { db, sealer } = deps;

  /**
   * A change of the company's clients: announced to every instance in its transaction, and
   * applied by this instance's RADIUS server before the call answers, so that a device's request
   * right after it is matched against the changed clients.
   */
  async function changeClients<T>(companyId: string, change: (trx: Db) => Promise<T>): Promise<T> {
    const result = await db.transaction().execute(async (trx) => {
      const changed = await change(trx);
      await repo.notifyClientsChanged(trx, companyId);
      return changed;
    });
    await deps.clientsChanged();
    return result;
  }
  const seal = (clientId: string, secret: string) => sealer.seal(secret, `${SECRET_PURPOSE}:${clientId}`);

  function view(row: repo.RadiusClientRow, departments: { departmentId: string; name: string }[] = []) {
    return {
      clientId: row.id,
      name: row.name,
      source: row.source,
      enabled: row.enabled,
      access: row.access,
      departments,
      otpMode: row.otp_mode,
      smsCodes: row.sms_codes,
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
      stats: {
        accepts: Number(row.accepts),
        rejects: Number(row.rejects),
        challenges: Number(row.challenges),
        droppedNoAuthenticator: Number(row.dropped_no_authenticator),
        droppedBadAuthenticator: Number(row.dropped_bad_authenticator),
        lastRequestAt: row.last_request_at?.toISOString() ?? null,
      },
    };
  }

  const auditView = (row: repo.RadiusClientRow, departmentIds: string[]) => ({
    name: row.name,
    source: row.source,
    enabled: row.enabled,
    access: row.access,
    departmentIds,
    otpMode: row.otp_mode,
    smsCodes: row.sms_codes,
  });

  async function list(companyId: string) {
    const [rows, departments] = await Promise.all([
      repo.listClients(db, companyId),
      repo.departmentsOf(db, companyId),
    ]);
    return {
      list: rows.map((row) => view(row, departments.get(row.id))),
      server: { port: deps.port(), challengeSeconds: RADIUS_CHALLENGE_SECONDS },
    };
  }

  async function findOne(trx: Db, companyId: string, clientId: string) {
    const row = await repo.findClient(trx, companyId, clientId);
    if (!row) throw new AppError('radius.client_not_found');
    return row;
  }

  async function checkedSource(source: string) {
    const normalised = await repo.normaliseSource(db, source);
    if (!normalised) throw new AppError('radius.source_invalid');
    return normalised;
  }

  async function checkedDepartments(trx: Db, companyId: string, access: RadiusAccessMode, ids: string[]) {
    const unique = [...new Set(ids)];
    if (access === 'restricted' && !unique.length) throw new AppError('radius.departments_required');
    if ((await repo.countDepartments(trx, companyId, unique)) !== unique.length)
      throw new AppError('radius.department_not_found');
    return access === 'restricted' ? unique : [];
  }

  async function one(trx: Db, companyId: string, clientId: string) {
    const row = await findOne(trx, companyId, clientId);
    return view(row, (await repo.departmentsOf(trx, companyId)).get(clientId));
  }

  async function create(
    actor: RadiusActor,
    companyId: string,
    input: {
      name: string;
      source: string;
      enabled: boolean;
      access: RadiusAccessMode;
      departmentIds: string[];
      otpMode: RadiusOtpMode;
      smsCodes?: boolean;
    },
  ) {
    if (!mayManage(actor.role)) throw new AppError('auth.forbidden');
    const source = await checkedSource(input.source);
    const secret = newSecret();
    const id = newId();
    const client = await changeClients(companyId, async (trx) => {
      if ((await repo.countClients(trx, companyId)) >= radiusLimits.clientsPerCompany)
        throw new AppError('radius.too_many_clients', { max: radiusLimits.clientsPerCompany });
      const departmentIds = await checkedDepartments(trx, companyId, input.access, input.departmentIds);
      await repo.insertClient(trx, {
        id,
        company_id: companyId,
        name: input.name,
        source,
        secret_sealed: seal(id, secret),
        enabled: input.enabled,
        access: input.access,
        otp_mode: input.otpMode,
        sms_codes: input.smsCodes ?? false,
      });
      await repo.replaceDepartments(trx, id, departmentIds);
      const row = await findOne(trx, companyId, id);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'radius.client_create',
        targetType: 'radius_client',
        targetId: id,
        after: auditView(row, departmentIds),
        ip: actor.ip,
      });
      return one(trx, companyId, id);
    });
    return { client, secret };
  }

  async function update(
    actor: RadiusActor,
    companyId: string,
    input: {
      clientId: string;
      name?: string;
      source?: string;
      enabled?: boolean;
      access?: RadiusAccessMode;
      departmentIds?: string[];
      otpMode?: RadiusOtpMode;
      smsCodes?: boolean;
    },
  ) {
    if (!mayManage(actor.role)) throw new AppError('auth.forbidden');
    const source = input.source === undefined ? undefined : await checkedSource(input.source);
    return changeClients(companyId, async (trx) => {
      const before = await findOne(trx, companyId, input.clientId);
      const beforeDepartments = ((await repo.departmentsOf(trx, companyId)).get(before.id) ?? []).map(
        (d) => d.departmentId,
      );
      const access = input.access ?? before.access;
      const departmentIds =
        input.access !== undefined || input.departmentIds !== undefined
          ? await checkedDepartments(trx, companyId, access, input.departmentIds ?? beforeDepartments)
          : beforeDepartments;
      await repo.updateClient(trx, companyId, before.id, {
        name: input.name,
        source,
        enabled: input.enabled,
        access: input.access,
        otp_mode: input.otpMode,
        sms_codes: input.smsCodes,
      });
      await repo.replaceDepartments(trx, before.id, departmentIds);
      const after = await findOne(trx, companyId, before.id);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'radius.client_update',
        targetType: 'radius_client',
        targetId: before.id,
        before: auditView(before, beforeDepartments),
        after: auditView(after, departmentIds),
        ip: actor.ip,
      });
      return one(trx, companyId, before.id);
    });
  }

  async function resetSecret(actor: RadiusActor, companyId: string, clientId: string) {
    if (!mayManage(actor.role)) throw new AppError('auth.forbidden');
    const secret = newSecret();
    await changeClients(companyId, async (trx) => {
      await findOne(trx, companyId, clientId);
      await repo.updateClient(trx, companyId, clientId, { secret_sealed: seal(clientId, secret) });
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'radius.client_secret_reset',
        targetType: 'radius_client',
        targetId: clientId,
        ip: actor.ip,
      });
    });
    return { secret };
  }

  async function remove(actor: RadiusActor, companyId: string, clientId: string) {
    if (!mayManage(actor.role)) throw new AppError('auth.forbidden');
    return changeClients(companyId, async (trx) => {
      const before = await findOne(trx, companyId, clientId);
      await repo.deleteClient(trx, companyId, clientId);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'radius.client_delete',
        targetType: 'radius_client',
        targetId: clientId,
        before: { name: before.name, source: before.source },
        ip: actor.ip,
      });
      return { clientId };
    });
  }

  return { list, create, update, resetSecret, remove };
}

export type RadiusService = ReturnType<typeof createRadiusService>;
