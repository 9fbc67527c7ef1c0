import type { Language } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import { assertPasswordAllowed, passwordPolicyFor } from '../account/password-policy.ts';
import { findRoot } from '../department/department.repo.ts';
import { findDepartmentRefs } from '../user/user.repo.ts';
import type { UserService } from '../user/user.service.ts';
import type { UserActor } from '../user/user-view.ts';
import { invalidValue, notFound, ScimError } from './scim-errors.ts';
import { type Filter, matches, parseFilter, prop } from './scim-filter.ts';
import { userFilterSql, userSortColumn } from './scim-filter-sql.ts';
import { findRoleRefs } from './scim-groups.repo.ts';
import { applyPatch, type PatchShape, readPatch } from './scim-patch.ts';
import { assertIfMatch, pageOf, queryParam, selectAttributes } from './scim-resource.ts';
import { ENTERPRISE_SCHEMA, LIST_SCHEMA, MAX_RESULTS, USER_SCHEMA } from './scim-schemas.ts';
import { allowsPasswords } from './scim-tokens.repo.ts';
import type { ScimCaller } from './scim-tokens.service.ts';
import { type DesiredUser, readUser, toScimUser } from './scim-user-map.ts';
import * as repo from './scim-users.repo.ts';

/**
 * /Users: the company's people, read and changed through the user services the console uses,
 * so identifier uniqueness, quotas, the audit log (actor `scim:<token name>`) and the tenant wall
 * hold exactly as there. People created here have no password (they sign in by a sign-in link or
 * a reset) unless the company lets SCIM set passwords.
 */

type Doc = Record<string, unknown>;

/** Filters that need the resources themselves read at most this many people. */
const MEMORY_FILTER_MAX = 20_000;

const userShape: PatchShape = {
  isMulti: (name) =>
    [
      'emails',
      'phonenumbers',
      'groups',
      'addresses',
      'ims',
      'photos',
      'roles',
      'entitlements',
      'x509certificates',
    ].includes(name),
  canonical: (name) => {
    const known = [
      'userName',
      'displayName',
      'nickName',
      'externalId',
      'phoneNumbers',
      'preferredLanguage',
      'userType',
    ];
    return known.find((k) => k.toLowerCase() === name.toLowerCase()) ?? name;
  },
  readOnly: new Set(['id', 'meta', 'groups', 'schemas']),
};

export const actorOf = (caller: ScimCaller): UserActor => ({
  accountId: `scim:${caller.tokenName}`,
  ip: caller.ip,
  role: 'admin',
});

