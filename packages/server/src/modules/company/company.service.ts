import type { ConsoleVariant, Language, MemberRole } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { randomToken } from '../../lib/crypto.ts';
import { AppError, uniqueViolationAs } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { hashPassword } from '../account/password.ts';
import { assertPasswordAllowed, passwordPolicyFor } from '../account/password-policy.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { assertConsoleRoleExists } from '../console-role/console-role.repo.ts';
import { ensureRoot } from '../department/department.repo.ts';
import { acceptImage, fileUrl, insertFile } from '../files/files.ts';
import type { QuotaService } from '../license/quota.service.ts';
import { type AccountSignOut, signOutScopeOf, withSignOut } from '../oidc/sign-out.ts';
import type { PlatformService } from '../platform/platform.service.ts';
import { assertIdentifierChecksLeft, spendIdentifierChecks } from '../user/identifier-checks.ts';
import { findTakenIdentifiers, lockUser, takenReason } from '../user/user.repo.ts';
import { assertMayActOn, assertMayGrant } from '../user/user-authority.ts';
import { removePerson } from '../user/user-removal.ts';
import type { CompaniesRepo } from './company.repo.ts';

type GivenRole = Exclude<MemberRole, 'owner'>;

export interface Actor {
  accountId: string;
  ip: string;
}

const toMember = (row: {
  id: string;
  username: string;
  email: string | null;
  phone: string | null;
  role: MemberRole;
  created_at: Date;
  console_role_id: string | null;
  console_role_name: string | null;
}) => ({
  userId: row.id,
  username: row.username,
  email: row.email,
  phone: row.phone,
  role: row.role,
  consoleRole:
    row.console_role_id && row.console_role_name
      ? { roleId: row.console_role_id, name: row.console_role_name }
      : null,
  isOwner: row.role === 'owner',
  createdAt: row.created_at.toISOString(),
});

