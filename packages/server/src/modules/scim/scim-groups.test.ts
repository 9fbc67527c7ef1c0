import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, grantLicense, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';
import {
  assertScimError,
  assertValidGroup,
  assertValidUser,
  createToken,
  GROUP,
  PATCH_OP,
  scimClient,
  USER,
} from './scim-test-client.ts';

/**
 * Issue 31 (inbound SCIM): /Groups are the company's departments or, by the token's setting, its
 * permission roles; the same requests run for both. The bodies are those of Microsoft Entra ID's
 * provisioning documentation (create, get without members, find by displayName, rename, add and
 * remove members: here a few hundred at once, as Entra ID sends them), and the list features
 * (filters, sorting, paging, attribute selection) on Users.
 */

let ctx: TestContext;
let a: Awaited<ReturnType<typeof ownerWithCompany>>;
let b: Awaited<ReturnType<typeof ownerWithCompany>>;
let scim: ReturnType<typeof scimClient>;
const people: string[] = [];
const MEMBERS = 250;

beforeAll(async () => {
  ctx = await startTestApp();
  await grantLicense(ctx, { user: 1000 });
  a = await ownerWithCompany(ctx, 'scim-groups-a', 'Alpha Groups');
  b = await ownerWithCompany(ctx, 'scim-groups-b', 'Beta Groups');
  scim = scimClient(ctx, a.companyId, (await createToken(ctx, a)).secret);
  for (let i = 0; i < MEMBERS; i++) {
    const n = String(i).padStart(3, '0');
    const answer = await scim('POST', '/Users', {
      schemas: [USER],
      userName: `person.${n}`,
      displayName: `Person ${n}`,
      emails: [{ value: `person.${n}@${i % 2 ? 'odd' : 'even'}.example`, type: 'work', primary: true }],
      active: i % 10 !== 0,
      title: i % 3 === 0 ? 'Engineer' : 'Analyst',
    });
    if (answer.status !== 201) throw new Error(JSON.stringify(answer.body));
    people.push(answer.body.id as string);
  }
}, 120_000);
afterAll(() => ctx.close());

const departmentMembers = async (departmentId: string) =>
  (
    await ctx.database.db
      .selectFrom('department_members')
      .select('account_id')
      .where('department_id', '=', departmentId)
      .execute()
  ).map((r) => r.account_id);

/** A role's people as the console's role screen lists them, every page. */
async function roleMembersOnScreen(roleId: string) {
  const found: string[] = [];
  for (let page = 1; ; page++) {
    const answer = await call<{ list: { userId: string }[]; total: number }>(
      ctx,
      '/api/v1/manage/permission/role/member/list',
      { roleId, page, pageSize: 100 },
      a,
    );
    if (answer.code !== 200) throw new Error(answer.msg);
    found.push(...answer.data.list.map((m) => m.userId));
    if (found.length >= answer.data.total) return found;
  }
}

/** What the console shows of each kind: the department tree's first level, or the role list. */
const groupKinds = [
  {
    kind: 'departments' as const,
    members: departmentMembers,
    async onScreen() {
      const tree = await call<{ tree: { children: { departmentId: string; name: string }[] } }>(
        ctx,
        '/api/v1/manage/department/tree',
        {},
        a,
      );
      return tree.data.tree.children.map((d) => ({ id: d.departmentId, name: d.name }));
    },
  },
  {
    kind: 'roles' as const,
    members: roleMembersOnScreen,
    async onScreen() {
      const roles = await call<{ list: { roleId: string; name: string }[] }>(
        ctx,
        '/api/v1/manage/permission/role/list',
        { pageSize: 100 },
        a,
      );
      return roles.data.list.map((r) => ({ id: r.roleId, name: r.name }));
    },
  },
];

