import { type Language, photoLimits } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, uniqueViolationAs } from '../../lib/errors.ts';
import { translateError } from '../../lib/i18n.ts';
import { hashPassword, UNUSABLE_PASSWORD_HASH } from '../account/password.ts';
import { assertPasswordAllowed, passwordPolicyFor } from '../account/password-policy.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { assertDepartmentsInCompany } from '../department/department.repo.ts';
import { acceptImage, fileUrl, insertFile } from '../files/files.ts';
import { isDirectoryAccount } from '../identity-source/identity-source.repo.ts';
import type { QuotaService } from '../license/quota.service.ts';
import { assertIdentifierChecksLeft, spendIdentifierChecks } from './identifier-checks.ts';
import * as users from './user.repo.ts';
import { assertMayActOn } from './user-authority.ts';
import { assertManaged, auditView, findExisting, lockExisting, toUser, type UserActor } from './user-view.ts';
import {
  insertAccount,
  insertManagedAccount,
  replaceDepartments,
  touchRecord,
  updateAccountProfile,
} from './user-write.repo.ts';

/** The refusal for a username, email or phone another account has, marking the form field. */
function takenError(lang: Language, taken: Parameters<typeof users.takenReason>[0]) {
  const found = users.takenReason(taken);
  if (!found) return undefined;
  const [reason, field] = found;
  const message = translateError(lang, reason);
  return new AppError(reason, {}, [{ field, message }], message);
}

