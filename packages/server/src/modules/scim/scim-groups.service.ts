import type { Language } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../lib/errors.ts';
import type { DepartmentService } from '../department/department.service.ts';
import type { RoleService } from '../permission/role.service.ts';
import { invalidValue, notFound, ScimError } from './scim-errors.ts';
import { type Filter, matches, parseFilter, prop } from './scim-filter.ts';
import { createGroupStores, type GroupStore } from './scim-group-stores.ts';
import * as repo from './scim-groups.repo.ts';
import { applyPatch, type PatchShape, readPatch } from './scim-patch.ts';
import { assertIfMatch, pageOf, queryParam, selectAttributes, stringOf, versionOf } from './scim-resource.ts';
import { GROUP_SCHEMA, LIST_SCHEMA, MAX_RESULTS } from './scim-schemas.ts';
import type { ScimCaller } from './scim-tokens.service.ts';
import { actorOf, sortResources } from './scim-users.service.ts';

/**
 * /Groups: by the token's setting, the company's departments (all but the root, which is the
 * company itself; a group a client creates is a department under the root) or its permission
 * roles. Members are the department's members or the role's people. Changes go through the
 * department or role service, so the console's rules, locks and audit apply.
 */

type Doc = Record<string, unknown>;

/** One membership change adds or removes at most this many people (Entra ID sends a few hundred). */
const MEMBERS_PER_REQUEST = 10_000;

const groupShape: PatchShape = {
  isMulti: (name) => name === 'members',
  canonical: (name) =>
    ['displayName', 'externalId', 'members'].find((k) => k.toLowerCase() === name.toLowerCase()) ?? name,
  readOnly: new Set(['id', 'meta', 'schemas']),
};

