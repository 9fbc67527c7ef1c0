import type { user } from '@tessera/contract';
import { afterAll, beforeAll, expect } from 'vitest';
import type { z } from 'zod';
import { call, ownerWithCompany, startTestApp, type TestContext, upload } from './harness.ts';

/**
 * The set-up the tests of the users screen share (modules/user/user-*.test.ts): a listening server
 * with two companies, Acme (whose owner calls the user API) and Other Co (whose people Acme never
 * reaches), and the calls and counts those tests make.
 */

export type UserView = z.infer<typeof user.user>;
export type Company = Awaited<ReturnType<typeof ownerWithCompany>>;

/** The password of every user these tests create. */
export const PASSWORD = 'Sunny-Day-42';

interface UserTestbed {
  ctx: TestContext;
  acme: Company;
  other: Company;
}

/**
 * Starts the file's server (listening: the sign-in pages are browsed over HTTP) with Acme and Other
 * Co before its tests, hands them to `started`, and closes it after them; answers the calls and
 * counts on it.
 */
export function userTestbed(started: (bed: UserTestbed) => void) {
  let bed: UserTestbed | undefined;
  beforeAll(async () => {
    const ctx = await startTestApp({ listen: true });
    const acme = await ownerWithCompany(ctx, 'acme-owner', 'Acme');
    const other = await ownerWithCompany(ctx, 'other-owner', 'Other Co');
    bed = { ctx, acme, other };
    started(bed);
  });
  afterAll(() => bed?.ctx.close());
  return userKit(() => {
    if (!bed) throw new Error('the user testbed starts before the tests');
    return bed;
  });
}

type Counted = 'accounts' | 'company_members' | 'audit_events' | 'files' | 'department_members';

/** The calls and counts of the users tests, on the testbed of the file (read at each call). */
function userKit(testbed: () => UserTestbed) {
  const db = () => testbed().ctx.database.db;

  const asAcme = <T = UserView>(path: string, body: unknown = {}, lang?: string) =>
    call<T>(testbed().ctx, `/api/v1/manage/user/${path}`, body, {
      token: testbed().acme.token,
      companyId: testbed().acme.companyId,
      lang,
    });

  const createUser = (fields: Record<string, unknown>, lang?: string) =>
    asAcme('create', { password: PASSWORD, confirmPassword: PASSWORD, ...fields }, lang);

  const count = async (table: Counted) =>
    Number(
      (
        await db()
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  /** What a refused call must leave unchanged. */
  const snapshot = async () => ({
    accounts: await count('accounts'),
    members: await count('company_members'),
    audit: await count('audit_events'),
    files: await count('files'),
    departmentMembers: await count('department_members'),
  });

  const auditOf = (targetId: string, action: string) =>
    db()
      .selectFrom('audit_events')
      .selectAll()
      .where('target_id', '=', targetId)
      .where('action', '=', action)
      .orderBy('created_at')
      .execute();

  async function rootOf(company: { token: string; companyId: string }) {
    const tree = await call<{ tree: { departmentId: string } }>(
      testbed().ctx,
      '/api/v1/manage/department/tree',
      {},
      { token: company.token, companyId: company.companyId },
    );
    return tree.data.tree.departmentId;
  }

  async function department(company: { token: string; companyId: string }, name: string, parentId: string) {
    const created = await call<{ departmentId: string }>(
      testbed().ctx,
      '/api/v1/manage/department/create',
      { name, parentId },
      { token: company.token, companyId: company.companyId },
    );
    expect(created.code).toBe(200);
    return created.data.departmentId;
  }

  /** A multipart upload with text fields before the file, as the console sends the photo. */
  async function uploadPhoto(userId: string, bytes: Buffer, type = 'image/png') {
    const { ctx, acme } = testbed();
    const response = await upload(
      ctx,
      '/api/v1/manage/user/photo',
      { bytes, filename: 'photo', type },
      { token: acme.token, companyId: acme.companyId, fields: { userId } },
    );
    return response as unknown as { code: number; msg: string; data: UserView & { reason?: string } };
  }

  return { asAcme, createUser, count, snapshot, auditOf, rootOf, department, uploadPhoto };
}