/** A parallel request that took the same username, email or phone loses on the unique index. */
const takenByIndex = {
  accounts_username_key: 'user.username_taken',
  accounts_email_key: 'user.email_taken',
  accounts_phone_key: 'user.phone_taken',
  accounts_username_is_email: 'user.username_is_email',
  accounts_email_is_username: 'user.email_is_username',
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

/** Mails a new person the sign-in link where they choose their own password (mail/mail.service.ts). */
export interface Invitations {
  /** False without TESSERA_SMTP_URL. */
  enabled: boolean;
  send(actor: UserActor, companyId: string, userId: string, lang: Language): Promise<{ sentTo: string }>;
}

/** Who a user is: creating users (of the company, or developer accounts), their profile and photo. */
export function createUserProfileService(deps: {
  db: Db;
  quotas: Pick<QuotaService, 'takePlaces'>;
  invitations?: Invitations;
  log?: { warn(details: object, message: string): void };
}) {
  const { db, quotas } = deps;

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
    /** Without a password: the person chooses one through a sign-in link. */
    options: { invited?: boolean } = {},
  ) {
    if (companyId) await assertIdentifierChecksLeft(db, companyId);
    if (!options.invited)
      assertPasswordAllowed(
        input.password,
        { username: input.username, lang, field: 'password' },
        await passwordPolicyFor(db, companyId),
      );
    await assertIdentifiersFree(actor, lang, companyId, input);
    const passwordHash = options.invited ? UNUSABLE_PASSWORD_HASH : await hashPassword(input.password);
    return uniqueViolationAs(takenByIndex, () => inTransaction(db, (trx) => store(trx, passwordHash)));
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

  /**
   * Refuses a username, email or phone (any of them, together) that another account has, as a
   * create, update or rename would: for a caller that changes several in one transaction
   * (SCIM), checked before it, so that the identifier budget it spends is not rolled back.
   */
  async function assertIdentifiersUsable(
    actor: { accountId: string; ip: string },
    lang: Language,
    companyId: string,
    values: { username?: string; email?: string | null; phone?: string | null },
    options: { exceptAccountId?: string } = {},
  ) {
    if (!values.username && !values.email && !values.phone) return;
    await assertIdentifierChecksLeft(db, companyId);
    await assertIdentifiersFree(actor, lang, companyId, values, options);
  }

  async function create(
    actor: UserActor,
    companyId: string,
    lang: Language,
    input: NewAccountInput & {
      departmentIds?: string[];
      mustChangePassword: boolean;
      invite?: boolean;
      /** No password and no invitation: the person signs in by a sign-in link, a reset or a directory (SCIM). */
      passwordless?: boolean;
    },
  ) {
    const invited = Boolean(input.invite);
    // Refused before anything is stored: an invitation nobody can send, or to nowhere.
    if (invited && !deps.invitations?.enabled) throw new AppError('mail.not_configured');
    if (invited && !input.email)
      throw new AppError('user.no_email', {}, [
        { field: 'email', message: translateError(lang, 'user.no_email') },
      ]);
    const created = await createAccount(
      actor,
      lang,
      companyId,
      input,
      async (trx, passwordHash) => {
        if (input.departmentIds?.length)
          await assertDepartmentsInCompany(trx, companyId, input.departmentIds);
        await quotas.takePlaces(trx, companyId, 'user');
        const id = await insertManagedAccount(trx, companyId, {
          ...input,
          passwordHash,
          // The link's page makes the person choose their password.
          mustChangePassword: invited || input.mustChangePassword,
        });
        if (input.departmentIds?.length) await replaceDepartments(trx, companyId, id, input.departmentIds);
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
      },
      { invited: invited || Boolean(input.passwordless) },
    );
    if (!invited || !deps.invitations) return created;
    try {
      const { sentTo } = await deps.invitations.send(actor, companyId, created.userId, lang);
      return { ...created, invitedTo: sentTo };
    } catch (error) {
      // The person exists now: the console says the link was not sent, to be sent again from the list.
      deps.log?.warn({ err: error, userId: created.userId }, 'the invitation of a new user was not sent');
      return { ...created, invitedTo: null };
    }
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
      const id = await insertAccount(trx, { ...input, passwordHash, mustChangePassword: true }, null);
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
      inTransaction(db, async (trx) => {
        const { row, departments } = await lockExisting(trx, companyId, input.userId);
        assertMayActOn(actor.role, row.role);
        if (Object.keys(profile).length) {
          assertManaged(row);
          await updateAccountProfile(trx, row.id, profile);
        }
        if (input.departmentIds) {
          await assertDepartmentsInCompany(trx, companyId, input.departmentIds);
          await replaceDepartments(trx, companyId, row.id, input.departmentIds);
        }
        await touchRecord(trx, companyId, row.id);
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

  /**
   * Gives the person a new username: only SCIM clients do (an identity provider whose user
   * principal name changed); the console has no rename. The same identifier rules as a new
   * person's hold; everything else is keyed by the account's id, so sessions, links, LDAP entries
   * and application access carry on. A directory person's username is the directory's.
   */
  async function rename(
    actor: UserActor,
    companyId: string,
    lang: Language,
    userId: string,
    username: string,
  ) {
    const existing = await findExisting(db, companyId, userId);
    assertMayActOn(actor.role, existing.role);
    assertManaged(existing);
    if (existing.username === username) return;
    if (await isDirectoryAccount(db, existing.id)) throw new AppError('user.directory_managed');
    if (existing.username.toLowerCase() !== username.toLowerCase()) {
      await assertIdentifierChecksLeft(db, companyId);
      await assertIdentifiersFree(actor, lang, companyId, { username }, { exceptAccountId: existing.id });
    }
    await uniqueViolationAs(takenByIndex, () =>
      inTransaction(db, async (trx) => {
        const { row } = await lockExisting(trx, companyId, userId);
        await trx.updateTable('accounts').set({ username }).where('id', '=', row.id).execute();
        await touchRecord(trx, companyId, row.id);
        await insertAuditEvent(trx, {
          companyId,
          actorAccountId: actor.accountId,
          action: 'user.rename',
          targetType: 'user',
          targetId: row.id,
          before: { username: row.username },
          after: { username },
          ip: actor.ip,
        });
      }),
    );
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
    return inTransaction(db, async (trx) => {
      const { row, departments } = await lockExisting(trx, companyId, userId);
      assertMayActOn(actor.role, row.role);
      assertManaged(row);
      const image = await acceptImage(upload, allowed);
      const fileId = await insertFile(trx, companyId, image.contentType, image.bytes);
      await updateAccountProfile(trx, row.id, { photo_file_id: fileId });
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

  return { create, createDevUser, update, rename, uploadPhoto, assertIdentifiersUsable };
}
