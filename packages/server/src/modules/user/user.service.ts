import {
  type ErrorReason,
  type Language,
  type MemberRole,
  photoLimits,
  serverPhrases,
  type UserSortField,
  type UserStatus,
} from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import { AppError, uniqueViolationAs } from '../../lib/errors.ts';
import { translateError } from '../../lib/i18n.ts';
import { hashPassword } from '../account/password.ts';
import { assertPasswordAllowed, passwordPolicyFor } from '../account/password-policy.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { assertDepartmentsInCompany, subtreeIds } from '../department/department.repo.ts';
import { acceptImage, fileUrl, insertFile } from '../files/files.ts';
import { isDirectoryAccount } from '../identity-source/identity-source.repo.ts';
import type { QuotaService } from '../license/quota.service.ts';
import type { NotifyCredentialChange } from '../mail/credential-notices.ts';
import { type AccountSignOut, signOutScopeOf, withSignOut } from '../oidc/sign-out.ts';
import { assertIdentifierChecksLeft, spendIdentifierChecks } from './identifier-checks.ts';
import * as users from './user.repo.ts';
import { assertMayActOn } from './user-authority.ts';
import { removePerson } from './user-removal.ts';
import { changeUserStatus } from './user-status.ts';

export interface UserActor {
  accountId: string;
  ip: string;
  role: MemberRole;
}

type Departments = Map<string, { departmentId: string; name: string }[]>;

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** The user as the contract describes it (`user` of calls/user.ts). */
function toUser(row: users.UserRow, departments: Departments) {
  const lockedUntil = row.locked_until && row.locked_until > new Date() ? row.locked_until : null;
  return {
    userId: row.id,
    username: row.username,
    name: row.display_name,
    nickname: row.nickname,
    email: row.email,
    phone: row.phone,
    photo: fileUrl(row.photo_file_id),
    status: row.status,
    role: row.role,
    isOwner: row.role === 'owner',
    managed: row.fully_managed,
    mustChangePassword: row.must_change_password,
    loginCount: row.login_count,
    lastLoginAt: iso(row.last_login_at),
    failedCount: row.failed_count,
    lastFailedAt: iso(row.last_failed_at),
    lockedUntil: iso(lockedUntil),
    departments: departments.get(row.id) ?? [],
    createdAt: row.created_at.toISOString(),
  };
}

/** What the audit trail keeps of a user (no password material). */
const auditView = (row: users.UserRow, departments: Departments) => ({
  username: row.username,
  name: row.display_name,
  nickname: row.nickname,
  email: row.email,
  phone: row.phone,
  status: row.status,
  mustChangePassword: row.must_change_password,
  departments: (departments.get(row.id) ?? []).map((d) => d.departmentId),
});

/** The refusal for a username, email or phone another account has, marking the form field. */
function takenError(lang: Language, taken: { username: boolean; email: boolean; phone: boolean }) {
  const [reason, field]: [ErrorReason, string] | [undefined, undefined] = taken.username
    ? ['user.username_taken', 'username']
    : taken.email
      ? ['user.email_taken', 'email']
      : taken.phone
        ? ['user.phone_taken', 'phone']
        : [undefined, undefined];
  if (!reason) return undefined;
  const message = translateError(lang, reason);
  return new AppError(reason, {}, [{ field, message }], message);
}

/** The user record of the company; another company's user is not found. */
async function findExisting(from: Db, companyId: string, accountId: string) {
  const row = await users.findUser(from, companyId, accountId);
  if (!row) throw new AppError('user.not_found');
  return row;
}

/** A parallel request that took the same username, email or phone loses on the unique index. */
const takenByIndex = {
  accounts_username_key: 'user.username_taken',
  accounts_email_key: 'user.email_taken',
  accounts_phone_key: 'user.phone_taken',
} as const;

/** A new account's identity and password, as the forms send them. */
interface NewAccountInput {
  username: string;
  password: string;
  name?: string | null;
  nickname?: string | null;
  email?: string | null;
  phone?: string | null;
}