export function createScimUserService(deps: {
  db: Db;
  users: UserService;
  baseUrlOf(companyId: string): string;
}) {
  const { db, users } = deps;

  /** The groups of these people as the token sees Groups: departments (not the root) or roles. */
  async function groupsOf(caller: ScimCaller, ids: string[]) {
    const { companyId } = caller;
    if (caller.groupsAs === 'roles') return findRoleRefs(db, companyId, ids);
    const [departments, root] = await Promise.all([
      findDepartmentRefs(db, companyId, ids),
      findRoot(db, companyId),
    ]);
    const byAccount = new Map<string, { id: string; name: string }[]>();
    for (const [accountId, list] of departments)
      byAccount.set(
        accountId,
        list.filter((d) => d.departmentId !== root?.id).map((d) => ({ id: d.departmentId, name: d.name })),
      );
    return byAccount;
  }

  /** The SCIM Users of these rows: their groups and their managers' names. */
  async function present(caller: ScimCaller, rows: repo.ScimUserRow[]) {
    const { companyId } = caller;
    const groups = await groupsOf(
      caller,
      rows.map((r) => r.id),
    );
    const managerIds = [
      ...new Set(
        rows
          .map((r) => ((r.attributes ?? {}) as { enterprise?: { manager?: string } }).enterprise?.manager)
          .filter(Boolean),
      ),
    ] as string[];
    const managers = managerIds.length ? await repo.findScimUsers(db, companyId, { ids: managerIds }) : [];
    const managerName = (id: string) => {
      const m = managers.find((r) => r.id === id);
      return m ? (m.display_name ?? m.username) : undefined;
    };
    const baseUrl = deps.baseUrlOf(companyId);
    return rows.map((row) => toScimUser(row, groups.get(row.id) ?? [], baseUrl, managerName));
  }

  async function get(caller: ScimCaller, id: string): Promise<Doc> {
    const row = id.length <= 64 ? await repo.findScimUser(db, caller.companyId, id) : undefined;
    if (!row) throw notFound();
    return (await present(caller, [row]))[0] as Doc;
  }

  async function list(caller: ScimCaller, query: Record<string, unknown>) {
    const { companyId } = caller;
    const filterText = queryParam(query, 'filter');
    const filter: Filter | undefined = filterText ? parseFilter(filterText) : undefined;
    const { startIndex, count } = pageOf(
      { startIndex: queryParam(query, 'startIndex'), count: queryParam(query, 'count') },
      MAX_RESULTS,
    );
    const sortBy = queryParam(query, 'sortBy');
    const descending = queryParam(query, 'sortOrder')?.toLowerCase() === 'descending';
    const where = filter ? userFilterSql(filter) : undefined;
    const sortColumn = sortBy ? userSortColumn(sortBy) : undefined;
    let resources: Doc[];
    let total: number;
    if ((!filter || where) && (!sortBy || sortColumn)) {
      total = await repo.countScimUsers(db, companyId, where);
      const rows = count
        ? await repo.findScimUsers(db, companyId, {
            where,
            orderBy: sortColumn?.expr,
            descending,
            offset: startIndex - 1,
            limit: count,
          })
        : [];
      resources = await present(caller, rows);
    } else {
      // An attribute without a column: the filter and sort run over the resources.
      if ((await repo.countScimUsers(db, companyId)) > MEMORY_FILTER_MAX)
        throw new ScimError('scim.too_many', 'tooMany', {
          why: 'filter on userName, externalId, emails, active or dates',
        });
      const all = (await present(caller, await repo.findScimUsers(db, companyId, {}))).filter(
        (resource) => !filter || matches(resource, filter),
      );
      if (sortBy) sortResources(all, sortBy, descending);
      total = all.length;
      resources = all.slice(startIndex - 1, startIndex - 1 + count);
    }
    return listResponse(resources, total, startIndex, query);
  }

  const listResponse = (
    resources: Doc[],
    total: number,
    startIndex: number,
    query: Record<string, unknown>,
  ) => ({
    schemas: [LIST_SCHEMA],
    totalResults: total,
    startIndex,
    itemsPerPage: resources.length,
    Resources: resources.map((r) => shape(r, query)),
  });

  async function assertManager(companyId: string, managerId: string | null, self?: string) {
    if (!managerId) return;
    if (managerId === self || !(await repo.findScimUser(db, companyId, managerId)))
      throw invalidValue('manager must be another user of this company');
  }

  async function assertExternalIdFree(companyId: string, externalId: string | null, self?: string) {
    if (externalId && (await repo.externalIdTaken(db, companyId, externalId, self)))
      throw new ScimError('scim.uniqueness', 'uniqueness', { attribute: 'externalId' });
  }

  async function assertPasswordUsable(companyId: string, lang: Language, desired: DesiredUser) {
    if (desired.password === undefined) return;
    if (!(await allowsPasswords(db, companyId)))
      throw new ScimError('scim.password_not_allowed', 'invalidValue');
    assertPasswordAllowed(
      desired.password,
      { username: desired.userName, lang, field: 'password' },
      await passwordPolicyFor(db, companyId),
    );
  }

  const extrasOf = (desired: DesiredUser) => ({
    externalId: desired.externalId,
    attributes: desired.extras,
  });

  /**
   * Creates the person all-or-nothing: the account, its SCIM extras and, for `active: false`, its
   * disable commit together (no enabled person is left behind by a disable that failed).
   */
  async function create(caller: ScimCaller, lang: Language, body: Doc) {
    const { companyId } = caller;
    const desired = readUser(body);
    await assertExternalIdFree(companyId, desired.externalId);
    await assertManager(companyId, desired.managerId);
    await assertPasswordUsable(companyId, lang, desired);
    const actor = actorOf(caller);
    await users.assertIdentifiersUsable(actor, lang, companyId, {
      username: desired.userName,
      email: desired.email,
      phone: desired.phone,
    });
    const userId = await users.atomically(async (bound, trx) => {
      const created = await bound.create(actor, companyId, lang, {
        username: desired.userName,
        password: desired.password ?? '',
        name: desired.displayName,
        nickname: desired.nickName,
        email: desired.email,
        phone: desired.phone,
        mustChangePassword: false,
        passwordless: desired.password === undefined,
      });
      await repo.saveScimUserExtras(trx, companyId, created.userId, extrasOf(desired));
      if (!desired.active) await bound.setStatus(actor, companyId, created.userId, 'disabled');
      return created.userId;
    });
    return get(caller, userId);
  }

  /**
   * Stores `desired` over the person as they are (`current`), each change through its console
   * rule, all-or-nothing: every refusal that can be told before a write is (identifiers together,
   * the password's rules, externalId, manager), and the writes share one transaction, so a step
   * refused later (a directory person, a parallel request that took the email) undoes the others.
   */
  async function store(caller: ScimCaller, lang: Language, current: Doc, desired: DesiredUser) {
    const { companyId } = caller;
    const id = current.id as string;
    await assertExternalIdFree(companyId, desired.externalId, id);
    await assertManager(companyId, desired.managerId, id);
    await assertPasswordUsable(companyId, lang, desired);
    const row = await repo.findScimUser(db, companyId, id);
    if (!row) throw notFound();
    const actor = actorOf(caller);
    // A new userName (Entra ID's PATCH replace userName when the UPN changes, Okta's PUT): a rename
    // by the console's identifier rules.
    const renamed = desired.userName !== row.username;
    const profile = {
      ...(desired.displayName !== row.display_name ? { name: desired.displayName } : {}),
      ...(desired.nickName !== row.nickname ? { nickname: desired.nickName } : {}),
      ...(desired.email !== row.email ? { email: desired.email } : {}),
      ...(desired.phone !== row.phone ? { phone: desired.phone } : {}),
    };
    await users.assertIdentifiersUsable(
      actor,
      lang,
      companyId,
      {
        username:
          renamed && desired.userName.toLowerCase() !== row.username.toLowerCase()
            ? desired.userName
            : undefined,
        email: profile.email,
        phone: profile.phone,
      },
      { exceptAccountId: id },
    );
    const extras = extrasOf(desired);
    await users.atomically(async (bound, trx) => {
      if (renamed) await bound.rename(actor, companyId, lang, id, desired.userName);
      if (Object.keys(profile).length) await bound.update(actor, companyId, lang, { userId: id, ...profile });
      if (
        extras.externalId !== row.external_id ||
        JSON.stringify(extras.attributes) !== JSON.stringify(row.attributes ?? {})
      )
        await repo.saveScimUserExtras(trx, companyId, id, extras);
      if (desired.active !== (row.record_status === 'enabled'))
        await bound.setStatus(actor, companyId, id, desired.active ? 'enabled' : 'disabled');
      if (desired.password !== undefined)
        await bound.resetPassword(actor, companyId, lang, {
          userId: id,
          password: desired.password,
          mustChangePassword: false,
        });
    });
    return get(caller, id);
  }

  async function replace(
    caller: ScimCaller,
    lang: Language,
    id: string,
    body: Doc,
    ifMatch: string | string[] | undefined,
  ) {
    const current = await get(caller, id);
    assertIfMatch(ifMatch, (current.meta as Doc).version as string);
    return store(caller, lang, current, readUser(body));
  }

  async function patch(
    caller: ScimCaller,
    lang: Language,
    id: string,
    body: unknown,
    ifMatch: string | string[] | undefined,
  ) {
    const operations = readPatch(body);
    const current = await get(caller, id);
    assertIfMatch(ifMatch, (current.meta as Doc).version as string);
    const patched = applyPatch(current, operations, userShape);
    return store(caller, lang, current, readUser(patched));
  }

  async function remove(caller: ScimCaller, id: string, ifMatch: string | string[] | undefined) {
    const current = await get(caller, id);
    assertIfMatch(ifMatch, (current.meta as Doc).version as string);
    await users.remove(actorOf(caller), caller.companyId, id);
  }

  return {
    get: async (caller: ScimCaller, id: string, query: Doc) => shape(await get(caller, id), query),
    list,
    create,
    replace,
    patch,
    remove,
  };
}