export function createScimGroupService(deps: {
  db: Db;
  departments: DepartmentService;
  roles: RoleService;
  baseUrlOf(companyId: string): string;
}) {
  const { db } = deps;
  const stores = createGroupStores(deps);
  const storeOf = (caller: ScimCaller): GroupStore => stores[caller.groupsAs];

  async function present(caller: ScimCaller, ids: string[] | undefined, withMembers: boolean) {
    const { companyId } = caller;
    const store = storeOf(caller);
    const rows = await store.rows(companyId, ids);
    const members = withMembers
      ? await store.members(
          companyId,
          rows.map((r) => r.id),
        )
      : new Map();
    const baseUrl = deps.baseUrlOf(companyId);
    return rows.map((row) => {
      const resource: Doc = {
        schemas: [GROUP_SCHEMA],
        id: row.id,
        ...(row.external_id ? { externalId: row.external_id } : {}),
        displayName: row.name,
        ...(withMembers
          ? {
              members: (members.get(row.id) ?? []).map((m: { value: string; display: string }) => ({
                value: m.value,
                $ref: `${baseUrl}/Users/${m.value}`,
                display: m.display,
                type: 'User',
              })),
            }
          : {}),
      };
      resource.meta = {
        resourceType: 'Group',
        created: row.created_at.toISOString(),
        lastModified: (row.updated_at > row.created_at ? row.updated_at : row.created_at).toISOString(),
        location: `${baseUrl}/Groups/${row.id}`,
        // The version covers the members too: a GET without them still gives the full version.
        ...(withMembers ? { version: versionOf(resource) } : {}),
      };
      return resource;
    });
  }

  async function getFull(caller: ScimCaller, id: string) {
    const found = id.length <= 64 ? (await present(caller, [id], true))[0] : undefined;
    if (!found) throw notFound();
    return found;
  }

  const wantsMembers = (query: Doc, filter?: Filter) => {
    const excluded = queryParam(query, 'excludedAttributes')?.toLowerCase() ?? '';
    const attributes = queryParam(query, 'attributes')?.toLowerCase();
    const mentioned = filter ? JSON.stringify(filter).toLowerCase().includes('"attr":"members"') : false;
    return (
      mentioned ||
      (!excluded.split(',').some((a) => a.trim().endsWith('members')) &&
        (!attributes || attributes.includes('members')))
    );
  };

  const shape = (resource: Doc, query: Doc) =>
    selectAttributes(
      resource,
      {
        attributes: queryParam(query, 'attributes'),
        excludedAttributes: queryParam(query, 'excludedAttributes'),
      },
      GROUP_SCHEMA,
    );

  async function get(caller: ScimCaller, id: string, query: Doc) {
    const full = await getFull(caller, id);
    if (wantsMembers(query)) return shape(full, query);
    const { members, ...rest } = full;
    return shape(rest, query);
  }

  async function list(caller: ScimCaller, query: Doc) {
    const filterText = queryParam(query, 'filter');
    const filter = filterText ? parseFilter(filterText) : undefined;
    const { startIndex, count } = pageOf(
      { startIndex: queryParam(query, 'startIndex'), count: queryParam(query, 'count') },
      MAX_RESULTS,
    );
    const members = wantsMembers(query, filter);
    let all = (await present(caller, undefined, members)).filter((r) => !filter || matches(r, filter));
    const sortBy = queryParam(query, 'sortBy');
    if (sortBy) sortResources(all, sortBy, queryParam(query, 'sortOrder')?.toLowerCase() === 'descending');
    const total = all.length;
    all = all.slice(startIndex - 1, startIndex - 1 + count);
    return {
      schemas: [LIST_SCHEMA],
      totalResults: total,
      startIndex,
      itemsPerPage: all.length,
      Resources: all.map((r) => shape(r, query)),
    };
  }

  function readGroup(body: Doc, { nameMax }: GroupStore) {
    const displayName = stringOf(prop(body, 'displayName'), 'displayName', nameMax + 1)?.trim();
    if (!displayName) throw invalidValue('displayName is required');
    if (displayName.length > nameMax) throw invalidValue(`displayName is longer than ${nameMax}`);
    const membersIn = prop(body, 'members') ?? [];
    if (!Array.isArray(membersIn)) throw invalidValue('members must be a list');
    if (membersIn.length > MEMBERS_PER_REQUEST)
      throw new ScimError('scim.too_many', 'tooMany', { why: 'members' });
    const members = [
      ...new Set(
        membersIn.map((m) =>
          stringOf(m && typeof m === 'object' ? prop(m, 'value') : m, 'members.value', 64),
        ),
      ),
    ];
    if (members.some((m) => !m)) throw invalidValue('every member needs a value');
    return {
      displayName,
      externalId: stringOf(prop(body, 'externalId'), 'externalId', 256),
      members: members as string[],
    };
  }

  /** Members must be people of the company: anyone else is bad input, not a missing resource. */
  async function assertPeople(companyId: string, ids: string[]) {
    if ((await repo.countPeople(db, companyId, ids)) !== ids.length)
      throw invalidValue('members must be users of this company');
  }

  /** A member who is not a person of the company is bad input, not a missing resource. */
  const membersOfCompany = async <T>(work: () => Promise<T>) => {
    try {
      return await work();
    } catch (error) {
      if (
        error instanceof AppError &&
        (error.reason === 'user.not_found' || error.reason === 'role.member_not_in_company')
      )
        throw invalidValue('members must be users of this company');
      throw error;
    }
  };

  async function create(caller: ScimCaller, _lang: Language, body: Doc) {
    const { companyId } = caller;
    const store = storeOf(caller);
    const desired = readGroup(body, store);
    if (desired.externalId && (await store.externalIdTaken(companyId, desired.externalId)))
      throw new ScimError('scim.uniqueness', 'uniqueness', { attribute: 'externalId' });
    await assertPeople(companyId, desired.members);
    const actor = actorOf(caller);
    const id = await store.create(actor, companyId, desired.displayName);
    await store.saveExternalId(companyId, id, desired.externalId);
    if (desired.members.length)
      await membersOfCompany(() => store.addMembers(actor, companyId, id, desired.members));
    return getFull(caller, id);
  }

  async function save(caller: ScimCaller, current: Doc, desired: ReturnType<typeof readGroup>) {
    const { companyId } = caller;
    const store = storeOf(caller);
    const id = current.id as string;
    if (desired.externalId && (await store.externalIdTaken(companyId, desired.externalId, id)))
      throw new ScimError('scim.uniqueness', 'uniqueness', { attribute: 'externalId' });
    const had = new Set(((current.members ?? []) as { value: string }[]).map((m) => m.value));
    const wanted = new Set(desired.members);
    const added = desired.members.filter((m) => !had.has(m));
    const removed = [...had].filter((m) => !wanted.has(m));
    await assertPeople(companyId, added);
    const actor = actorOf(caller);
    if (desired.displayName !== current.displayName)
      await store.rename(actor, companyId, id, desired.displayName);
    if ((desired.externalId ?? undefined) !== current.externalId)
      await store.saveExternalId(companyId, id, desired.externalId);
    if (added.length) await membersOfCompany(() => store.addMembers(actor, companyId, id, added));
    if (removed.length) await store.removeMembers(actor, companyId, id, removed);
    return getFull(caller, id);
  }

  async function replace(
    caller: ScimCaller,
    _lang: Language,
    id: string,
    body: Doc,
    ifMatch: string | string[] | undefined,
  ) {
    const current = await getFull(caller, id);
    assertIfMatch(ifMatch, (current.meta as Doc).version as string);
    return save(caller, current, readGroup(body, storeOf(caller)));
  }

  async function patch(
    caller: ScimCaller,
    _lang: Language,
    id: string,
    body: unknown,
    ifMatch: string | string[] | undefined,
  ) {
    const operations = readPatch(body);
    const current = await getFull(caller, id);
    assertIfMatch(ifMatch, (current.meta as Doc).version as string);
    return save(caller, current, readGroup(applyPatch(current, operations, groupShape), storeOf(caller)));
  }

  async function remove(caller: ScimCaller, id: string, ifMatch: string | string[] | undefined) {
    const current = await getFull(caller, id);
    assertIfMatch(ifMatch, (current.meta as Doc).version as string);
    await storeOf(caller).remove(actorOf(caller), caller.companyId, id);
  }

  return { get, list, create, replace, patch, remove };
}