describe.each(groupKinds)('Microsoft Entra ID groups as $kind', ({ kind, members, onScreen }) => {
  let groupId: string;
  let groups: ReturnType<typeof scimClient>;
  let groupsB: ReturnType<typeof scimClient>;

  beforeAll(async () => {
    groups = scimClient(ctx, a.companyId, (await createToken(ctx, a, `Entra ${kind}`, kind)).secret);
    groupsB = scimClient(ctx, b.companyId, (await createToken(ctx, b, `Entra ${kind}`, kind)).secret);
  });

  it(`creates a group (documented body) as one of the company's ${kind}`, async () => {
    const answer = await groups('POST', '/Groups', {
      schemas: [GROUP],
      externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
      displayName: 'displayName',
      meta: { resourceType: 'Group' },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    assertValidGroup(answer.body);
    groupId = answer.body.id as string;
    expect(answer.body).toMatchObject({
      externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
      displayName: 'displayName',
      members: [],
    });
    expect(await onScreen()).toEqual([{ id: groupId, name: 'displayName' }]);
    const event = await ctx.database.db
      .selectFrom('audit_events')
      .select('actor_account_id')
      .where('target_id', '=', groupId)
      .executeTakeFirstOrThrow();
    expect(event.actor_account_id).toBe(`scim:Entra ${kind}`);
    assertScimError(
      await groups('POST', '/Groups', { schemas: [GROUP], displayName: 'displayName' }),
      409,
      'uniqueness',
    );
  });

  it('reads it without members and finds it by displayName (documented GETs)', async () => {
    const one = await groups('GET', `/Groups/${groupId}?excludedAttributes=members`);
    expect(one.body).not.toHaveProperty('members');
    assertValidGroup(one.body);
    const found = await groups(
      'GET',
      `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "displayName"')}`,
    );
    expect(found.body.totalResults).toBe(1);
    expect((found.body.Resources as { id: string }[])[0]?.id).toBe(groupId);
  });

  it('renames it with a capitalised Replace (documented non-member PATCH)', async () => {
    const answer = await groups('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [
        {
          op: 'Replace',
          path: 'displayName',
          value: '1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName',
        },
      ],
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.displayName).toBe('1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName');
  });

  it(`adds ${MEMBERS} members in one PATCH and removes some (documented member PATCHes)`, async () => {
    const add = await groups('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Add', path: 'members', value: people.map((value) => ({ $ref: null, value })) }],
    });
    expect(add.status, JSON.stringify(add.body).slice(0, 300)).toBe(200);
    assertValidGroup(add.body);
    expect((await members(groupId)).sort()).toEqual([...people].sort());
    const user = await groups('GET', `/Users/${people[0]}`);
    assertValidUser(user.body);
    expect(user.body.groups).toEqual([
      expect.objectContaining({
        value: groupId,
        display: '1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName',
        type: 'direct',
      }),
    ]);
    const remove = await groups('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Remove', path: 'members', value: people.slice(0, 10).map((value) => ({ $ref: null, value })) },
      ],
    });
    expect(remove.status).toBe(200);
    expect((await members(groupId)).length).toBe(MEMBERS - 10);
    // RFC 7644 form: a value filter in the path.
    const byFilter = await groups('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'remove', path: `members[value eq "${people[10]}"]` }],
    });
    expect(byFilter.status).toBe(200);
    expect(await members(groupId)).not.toContain(people[10]);
    // Someone of another company is bad input; nothing changes.
    const before = (await members(groupId)).length;
    const foreign = await groups('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: b.account.id }, { value: people[0] }] }],
    });
    assertScimError(foreign, 400, 'invalidValue');
    expect((await members(groupId)).length).toBe(before);
  });

  it('replaces the whole group by PUT, keeps it from B, and deletes it', async () => {
    const put = await groups('PUT', `/Groups/${groupId}`, {
      schemas: [GROUP],
      displayName: 'Research',
      members: [{ value: people[1] }],
    });
    expect(put.status).toBe(200);
    expect(await members(groupId)).toEqual([people[1]]);
    assertScimError(await groupsB('GET', `/Groups/${groupId}`), 404);
    assertScimError(await groupsB('DELETE', `/Groups/${groupId}`), 404);
    assertScimError(
      await groupsB('PATCH', `/Groups/${groupId}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'remove', path: 'members' }],
      }),
      404,
    );
    expect(await members(groupId)).toEqual([people[1]]);
    expect((await groupsB('GET', '/Groups')).body.totalResults).toBe(0);
    expect((await groups('DELETE', `/Groups/${groupId}`)).status).toBe(204);
    assertScimError(await groups('GET', `/Groups/${groupId}`), 404);
    // The person stays a user of the company.
    expect((await groups('GET', `/Users/${people[1]}`)).status).toBe(200);
  });
});

describe('a token acts on its own kind of group only', () => {
  it('finds no department through a roles token, and no role through a departments token', async () => {
    const token = async (name: string, kind: 'departments' | 'roles') =>
      scimClient(ctx, a.companyId, (await createToken(ctx, a, name, kind)).secret);
    const byDepartments = await token('HR departments', 'departments');
    const byRoles = await token('HR roles', 'roles');
    const create = async (client: typeof byRoles, member: string) => {
      const answer = await client('POST', '/Groups', {
        schemas: [GROUP],
        displayName: 'Finance',
        members: [{ value: member }],
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      return answer.body.id as string;
    };
    const department = await create(byDepartments, people[20] as string);
    const role = await create(byRoles, people[21] as string);
    for (const [client, otherId] of [
      [byRoles, department],
      [byDepartments, role],
    ] as const) {
      assertScimError(await client('GET', `/Groups/${otherId}`), 404);
      assertScimError(
        await client('PATCH', `/Groups/${otherId}`, {
          schemas: [PATCH_OP],
          Operations: [{ op: 'add', path: 'members', value: [{ value: people[22] }] }],
        }),
        404,
      );
      assertScimError(
        await client('PUT', `/Groups/${otherId}`, { schemas: [GROUP], displayName: 'Taken over' }),
        404,
      );
      assertScimError(await client('DELETE', `/Groups/${otherId}`), 404);
    }
    const ids = async (client: typeof byRoles) =>
      ((await client('GET', '/Groups')).body.Resources as { id: string }[]).map((r) => r.id);
    expect(await ids(byRoles)).toEqual([role]);
    expect(await ids(byDepartments)).toEqual([department]);
    expect(await departmentMembers(department)).toEqual([people[20]]);
    expect(await roleMembersOnScreen(role)).toEqual([people[21]]);
    // A User's groups are the token's kind of group.
    expect((await byRoles('GET', `/Users/${people[21]}`)).body.groups).toEqual([
      expect.objectContaining({ value: role, display: 'Finance' }),
    ]);
    expect((await byRoles('GET', `/Users/${people[20]}`)).body).not.toHaveProperty('groups');
    expect((await byDepartments('GET', `/Users/${people[21]}`)).body).not.toHaveProperty('groups');
    expect((await byRoles('DELETE', `/Groups/${role}`)).status).toBe(204);
    expect((await byDepartments('DELETE', `/Groups/${department}`)).status).toBe(204);
  });
});

describe('list features on Users', () => {
  const total = MEMBERS + 1; // and the owner
  const names = async (filter: string, extra = '') => {
    const answer = await scim('GET', `/Users?filter=${encodeURIComponent(filter)}&count=1000${extra}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body as { totalResults: number; Resources: { userName: string }[] };
  };

  it('filters with eq, ne, co, sw, ew, pr, and, or, not and grouping', async () => {
    expect((await names('userName eq "PERSON.007"')).Resources.map((r) => r.userName)).toEqual([
      'person.007',
    ]);
    expect((await names('userName ne "person.007"')).totalResults).toBe(total - 1);
    expect((await names('userName co "n.04"')).totalResults).toBe(10);
    expect((await names('userName sw "person.1"')).totalResults).toBe(100);
    expect((await names('emails.value ew "@odd.example"')).totalResults).toBe(125);
    expect((await names('emails pr')).totalResults).toBe(MEMBERS);
    expect((await names('active eq false')).totalResults).toBe(25);
    expect(
      (await names('active eq false and (userName sw "person.0" or userName sw "person.1")')).totalResults,
    ).toBe(20);
    expect((await names('not (active eq true) and not (userName sw "person.0")')).totalResults).toBe(15);
    expect(
      (await names('userName sw "person.00" and emails[type eq "work" and value ew "even.example"]'))
        .totalResults,
    ).toBe(5);
    expect((await names('emails[type eq "work"].value ew "odd.example"')).totalResults).toBe(125);
    expect(
      (await names('title eq "engineer" and userName sw "person.00"')).Resources.map((r) => r.userName),
    ).toEqual(['person.000', 'person.003', 'person.006', 'person.009']);
  });

  it('filters dates with gt, ge, lt and le', async () => {
    const first = (await scim('GET', `/Users/${people[0]}`)).body.meta as { created: string };
    expect((await names(`meta.created lt "${first.created}"`)).totalResults).toBe(1); // the owner
    expect((await names(`meta.created ge "${first.created}"`)).totalResults).toBe(MEMBERS);
    expect(
      (await names(`meta.lastModified gt "2000-01-01T00:00:00Z" and meta.created le "${first.created}"`))
        .totalResults,
    ).toBe(2);
  });

  it('pages with startIndex and count, sorts, and selects attributes', async () => {
    const page = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent('userName sw "person."')}&sortBy=userName&sortOrder=descending&startIndex=3&count=2`,
    );
    expect(page.body).toMatchObject({ totalResults: MEMBERS, startIndex: 3, itemsPerPage: 2 });
    expect((page.body.Resources as { userName: string }[]).map((r) => r.userName)).toEqual([
      'person.247',
      'person.246',
    ]);
    const bySortedTitle = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent('userName sw "person.00"')}&sortBy=title&count=3`,
    );
    expect((bySortedTitle.body.Resources as { title: string }[]).map((r) => r.title)).toEqual([
      'Analyst',
      'Analyst',
      'Analyst',
    ]);
    const countOnly = await scim('GET', '/Users?count=0');
    expect(countOnly.body).toMatchObject({ totalResults: total, itemsPerPage: 0, Resources: [] });
    const picked = await scim('GET', `/Users/${people[2]}?attributes=userName,emails.value`);
    expect(picked.body).toEqual({
      schemas: [USER],
      id: people[2],
      userName: 'person.002',
      emails: [{ value: 'person.002@even.example' }],
    });
    const dropped = await scim('GET', `/Users/${people[2]}?excludedAttributes=emails,meta,title`);
    expect(Object.keys(dropped.body).sort()).toEqual([
      'active',
      'displayName',
      'id',
      'name',
      'schemas',
      'userName',
    ]);
    const searched = await scim('POST', '/Users/.search', {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'],
      filter: 'userName eq "person.002"',
      attributes: ['userName'],
    });
    expect(searched.body).toMatchObject({
      totalResults: 1,
      Resources: [{ id: people[2], userName: 'person.002' }],
    });
  });

  it('refuses bad filters with invalidFilter, in the caller’s language', async () => {
    for (const filter of [
      'userName eq',
      'userName zz "x"',
      '(userName eq "x"',
      'userName eq "x" extra',
      `${'('.repeat(20)}userName pr${')'.repeat(20)}`,
      'a eq "x" or '.repeat(200),
    ]) {
      const answer = await scim('GET', `/Users?filter=${encodeURIComponent(filter)}`, undefined, {
        'accept-language': 'zh',
      });
      assertScimError(answer, 400, 'invalidFilter');
      expect(String(answer.body.detail)).toMatch(/^筛选条件无效/);
    }
  });
});