const shape = (resource: Doc, query: Record<string, unknown>) =>
  selectAttributes(
    resource,
    {
      attributes: queryParam(query, 'attributes'),
      excludedAttributes: queryParam(query, 'excludedAttributes'),
    },
    USER_SCHEMA,
  );

/** Sorts resources by an attribute (its first value; missing values last). */
export function sortResources(resources: Doc[], sortBy: string, descending: boolean) {
  let rest = sortBy;
  let holder = (r: Doc) => r as unknown;
  if (/^urn:/i.test(sortBy)) {
    const colon = sortBy.lastIndexOf(':');
    const schema = sortBy.slice(0, colon);
    rest = sortBy.slice(colon + 1);
    holder =
      schema.toLowerCase() === USER_SCHEMA.toLowerCase() ? holder : (r: Doc) => prop(r, ENTERPRISE_SCHEMA);
  }
  const [attr = '', sub] = rest.split('.');
  const key = (r: Doc) => {
    let value = prop(holder(r), attr);
    if (Array.isArray(value)) value = value[0];
    if (value && typeof value === 'object') value = prop(value, sub ?? 'value');
    return value === undefined || value === null ? undefined : String(value).toLowerCase();
  };
  resources.sort((a, b) => {
    const x = key(a);
    const y = key(b);
    if (x === y) return 0;
    if (x === undefined) return 1;
    if (y === undefined) return -1;
    return (x < y ? -1 : 1) * (descending ? -1 : 1);
  });
}