export function createCompanyService(deps: {
  db: Db;
  companies: CompaniesRepo;
  quotas: Pick<QuotaService, 'takePlaces' | 'assignDefaults'>;
  /** Tells a removed person's applications that their sessions ended. */
  signOut: Pick<AccountSignOut, 'prepare'>;
  /** Who may create companies on this installation (the platform setting). */
  creation: Pick<PlatformService, 'assertMayCreateCompany'>;
}) {
  const { db, companies, quotas } = deps;

  async function detail(companyId: string, from: Db = db) {
    const row = await companies.findCompanyById(from, companyId);
    if (!row) throw new AppError('company.not_found');
    return {
      companyId: row.id,
      name: row.name,
      key: row.client_key,
      code: row.code,
      icon: fileUrl(row.icon_file_id),
      defaultLanguage: row.default_language,
      ownerUsername: row.owner_username,
      createdAt: row.created_at.toISOString(),
    };
  }

  async function listMine(accountId: string) {
    const rows = await companies.findCompaniesAdministeredBy(accountId);
    return {
      list: rows.length
        ? rows.map((row) => ({
            companyId: row.id,
            name: row.name,
            icon: fileUrl(row.icon_file_id),
            isOwner: row.role === 'owner',
          }))
        : null,
    };
  }

  async function create(actor: Actor & { isPlatformAdmin: boolean }, variant: ConsoleVariant, name: string) {
    if (variant !== 'dev') throw new AppError('company.create_dev_only');
    await deps.creation.assertMayCreateCompany(actor);
    return db.transaction().execute(async (trx) => {
      const id = newId();
      const company = {
        id,
        name,
        client_key: randomToken(24),
        default_language: 'en' as const,
        owner_account_id: actor.accountId,
      };
      await trx.insertInto('companies').values(company).execute();
      await trx
        .insertInto('company_members')
        .values({ company_id: id, account_id: actor.accountId, role: 'owner' })
        .execute();
      // The root department, named after the company, is born with it.
      await ensureRoot(trx, id);
      await quotas.assignDefaults(trx, id);
      await insertAuditEvent(trx, {
        companyId: id,
        actorAccountId: actor.accountId,
        action: 'company.create',
        targetType: 'company',
        targetId: id,
        after: { name },
        ip: actor.ip,
      });
      return detail(id, trx);
    });
  }

  async function update(
    actor: Actor,
    companyId: string,
    patch: { name?: string; defaultLanguage?: 'en' | 'zh' },
  ) {
    // The brand (modules/brand) is the one place that writes the default language.
    if (patch.defaultLanguage !== undefined) throw new AppError('company.default_language_on_brand');
    return db.transaction().execute(async (trx) => {
      const before = await detail(companyId, trx);
      const set = patch.name !== undefined ? { name: patch.name } : {};
      if (Object.keys(set).length)
        await trx.updateTable('companies').set(set).where('id', '=', companyId).execute();
      const after = await detail(companyId, trx);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'company.update',
        targetType: 'company',
        targetId: companyId,
        before: { name: before.name },
        after: { name: after.name },
        ip: actor.ip,
      });
      return after;
    });
  }

  async function resetKey(actor: Actor, companyId: string) {
    return db.transaction().execute(async (trx) => {
      await trx
        .updateTable('companies')
        .set({ client_key: randomToken(24) })
        .where('id', '=', companyId)
        .execute();
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'company.reset_key',
        targetType: 'company',
        targetId: companyId,
        ip: actor.ip,
      });
      return detail(companyId, trx);
    });
  }

  async function updateIcon(actor: Actor, companyId: string, upload: Buffer, allowed: readonly string[]) {
    const image = await acceptImage(upload, allowed);
    return db.transaction().execute(async (trx) => {
      const before = await detail(companyId, trx);
      const fileId = await insertFile(trx, companyId, image.contentType, image.bytes);
      await trx.updateTable('companies').set({ icon_file_id: fileId }).where('id', '=', companyId).execute();
      const previous = before.icon?.split('/').pop();
      if (previous)
        await trx
          .deleteFrom('files')
          .where('id', '=', previous)
          .where('company_id', '=', companyId)
          .execute();
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'company.update_icon',
        targetType: 'company',
        targetId: companyId,
        before: { icon: before.icon },
        after: { icon: fileUrl(fileId), contentType: image.contentType, bytes: image.bytes.length },
        ip: actor.ip,
      });
      return { icon: fileUrl(fileId) as string };
    });
  }

  async function members(
    companyId: string,
    query: { page: number; pageSize: number; keyword?: string; adminsOnly?: boolean },
  ) {
    const { rows, total } = await companies.findMembers(
      companyId,
      query.page,
      query.pageSize,
      query.keyword,
      query.adminsOnly,
    );
    return { list: rows.map(toMember), total };
  }

  /**
   * Adds an administrator or member by creating their account. An account that already exists
   * (in another company, perhaps) is never linked silently: that would let one company look up
   * another company's people by username. People join a second company by creating it, or by
   * an invitation they accept.
   */
  async function addMember(
    actor: Actor & { role: MemberRole },
    companyId: string,
    input: {
      username: string;
      role: GivenRole;
      consoleRoleId?: string;
      password?: string;
      email?: string;
    },
    lang: Language = 'en',
  ) {
    assertMayGrant(actor.role, input.role);
    const consoleRoleId = input.role === 'delegated_admin' ? input.consoleRoleId : undefined;
    if (input.role === 'delegated_admin' && !consoleRoleId) throw new AppError('console_role.required');
    if (consoleRoleId) await assertConsoleRoleExists(db, companyId, consoleRoleId);
    if (!input.password) throw new AppError('member.password_required');
    assertPasswordAllowed(
      input.password,
      { username: input.username, lang, field: 'password' },
      await passwordPolicyFor(db, companyId),
    );
    // An answer that depends on other companies' people spends an identifier check (identifier-checks.ts).
    await assertIdentifierChecksLeft(db, companyId);
    const taken = await findTakenIdentifiers(
      db,
      { username: input.username, email: input.email },
      { companyId },
    );
    const refusal = takenReason(taken);
    if (refusal) {
      if (taken.elsewhere)
        await spendIdentifierChecks(db, companyId, actor, { username: input.username, email: input.email });
      throw new AppError(
        taken.username ? 'member.username_taken' : taken.email ? 'member.email_taken' : refusal[0],
      );
    }
    const passwordHash = await hashPassword(input.password);
    return uniqueViolationAs(
      {
        accounts_username_key: 'member.username_taken',
        accounts_email_key: 'member.email_taken',
        accounts_username_is_email: 'user.username_is_email',
        accounts_email_is_username: 'user.email_is_username',
      },
      () =>
        db.transaction().execute(async (trx) => {
          await quotas.takePlaces(trx, companyId, 'user');
          const accountId = newId();
          await trx
            .insertInto('accounts')
            .values({
              id: accountId,
              username: input.username,
              email: input.email ?? null,
              phone: null,
              display_name: null,
              password_hash: passwordHash,
              status: 'enabled',
              // The company created the account: it manages its profile and password.
              home_company_id: companyId,
            })
            .execute();
          await trx
            .insertInto('company_members')
            .values({
              company_id: companyId,
              account_id: accountId,
              role: input.role,
              console_role_id: consoleRoleId ?? null,
            })
            .execute();
          const member = await companies.findMember(trx, companyId, accountId);
          if (!member) throw new AppError('member.not_found');
          await insertAuditEvent(trx, {
            companyId,
            actorAccountId: actor.accountId,
            action: 'company.member.add',
            targetType: 'account',
            targetId: accountId,
            after: {
              username: member.username,
              role: member.role,
              consoleRole: member.console_role_name,
              email: member.email,
            },
            ip: actor.ip,
          });
          return toMember(member);
        }),
    );
  }

  /**
   * Gives a person of the company another role (spec §6): never the owner's, never to oneself,
   * and only on a person the caller may act on, to a role the caller may give.
   */
  async function setMemberRole(
    actor: Actor & { role: MemberRole },
    companyId: string,
    input: { userId: string; role: GivenRole; consoleRoleId?: string },
  ) {
    return db.transaction().execute(async (trx) => {
      const person = await lockUser(trx, companyId, input.userId);
      if (!person) throw new AppError('member.not_found');
      if (person.role === 'owner') throw new AppError('member.owner_protected');
      if (person.id === actor.accountId) throw new AppError('member.self_role');
      assertMayActOn(actor.role, person.role);
      assertMayGrant(actor.role, input.role);
      const consoleRoleId = input.role === 'delegated_admin' ? input.consoleRoleId : undefined;
      if (input.role === 'delegated_admin' && !consoleRoleId) throw new AppError('console_role.required');
      if (consoleRoleId) await assertConsoleRoleExists(trx, companyId, consoleRoleId);
      const before = await companies.findMember(trx, companyId, person.id);
      await trx
        .updateTable('company_members')
        .set({ role: input.role, console_role_id: consoleRoleId ?? null, updated_at: sql`now()` })
        .where('company_id', '=', companyId)
        .where('account_id', '=', person.id)
        .execute();
      const after = await companies.findMember(trx, companyId, person.id);
      if (!before || !after) throw new AppError('member.not_found');
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'company.member.role',
        targetType: 'account',
        targetId: person.id,
        before: { username: before.username, role: before.role, consoleRole: before.console_role_name },
        after: { username: after.username, role: after.role, consoleRole: after.console_role_name },
        ip: actor.ip,
      });
      return toMember(after);
    });
  }

  /** Takes a person out of the company: the same removal as the users screen's (see removePerson). */
  async function removeMember(actor: Actor & { role: MemberRole }, companyId: string, userId: string) {
    return withSignOut(db, deps.signOut, async (trx, signOutBefore) => {
      const member = await lockUser(trx, companyId, userId);
      if (!member) throw new AppError('member.not_found');
      if (member.role === 'owner') throw new AppError('member.owner_protected');
      if (member.id === actor.accountId) throw new AppError('member.self_removal');
      assertMayActOn(actor.role, member.role);
      await signOutBefore(member.id, signOutScopeOf(member, companyId));
      await removePerson(trx, actor, companyId, member, {
        action: 'company.member.remove',
        before: { username: member.username, role: member.role },
      });
      return { userId };
    });
  }

  return {
    detail,
    listMine,
    create,
    update,
    resetKey,
    updateIcon,
    members,
    addMember,
    setMemberRole,
    removeMember,
  };
}

export type CompanyService = ReturnType<typeof createCompanyService>;