export function createUserService(deps: {
  db: Db;
  quotas: Pick<QuotaService, 'takePlaces'>;
  /** Tells the person of a credential change an administrator made (mail/credential-notices.ts). */
  notifyCredentialChange?: NotifyCredentialChange;
  /** Tells the person's applications when a disable, lock, reset or removal ends their sessions. */
  signOut: Pick<AccountSignOut, 'prepare'>;
}) {
  const { db, quotas } = deps;

  async function present(from: Db, companyId: string, accountId: string) {
    const row = await findExisting(from, companyId, accountId);
    return toUser(row, await users.findDepartmentRefs(from, companyId, [row.id]));
  }

  /** The user record, locked for the transaction; another company's user is not found. */
  async function lockExisting(trx: Db, companyId: string, userId: string) {
    const row = await users.lockUser(trx, companyId, userId);
    if (!row) throw new AppError('user.not_found');
    return { row, departments: await users.findDepartmentRefs(trx, companyId, [row.id]) };
  }

  /**
   * Creates an account: the password and the identifiers are checked and the password hashed
   * (slow) before the transaction that `store` runs in; a parallel request that took the same
   * username, email or phone meanwhile loses on the unique index.
   */
  async function createAccount<T>(
    actor: { accountId: string; ip: string },
    lang: Language,
    /** The company whose password rules apply (null: the defaults, for developer accounts). */
    companyId: string | null,
    input: NewAccountInput,
    store: (trx: Db, passwordHash: string) => Promise<T>,
  ) {
    if (companyId) await assertIdentifierChecksLeft(db, companyId);
    assertPasswordAllowed(
      input.password,
      { username: input.username, lang, field: 'password' },
      await passwordPolicyFor(db, companyId),
    );
    await assertIdentifiersFree(actor, lang, companyId, input);
    const passwordHash = await hashPassword(input.password);
    return uniqueViolationAs(takenByIndex, () => db.transaction().execute((trx) => store(trx, passwordHash)));
  }

  /**
   * Refuses identifiers another account has; an answer that depends on accounts outside the
   * company spends one of its identifier checks first (identifier-checks.ts).
   */
  async function assertIdentifiersFree(
    actor: { accountId: string; ip: string },
    lang: Language,
    companyId: string | null,
    values: { username?: string; email?: string | null; phone?: string | null },
    options: { exceptAccountId?: string } = {},
  ) {
    const found = await users.findTakenIdentifiers(db, values, {
      companyId,
      exceptAccountId: options.exceptAccountId,
    });
    const taken = takenError(lang, found);
    if (!taken) return;
    if (companyId && found.elsewhere) await spendIdentifierChecks(db, companyId, actor, values);
    throw taken;
  }

  /** The company may change the account itself (not only its record): see user-authority.ts. */
  const assertManaged = (row: users.UserRow) => {
    if (!row.fully_managed) throw new AppError('user.not_managed');
  };

  async function list(
    companyId: string,
    query: {
      keyword?: string;
      status?: UserStatus;
      departmentId?: string;
      includeSubDepartments: boolean;
      sortBy: UserSortField;
      sortOrder: 'asc' | 'desc';
      page: number;
      pageSize: number;
    },
  ) {
    let departmentIds: string[] | undefined;
    if (query.departmentId) {
      if (query.includeSubDepartments) departmentIds = await subtreeIds(db, companyId, query.departmentId);
      else {
        await assertDepartmentsInCompany(db, companyId, [query.departmentId]);
        departmentIds = [query.departmentId];
      }
    }
    const { rows, total } = await users.findUsers(db, companyId, { ...query, departmentIds });
    const departments = await users.findDepartmentRefs(
      db,
      companyId,
      rows.map((r) => r.id),
    );
    return { list: rows.map((row) => toUser(row, departments)), total };
  }

  const detail = (companyId: string, userId: string) => present(db, companyId, userId);

  async function create(
    actor: UserActor,
    companyId: string,
    lang: Language,
    input: NewAccountInput & { departmentIds?: string[]; mustChangePassword: boolean },
  ) {
    return createAccount(actor, lang, companyId, input, async (trx, passwordHash) => {
      if (input.departmentIds?.length) await assertDepartmentsInCompany(trx, companyId, input.departmentIds);
      await quotas.takePlaces(trx, companyId, 'user');
      const id = await users.insertManagedAccount(trx, companyId, { ...input, passwordHash });
      if (input.departmentIds?.length)
        await users.replaceDepartments(trx, companyId, id, input.departmentIds);
      const row = await findExisting(trx, companyId, id);
      const departments = await users.findDepartmentRefs(trx, companyId, [id]);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'user.create',
        targetType: 'user',
        targetId: id,
        after: auditView(row, departments),
        ip: actor.ip,
      });
      return toUser(row, departments);
    });
  }

  /**
   * A developer account (admin console, platform administrators only): it belongs to no company
   * and creates its own in the developer console. It takes a place in the licence's user quantity.
   */
  async function createDevUser(
    actor: { accountId: string; ip: string; isPlatformAdmin: boolean },
    lang: Language,
    input: NewAccountInput,
  ) {
    if (!actor.isPlatformAdmin) throw new AppError('user.dev_user_admin_only');
    return createAccount(actor, lang, null, input, async (trx, passwordHash) => {
      await quotas.takePlaces(trx, null, 'user');
      // The operator chose the password: the developer replaces it at the first sign-in.
      const id = await users.insertAccount(trx, { ...input, passwordHash, mustChangePassword: true }, null);
      await insertAuditEvent(trx, {
        companyId: null,
        actorAccountId: actor.accountId,
        action: 'user.create',
        targetType: 'user',
        targetId: id,
        after: {
          kind: 'developer',
          username: input.username,
          name: input.name ?? null,
          email: input.email ?? null,
          phone: input.phone ?? null,
        },
        ip: actor.ip,
      });
      return { userId: id, username: input.username };
    });
  }

  async function update(
    actor: UserActor,
    companyId: string,
    lang: Language,
    input: {
      userId: string;
      name?: string | null;
      nickname?: string | null;
      email?: string | null;
      phone?: string | null;
      departmentIds?: string[];
      mustChangePassword?: boolean;
    },
  ) {
    const profile = {
      ...(input.name !== undefined ? { display_name: input.name } : {}),
      ...(input.nickname !== undefined ? { nickname: input.nickname } : {}),
      ...(input.email !== undefined ? { email: input.email } : {}),
      ...(input.phone !== undefined ? { phone: input.phone } : {}),
      ...(input.mustChangePassword !== undefined ? { must_change_password: input.mustChangePassword } : {}),
    };
    // A directory person's name, email and phone come from the directory (the next sync would undo a change).
    if (
      input.name !== undefined ||
      input.email !== undefined ||
      input.phone !== undefined ||
      input.mustChangePassword
    ) {
      const target = await findExisting(db, companyId, input.userId);
      const changes =
        (input.name !== undefined && input.name !== target.display_name) ||
        (input.email !== undefined && input.email !== target.email) ||
        (input.phone !== undefined && input.phone !== target.phone) ||
        (input.mustChangePassword === true && !target.must_change_password);
      if (changes && (await isDirectoryAccount(db, target.id))) throw new AppError('user.directory_managed');
    }
    const changesIdentifiers = Boolean(input.email || input.phone);
    if (changesIdentifiers) {
      // Checked before the transaction (whose lock the budget's own statements must not wait
      // for); the unique indexes stay the last word for a parallel change.
      const existing = await findExisting(db, companyId, input.userId);
      assertMayActOn(actor.role, existing.role);
      assertManaged(existing);
      await assertIdentifierChecksLeft(db, companyId);
      await assertIdentifiersFree(
        actor,
        lang,
        companyId,
        { email: input.email, phone: input.phone },
        { exceptAccountId: existing.id },
      );
    }
    return uniqueViolationAs(takenByIndex, () =>
      db.transaction().execute(async (trx) => {
        const { row, departments } = await lockExisting(trx, companyId, input.userId);
        assertMayActOn(actor.role, row.role);
        if (Object.keys(profile).length) {
          assertManaged(row);
          await users.updateAccountProfile(trx, row.id, profile);
        }
        if (input.departmentIds) {
          await assertDepartmentsInCompany(trx, companyId, input.departmentIds);
          await users.replaceDepartments(trx, companyId, row.id, input.departmentIds);
        }
        await users.touchRecord(trx, companyId, row.id);
        const after = await findExisting(trx, companyId, row.id);
        const afterDepartments = await users.findDepartmentRefs(trx, companyId, [row.id]);
        await insertAuditEvent(trx, {
          companyId,
          actorAccountId: actor.accountId,
          action: 'user.update',
          targetType: 'user',
          targetId: row.id,
          before: auditView(row, departments),
          after: auditView(after, afterDepartments),
          ip: actor.ip,
        });
        return toUser(after, afterDepartments);
      }),
    );
  }

  /** The owner and the caller keep their standing: they cannot be disabled, locked or removed. */
  const assertChangeable = (actor: UserActor, row: users.UserRow) => {
    if (row.role === 'owner') throw new AppError('user.owner_protected');
    if (row.id === actor.accountId) throw new AppError('user.self_change');
  };

  async function setStatus(actor: UserActor, companyId: string, userId: string, status: UserStatus) {
    return withSignOut(db, deps.signOut, async (trx, signOutBefore) => {
      const { row, departments } = await lockExisting(trx, companyId, userId);
      // Disabling or locking an enabled record ends the person's sessions (at the company's apps,
      // or everywhere for an account the company fully manages): their apps are told.
      if (status !== 'enabled' && row.record_status === 'enabled')
        await signOutBefore(row.id, signOutScopeOf(row, companyId));
      const after = await changeUserStatus(trx, actor, companyId, row, status);
      return toUser(after, departments);
    });
  }

  async function resetPassword(
    actor: UserActor,
    companyId: string,
    lang: Language,
    input: { userId: string; password: string; mustChangePassword: boolean },
  ) {
    // Checked before the (slow) hash, and again under the lock below.
    const existing = await findExisting(db, companyId, input.userId);
    assertMayActOn(actor.role, existing.role);
    assertManaged(existing);
    // A directory person's password is the directory's: a local one would be a stale way in.
    if (await isDirectoryAccount(db, existing.id)) throw new AppError('user.directory_managed');
    assertPasswordAllowed(
      input.password,
      { username: existing.username, lang, field: 'password' },
      await passwordPolicyFor(db, companyId),
    );
    const passwordHash = await hashPassword(input.password);
    const user = await withSignOut(db, deps.signOut, async (trx, signOutBefore) => {
      const { row, departments } = await lockExisting(trx, companyId, input.userId);
      assertMayActOn(actor.role, row.role);
      assertManaged(row);
      // Raises the credential version: every session, grant and token of the account ends.
      await signOutBefore(row.id);
      await users.setPassword(trx, row.id, passwordHash, input.mustChangePassword);
      const after = await findExisting(trx, companyId, row.id);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'user.password_reset',
        targetType: 'user',
        targetId: row.id,
        before: { username: row.username, mustChangePassword: row.must_change_password },
        after: { username: row.username, mustChangePassword: input.mustChangePassword, sessionsEnded: true },
        ip: actor.ip,
      });
      return toUser(after, departments);
    });
    await deps.notifyCredentialChange?.(user.userId, companyId, 'password_reset');
    return user;
  }

  async function uploadPhoto(
    actor: UserActor,
    companyId: string,
    userId: string,
    upload: Buffer,
    allowed: readonly string[],
  ) {
    if (upload.length > photoLimits.bytes)
      throw new AppError('upload.too_large', { limit: `${photoLimits.bytes / 1024 / 1024} MiB` });
    return db.transaction().execute(async (trx) => {
      const { row, departments } = await lockExisting(trx, companyId, userId);
      assertMayActOn(actor.role, row.role);
      assertManaged(row);
      const image = await acceptImage(upload, allowed);
      const fileId = await insertFile(trx, companyId, image.contentType, image.bytes);
      await users.updateAccountProfile(trx, row.id, { photo_file_id: fileId });
      if (row.photo_file_id) await trx.deleteFrom('files').where('id', '=', row.photo_file_id).execute();
      const after = await findExisting(trx, companyId, row.id);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'user.photo',
        targetType: 'user',
        targetId: row.id,
        before: { username: row.username, photo: fileUrl(row.photo_file_id) },
        after: {
          username: row.username,
          photo: fileUrl(fileId),
          contentType: image.contentType,
          bytes: image.bytes.length,
        },
        ip: actor.ip,
      });
      return toUser(after, departments);
    });
  }

  /** Removes the user from the company (see removePerson: a fully managed account ends with it). */
  async function remove(actor: UserActor, companyId: string, userId: string) {
    return withSignOut(db, deps.signOut, async (trx, signOutBefore) => {
      const { row, departments } = await lockExisting(trx, companyId, userId);
      assertChangeable(actor, row);
      assertMayActOn(actor.role, row.role);
      await signOutBefore(row.id, signOutScopeOf(row, companyId));
      await removePerson(trx, actor, companyId, row, {
        action: 'user.delete',
        before: { ...auditView(row, departments), role: row.role },
      });
      return { userId: row.id };
    });
  }

  async function log(
    companyId: string,
    lang: Language,
    query: { userId: string; page: number; pageSize: number },
  ) {
    const row = await findExisting(db, companyId, query.userId);
    const { rows, total } = await users.findLoginEvents(db, companyId, row.id, query.page, query.pageSize);
    const causes = serverPhrases[lang].loginCauses as Record<string, string>;
    return {
      list: rows.map((event) => ({
        time: event.created_at.toISOString(),
        result: event.result,
        cause: event.failure_cause,
        causeText: event.failure_cause ? (causes[event.failure_cause] ?? event.failure_cause) : null,
        clientId: event.client_id,
        ip: event.ip,
        userAgent: event.user_agent,
      })),
      total,
    };
  }

  async function selfDetails(accountId: string) {
    const account = await users.findSelf(db, accountId);
    if (!account) throw new AppError('auth.login_required');
    return {
      userId: account.id,
      username: account.username,
      name: account.display_name,
      nickname: account.nickname,
      photo: fileUrl(account.photo_file_id),
    };
  }

  return {
    list,
    detail,
    create,
    createDevUser,
    update,
    setStatus,
    resetPassword,
    uploadPhoto,
    remove,
    log,
    selfDetails,
  };
}

export type UserService = ReturnType<typeof createUserService>;
