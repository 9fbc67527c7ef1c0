import type { department } from '@tessera/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueViolationAs } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import {
  call,
  createAccount,
  ownerWithCompany,
  sessionFor,
  startTestApp,
  type TestContext,
} from '../../test/harness.ts';
import { assertDepartmentsInCompany, insertDepartment, subtreeIds } from './department.repo.ts';

type Node = department.DepartmentNode;
type Owner = Awaited<ReturnType<typeof ownerWithCompany>>;

let ctx: TestContext;
let acme: Owner;
let other: Owner;
let staffId: string;
let clerkId: string;
let outsiderId: string;

const as = (owner: Owner, lang?: string) => ({ token: owner.token, companyId: owner.companyId, lang });

const addUser = async (owner: Owner, username: string) =>
  (
    await call<{ userId: string }>(
      ctx,
      '/api/v1/manage/company/user/create',
      { username, role: 'member', password: 'Sunny-Day-42' },
      as(owner),
    )
  ).data.userId;

const tree = async (owner: Owner) =>
  (await call<{ tree: Node }>(ctx, '/api/v1/manage/department/tree', {}, as(owner))).data.tree;

const create = (owner: Owner, body: Record<string, unknown>, lang?: string) =>
  call<{ departmentId: string; name: string; parentId: string | null; managerId: string | null }>(
    ctx,
    '/api/v1/manage/department/create',
    body,
    as(owner, lang),
  );

/** A department call (`/api/v1/manage/department/<action>`) as the owner, in the given language. */
const departmentCall = (action: string, owner: Owner, body: Record<string, unknown>, lang?: string) =>
  call(ctx, `/api/v1/manage/department/${action}`, body, as(owner, lang));

const rootOf = async (owner: Owner) => (await tree(owner)).departmentId;

/** A snapshot of what is stored for departments: any refused call must leave it as it was. */
const stored = async () =>
  JSON.stringify([
    await ctx.database.db.selectFrom('departments').selectAll().orderBy('id').execute(),
    await ctx.database.db
      .selectFrom('department_members')
      .selectAll()
      .orderBy('department_id')
      .orderBy('account_id')
      .execute(),
    (
      await ctx.database.db
        .selectFrom('audit_events')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  ]);

const auditOf = (departmentId: string) =>
  ctx.database.db
    .selectFrom('audit_events')
    .selectAll()
    .where('target_type', '=', 'department')
    .where('target_id', '=', departmentId)
    .orderBy('created_at')
    .execute();

const find = (node: Node, name: string): Node | undefined =>
  node.name === name ? node : node.children.map((child) => find(child, name)).find(Boolean);

beforeAll(async () => {
  ctx = await startTestApp();
  acme = await ownerWithCompany(ctx, 'dept-owner', 'Acme Departments');
  other = await ownerWithCompany(ctx, 'dept-other', 'Other Co');
  staffId = await addUser(acme, 'dept-staff');
  clerkId = await addUser(acme, 'dept-clerk');
  outsiderId = await addUser(other, 'dept-outsider');
});
afterAll(() => ctx.close());

describe('root department', () => {
  it('is created with the company, named after it, and exists once', async () => {
    const root = await tree(acme);
    expect(root).toEqual({
      departmentId: expect.any(String),
      name: 'Acme Departments',
      parentId: null,
      managerId: null,
      managerName: null,
      memberCount: 0,
      totalMemberCount: 0,
      children: [],
    });
    const rows = await ctx.database.db
      .selectFrom('departments')
      .selectAll()
      .where('company_id', '=', acme.companyId)
      .execute();
    expect(rows.map((row) => row.id)).toEqual([root.departmentId]);
  });

  it('is created on first use for a company made before departments, once under parallel first use', async () => {
    const owner = await createAccount(ctx, { username: 'legacy-owner' });
    const companyId = newId();
    await ctx.database.db
      .insertInto('companies')
      .values({
        id: companyId,
        name: 'Legacy Ltd',
        client_key: newId(),
        default_language: 'en',
        owner_account_id: owner.id,
      })
      .execute();
    await ctx.database.db
      .insertInto('company_members')
      .values({ company_id: companyId, account_id: owner.id, role: 'owner' })
      .execute();
    const legacy = { account: owner, token: await sessionFor(ctx, owner.id), companyId };
    const trees = await Promise.all([tree(legacy), tree(legacy), tree(legacy)]);
    expect(new Set(trees.map((t) => t.departmentId)).size).toBe(1);
    expect(trees[0]).toMatchObject({ name: 'Legacy Ltd', parentId: null });
    const roots = await ctx.database.db
      .selectFrom('departments')
      .select('id')
      .where('company_id', '=', companyId)
      .execute();
    expect(roots).toHaveLength(1);
  });

  it('follows the company name, and cannot be renamed, moved or deleted', async () => {
    const owner = await ownerWithCompany(ctx, 'renamer', 'Before Name');
    const rootId = await rootOf(owner);
    await call(ctx, '/api/v1/manage/company/update', { name: 'After Name' }, as(owner));
    expect((await tree(owner)).name).toBe('After Name');
    const child = await create(owner, { name: 'Child', parentId: rootId });
    const before = await stored();
    const rename = await departmentCall('update', owner, { departmentId: rootId, name: 'Other' });
    expect(rename).toMatchObject({
      code: 409,
      msg: 'The root department cannot be changed this way',
      data: { reason: 'department.root_protected' },
    });
    const move = await departmentCall('move', owner, {
      departmentId: rootId,
      parentId: child.data.departmentId,
    });
    expect(move.data).toMatchObject({ reason: 'department.root_protected' });
    const del = await departmentCall('del', owner, { departmentId: rootId }, 'zh-CN');
    expect(del).toMatchObject({ code: 409, msg: '根部门不能进行此操作' });
    expect(await stored()).toBe(before);
    // Its manager may change; sending its current name along is no rename.
    const manager = await departmentCall('update', owner, {
      departmentId: rootId,
      name: 'After Name',
      managerId: owner.account.id,
    });
    expect(manager.data).toEqual({
      departmentId: rootId,
      name: 'After Name',
      parentId: null,
      managerId: owner.account.id,
    });
  });
});

describe('department/create', () => {
  it('creates under a superior department, with an optional manager, and audits it', async () => {
    const rootId = await rootOf(acme);
    const created = await create(acme, { name: '  Sales  ', parentId: rootId, managerId: staffId });
    expect(created.code).toBe(200);
    expect(created.data).toEqual({
      departmentId: expect.any(String),
      name: 'Sales',
      parentId: rootId,
      managerId: staffId,
    });
    const plain = await create(acme, { name: 'Support', parentId: rootId });
    expect(plain.data.managerId).toBeNull();
    const root = await tree(acme);
    expect(find(root, 'Sales')).toMatchObject({
      parentId: rootId,
      managerId: staffId,
      managerName: 'dept-staff',
      memberCount: 0,
      totalMemberCount: 0,
      children: [],
    });
    const [event] = await auditOf(created.data.departmentId);
    expect(event).toMatchObject({
      action: 'department.create',
      company_id: acme.companyId,
      actor_account_id: acme.account.id,
      before: null,
      after: { name: 'Sales', parentId: rootId, managerId: staffId },
    });
  });

  it("refuses bad input in the caller's language, storing nothing", async () => {
    const rootId = await rootOf(acme);
    const before = await stored();
    const cases: [Record<string, unknown>, number, string, string?][] = [
      [{ parentId: rootId }, 400, 'department.name_required'],
      [{ name: '   ', parentId: rootId }, 400, 'department.name_required'],
      [{ name: 'x'.repeat(65), parentId: rootId }, 400, 'request.invalid'],
      [{ name: 'No parent' }, 400, 'department.parent_required'],
      [{ name: 'No parent', parentId: ' ' }, 400, 'department.parent_required'],
      [{ name: 'Ghost', parentId: 'no-such-department' }, 404, 'department.not_found'],
      [
        { name: 'Foreign manager', parentId: rootId, managerId: outsiderId },
        400,
        'department.manager_not_member',
      ],
      [
        { name: 'Unknown manager', parentId: rootId, managerId: 'nobody' },
        400,
        'department.manager_not_member',
      ],
    ];
    for (const [body, code, reason] of cases) {
      const answer = await create(acme, body);
      expect({ body, code: answer.code, reason: (answer.data as { reason?: string }).reason }).toEqual({
        body,
        code,
        reason: reason === 'request.invalid' ? expect.any(String) : reason,
      });
    }
    const en = await create(acme, { parentId: rootId });
    expect(en.msg).toBe('Please enter the department name');
    const zh = await create(acme, { name: '', parentId: rootId }, 'zh-CN,zh;q=0.9');
    expect(zh.msg).toBe('请输入部门名称');
    const zhParent = await create(acme, { name: 'x' }, 'zh');
    expect(zhParent.msg).toBe('请选择上级部门');
    const zhManager = await create(acme, { name: 'x', parentId: rootId, managerId: outsiderId }, 'zh');
    expect(zhManager.msg).toBe('负责人必须是本公司的用户');
    expect(await stored()).toBe(before);
  });

  it('keeps sibling names unique (case-insensitively), but the same name may sit under another parent', async () => {
    const rootId = await rootOf(acme);
    const parent = await create(acme, { name: 'Engineering', parentId: rootId });
    const before = await stored();
    const again = await create(acme, { name: 'engineering', parentId: rootId });
    expect(again).toMatchObject({
      code: 409,
      msg: 'A department with this name already exists under the same superior department',
      data: { reason: 'department.name_taken' },
    });
    const zh = await create(acme, { name: 'ENGINEERING', parentId: rootId }, 'zh');
    expect(zh.msg).toBe('同一上级部门下已有同名部门');
    expect(await stored()).toBe(before);
    const nested = await create(acme, { name: 'Engineering', parentId: parent.data.departmentId });
    expect(nested.code).toBe(200);
  });

  it('answers parallel creates of one sibling name with one department and clear refusals', async () => {
    const rootId = await rootOf(acme);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => create(acme, { name: 'Race', parentId: rootId })),
    );
    expect(answers.map((a) => a.code).sort()).toEqual([200, 409, 409, 409, 409]);
    for (const answer of answers.filter((a) => a.code !== 200))
      expect(answer.data).toMatchObject({ reason: 'department.name_taken' });
    const rows = await ctx.database.db
      .selectFrom('departments')
      .select('id')
      .where('company_id', '=', acme.companyId)
      .where('name', '=', 'Race')
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('the sibling-name unique index is the backstop when the check is passed by', async () => {
    const rootId = await rootOf(acme);
    await create(acme, { name: 'Backstop', parentId: rootId });
    await expect(
      uniqueViolationAs({ departments_sibling_name: 'department.name_taken' }, () =>
        ctx.database.db
          .transaction()
          .execute((trx) =>
            insertDepartment(trx, acme.companyId, { parentId: rootId, name: 'BACKSTOP', managerId: null }),
          ),
      ),
    ).rejects.toMatchObject({ reason: 'department.name_taken', status: 409 });
  });

  it(`nests at most 15 levels deep`, async () => {
    const owner = await ownerWithCompany(ctx, 'deep-owner', 'Deep Co');
    let parentId = await rootOf(owner);
    for (let level = 2; level <= 15; level++) {
      const created = await create(owner, { name: `L${level}`, parentId });
      expect(created.code).toBe(200);
      parentId = created.data.departmentId;
    }
    const before = await stored();
    const tooDeep = await create(owner, { name: 'L16', parentId });
    expect(tooDeep).toMatchObject({
      code: 409,
      msg: 'Departments can be nested at most 15 levels deep',
      data: { reason: 'department.too_deep' },
    });
    expect((await create(owner, { name: 'L16', parentId }, 'zh')).msg).toBe('部门最多嵌套 15 层');
    expect(await stored()).toBe(before);
  });
});

describe('department/update', () => {
  it('renames and changes the manager, auditing before and after', async () => {
    const rootId = await rootOf(acme);
    const dept = (await create(acme, { name: 'Marketing', parentId: rootId })).data;
    const updated = await departmentCall('update', acme, {
      departmentId: dept.departmentId,
      name: 'Brand',
      managerId: clerkId,
    });
    expect(updated.data).toEqual({
      departmentId: dept.departmentId,
      name: 'Brand',
      parentId: rootId,
      managerId: clerkId,
    });
    const cleared = await departmentCall('update', acme, {
      departmentId: dept.departmentId,
      managerId: null,
    });
    expect(cleared.data).toMatchObject({ name: 'Brand', managerId: null });
    const events = await auditOf(dept.departmentId);
    expect(events.map((e) => e.action)).toEqual([
      'department.create',
      'department.update',
      'department.update',
    ]);
    expect(events[1]).toMatchObject({
      before: { name: 'Marketing', managerId: null },
      after: { name: 'Brand', managerId: clerkId },
    });
  });

  it('refuses a taken name, a foreign manager and a foreign or unknown department, storing nothing', async () => {
    const rootId = await rootOf(acme);
    const one = (await create(acme, { name: 'One', parentId: rootId })).data;
    await create(acme, { name: 'Two', parentId: rootId });
    const otherDept = (await create(other, { name: 'Theirs', parentId: await rootOf(other) })).data;
    const before = await stored();
    const update = (body: Record<string, unknown>) =>
      call(ctx, '/api/v1/manage/department/update', body, as(acme));
    expect((await update({ departmentId: one.departmentId, name: 'two' })).data).toMatchObject({
      reason: 'department.name_taken',
    });
    expect((await update({ departmentId: one.departmentId, managerId: outsiderId })).data).toMatchObject({
      reason: 'department.manager_not_member',
    });
    expect((await update({ departmentId: one.departmentId, name: '' })).data).toMatchObject({
      reason: 'department.name_required',
    });
    const foreign = await update({ departmentId: otherDept.departmentId, name: 'Mine' });
    expect(foreign).toMatchObject({
      code: 404,
      msg: 'Department not found',
      data: { reason: 'department.not_found' },
    });
    expect(JSON.stringify(foreign)).not.toContain('Theirs');
    expect(await stored()).toBe(before);
  });
});

describe('department/move', () => {
  it('puts a department under another one, with its subtree', async () => {
    const rootId = await rootOf(acme);
    const a = (await create(acme, { name: 'Move A', parentId: rootId })).data;
    const b = (await create(acme, { name: 'Move B', parentId: rootId })).data;
    const a1 = (await create(acme, { name: 'Move A1', parentId: a.departmentId })).data;
    const moved = await departmentCall('move', acme, {
      departmentId: a.departmentId,
      parentId: b.departmentId,
    });
    expect(moved.data).toEqual({
      departmentId: a.departmentId,
      name: 'Move A',
      parentId: b.departmentId,
      managerId: null,
    });
    const node = find(await tree(acme), 'Move B');
    expect(node?.children.map((c) => c.name)).toEqual(['Move A']);
    expect(node?.children[0]?.children.map((c) => c.departmentId)).toEqual([a1.departmentId]);
    const events = await auditOf(a.departmentId);
    expect(events.at(-1)).toMatchObject({
      action: 'department.move',
      before: { parentId: rootId },
      after: { parentId: b.departmentId },
    });
  });

  it('refuses to put a department under itself or its descendants, in en and zh, storing nothing', async () => {
    const rootId = await rootOf(acme);
    const top = (await create(acme, { name: 'Cycle Top', parentId: rootId })).data;
    const mid = (await create(acme, { name: 'Cycle Mid', parentId: top.departmentId })).data;
    const low = (await create(acme, { name: 'Cycle Low', parentId: mid.departmentId })).data;
    const before = await stored();
    const move = (parentId: string, lang?: string) =>
      departmentCall('move', acme, { departmentId: top.departmentId, parentId }, lang);
    for (const target of [top, mid, low]) {
      expect(await move(target.departmentId)).toMatchObject({
        code: 409,
        msg: 'A department cannot be moved under itself or one of its sub departments',
        data: { reason: 'department.cycle' },
      });
    }
    expect((await move(low.departmentId, 'zh')).msg).toBe('部门不能移动到自身或其子部门之下');
    expect(await stored()).toBe(before);
  });

  it('refuses a move that makes the tree too deep or meets a sibling of the same name', async () => {
    const owner = await ownerWithCompany(ctx, 'mover', 'Mover Co');
    const rootId = await rootOf(owner);
    let parentId = rootId;
    for (let level = 2; level <= 14; level++)
      parentId = (await create(owner, { name: `L${level}`, parentId })).data.departmentId;
    const branch = (await create(owner, { name: 'Branch', parentId: rootId })).data;
    await create(owner, { name: 'Leaf', parentId: branch.departmentId });
    const before = await stored();
    const move = (body: Record<string, unknown>) =>
      call(ctx, '/api/v1/manage/department/move', body, as(owner));
    // Branch (2 levels) under L14 would reach 16.
    expect((await move({ departmentId: branch.departmentId, parentId })).data).toMatchObject({
      reason: 'department.too_deep',
    });
    expect((await move({ departmentId: branch.departmentId, parentId: 'no-such' })).code).toBe(404);
    expect(await stored()).toBe(before);
    // Under L13 it reaches exactly 15 levels.
    const l13 = find(await tree(owner), 'L13')?.departmentId as string;
    expect((await move({ departmentId: branch.departmentId, parentId: l13 })).code).toBe(200);
    // A department named like one of the new parent's children is refused.
    const clash = (await create(owner, { name: 'Clash', parentId: rootId })).data;
    await create(owner, { name: 'clash', parentId: branch.departmentId });
    const beforeClash = await stored();
    const moveClash = await move({ departmentId: clash.departmentId, parentId: branch.departmentId });
    expect(moveClash).toMatchObject({ code: 409, data: { reason: 'department.name_taken' } });
    expect(await stored()).toBe(beforeClash);
  });
});

describe('department/del', () => {
  it('refuses while sub departments exist, with the exact message in en and zh', async () => {
    const rootId = await rootOf(acme);
    const parent = (await create(acme, { name: 'Has Kids', parentId: rootId })).data;
    await create(acme, { name: 'Kid', parentId: parent.departmentId });
    const before = await stored();
    const en = await departmentCall('del', acme, { departmentId: parent.departmentId });
    expect(en).toMatchObject({
      status: 409,
      code: 409,
      msg: 'Please delete all sub departments before proceeding with the delete department operation!',
      data: { reason: 'department.has_children' },
    });
    const zh = await departmentCall(
      'del',
      acme,
      { departmentId: parent.departmentId },
      'zh-CN,zh;q=0.9,en;q=0.8',
    );
    expect(zh.msg).toBe('请先删除所有子部门，再执行删除部门操作！');
    expect(await stored()).toBe(before);
  });

  it('deletes a leaf; its members lose that membership but stay users of the company', async () => {
    const rootId = await rootOf(acme);
    const dept = (await create(acme, { name: 'Doomed', parentId: rootId })).data;
    await departmentCall('member/add', acme, {
      departmentId: dept.departmentId,
      userIds: [staffId, clerkId],
    });
    const deleted = await departmentCall('del', acme, { departmentId: dept.departmentId });
    expect(deleted).toMatchObject({ code: 200, data: { departmentId: dept.departmentId } });
    expect(find(await tree(acme), 'Doomed')).toBeUndefined();
    const memberships = await ctx.database.db
      .selectFrom('department_members')
      .selectAll()
      .where('department_id', '=', dept.departmentId)
      .execute();
    expect(memberships).toEqual([]);
    const users = await ctx.database.db
      .selectFrom('company_members')
      .select('account_id')
      .where('company_id', '=', acme.companyId)
      .where('account_id', 'in', [staffId, clerkId])
      .execute();
    expect(users).toHaveLength(2);
    const events = await auditOf(dept.departmentId);
    expect(events.at(-1)).toMatchObject({
      action: 'department.delete',
      before: { name: 'Doomed', parentId: rootId, memberIds: [staffId, clerkId].sort() },
      after: null,
    });
    const again = await departmentCall('del', acme, { departmentId: dept.departmentId });
    expect(again.data).toMatchObject({ reason: 'department.not_found' });
  });
});

describe('department members', () => {
  it('counts people with sub departments, each once, beside the direct count (issue 35 item 10)', async () => {
    const rootId = await rootOf(acme);
    const team = (await create(acme, { name: 'Tally', parentId: rootId })).data;
    const squad = (await create(acme, { name: 'Tally squad', parentId: team.departmentId })).data;
    const add = (departmentId: string, userIds: string[]) =>
      call(ctx, '/api/v1/manage/department/member/add', { departmentId, userIds }, as(acme));
    await add(team.departmentId, [staffId]);
    await add(squad.departmentId, [staffId, clerkId]);
    const root = await tree(acme);
    expect(find(root, 'Tally')).toMatchObject({ memberCount: 1, totalMemberCount: 2 });
    expect(find(root, 'Tally squad')).toMatchObject({ memberCount: 2, totalMemberCount: 2 });
    expect(root.totalMemberCount).toBeGreaterThanOrEqual(2);
    expect(root.totalMemberCount).toBeGreaterThanOrEqual(root.memberCount);
    await departmentCall('del', acme, { departmentId: squad.departmentId });
    await departmentCall('del', acme, { departmentId: team.departmentId });
  });

  it('adds idempotently, counts, removes, and audits each change', async () => {
    const rootId = await rootOf(acme);
    const dept = (await create(acme, { name: 'Team', parentId: rootId })).data;
    const add = (userIds: string[]) =>
      call<{ added: number }>(
        ctx,
        '/api/v1/manage/department/member/add',
        { departmentId: dept.departmentId, userIds },
        as(acme),
      );
    const remove = (userIds: string[]) =>
      call<{ removed: number }>(
        ctx,
        '/api/v1/manage/department/member/remove',
        { departmentId: dept.departmentId, userIds },
        as(acme),
      );
    expect((await add([staffId, staffId])).data).toEqual({ added: 1 });
    expect((await add([staffId, clerkId])).data).toEqual({ added: 1 });
    expect((await add([staffId])).data).toEqual({ added: 0 });
    expect(find(await tree(acme), 'Team')?.memberCount).toBe(2);
    expect((await remove([clerkId])).data).toEqual({ removed: 1 });
    expect((await remove([clerkId])).data).toEqual({ removed: 0 });
    expect(find(await tree(acme), 'Team')?.memberCount).toBe(1);
    const events = (await auditOf(dept.departmentId)).slice(1);
    expect(events.map((e) => [e.action, e.before, e.after])).toEqual([
      ['department.member_add', null, { userIds: [staffId] }],
      ['department.member_add', null, { userIds: [clerkId] }],
      ['department.member_remove', { userIds: [clerkId] }, null],
    ]);
  });

  it('refuses users of another company, unknown users and bad input, storing nothing', async () => {
    const rootId = await rootOf(acme);
    const dept = (await create(acme, { name: 'Closed Team', parentId: rootId })).data;
    const before = await stored();
    for (const path of ['/api/v1/manage/department/member/add', '/api/v1/manage/department/member/remove']) {
      const foreign = await call(
        ctx,
        path,
        { departmentId: dept.departmentId, userIds: [staffId, outsiderId] },
        as(acme),
      );
      expect(foreign).toMatchObject({ code: 404, data: { reason: 'user.not_found' } });
      expect(JSON.stringify(foreign)).not.toContain('dept-outsider');
      expect(
        (await call(ctx, path, { departmentId: dept.departmentId, userIds: ['nobody'] }, as(acme))).code,
      ).toBe(404);
      expect((await call(ctx, path, { departmentId: dept.departmentId, userIds: [] }, as(acme))).code).toBe(
        400,
      );
      expect((await call(ctx, path, { departmentId: dept.departmentId }, as(acme))).code).toBe(400);
      expect(
        (await call(ctx, path, { departmentId: 'no-such', userIds: [staffId] }, as(acme))).data,
      ).toMatchObject({
        reason: 'department.not_found',
      });
    }
    expect(await stored()).toBe(before);
  });
});

describe('tenant wall', () => {
  it("answers another company's department as not found on every call, changing nothing", async () => {
    const theirs = (await create(other, { name: 'Their Secret Dept', parentId: await rootOf(other) })).data;
    await departmentCall('member/add', other, { departmentId: theirs.departmentId, userIds: [outsiderId] });
    const before = await stored();
    const rootId = await rootOf(acme);
    const probes: [string, Record<string, unknown>][] = [
      ['/api/v1/manage/department/create', { name: 'Planted', parentId: theirs.departmentId }],
      ['/api/v1/manage/department/update', { departmentId: theirs.departmentId, name: 'Renamed' }],
      ['/api/v1/manage/department/move', { departmentId: theirs.departmentId, parentId: rootId }],
      ['/api/v1/manage/department/move', { departmentId: rootId, parentId: theirs.departmentId }],
      ['/api/v1/manage/department/del', { departmentId: theirs.departmentId }],
      ['/api/v1/manage/department/member/add', { departmentId: theirs.departmentId, userIds: [staffId] }],
      [
        '/api/v1/manage/department/member/remove',
        { departmentId: theirs.departmentId, userIds: [outsiderId] },
      ],
    ];
    for (const [path, body] of probes) {
      const answer = await call(ctx, path, body, as(acme));
      expect({ path, code: answer.code, reason: (answer.data as { reason?: string }).reason }).toEqual({
        path,
        code: 404,
        reason: 'department.not_found',
      });
      expect(JSON.stringify(answer)).not.toContain('Their Secret Dept');
    }
    // The other company in the company_id header: not an administrator there.
    const header = await call(
      ctx,
      '/api/v1/manage/department/tree',
      {},
      { token: acme.token, companyId: other.companyId },
    );
    expect(header).toMatchObject({ code: 404, data: { reason: 'company.not_found' } });
    expect(JSON.stringify(await tree(acme))).not.toContain('Their Secret Dept');
    expect(await stored()).toBe(before);
  });
});

describe('exports for the users module', () => {
  it('subtreeIds lists a department and everything below it, in its company only', async () => {
    const owner = await ownerWithCompany(ctx, 'subtree-owner', 'Subtree Co');
    const rootId = await rootOf(owner);
    const a = (await create(owner, { name: 'A', parentId: rootId })).data.departmentId;
    const a1 = (await create(owner, { name: 'A1', parentId: a })).data.departmentId;
    const a11 = (await create(owner, { name: 'A11', parentId: a1 })).data.departmentId;
    const b = (await create(owner, { name: 'B', parentId: rootId })).data.departmentId;
    const db = ctx.database.db;
    expect(await subtreeIds(db, owner.companyId, a)).toEqual([a, a1, a11]);
    expect(await subtreeIds(db, owner.companyId, a11)).toEqual([a11]);
    expect((await subtreeIds(db, owner.companyId, rootId)).sort()).toEqual([rootId, a, a1, a11, b].sort());
    await expect(subtreeIds(db, other.companyId, a)).rejects.toMatchObject({
      reason: 'department.not_found',
    });
    await expect(assertDepartmentsInCompany(db, owner.companyId, [a, a11, a])).resolves.toBeUndefined();
    await expect(assertDepartmentsInCompany(db, owner.companyId, [])).resolves.toBeUndefined();
    await expect(assertDepartmentsInCompany(db, other.companyId, [a])).rejects.toMatchObject({
      reason: 'department.not_found',
    });
    await expect(assertDepartmentsInCompany(db, owner.companyId, [a, 'nope'])).rejects.toMatchObject({
      reason: 'department.not_found',
    });
  });
});
