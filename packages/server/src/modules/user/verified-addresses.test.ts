import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, ownerWithCompany, startTestApp, type TestContext } from '../../test/harness.ts';

/**
 * Issue 29: an address the person proved stays verified only while it is theirs. An
 * administrator's change (console user edit; directory sync and directory sign-in use the same
 * update) clears the mark of the address that changed, and the console's user detail shows it.
 */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;

beforeAll(async () => {
  ctx = await startTestApp();
  owner = await ownerWithCompany(ctx, 'verified-owner', 'Verified Co');
});
afterAll(() => ctx.close());

const admin = <T = Record<string, unknown>>(path: string, body: unknown) =>
  call<T>(ctx, path, body, { token: owner.token, companyId: owner.companyId });

interface Detail {
  email: string | null;
  phone: string | null;
  emailVerifiedAt: string | null;
  phoneVerifiedAt: string | null;
}

/** A user of the company whose email and phone are both verified. */
async function verifiedUser(username: string, phone: string) {
  const created = await admin<{ userId: string }>('/api/v1/manage/user/create', {
    username,
    password: 'Long-Enough-Pass-1234',
    confirmPassword: 'Long-Enough-Pass-1234',
    email: `${username}@example.com`,
    phone,
    mustChangePassword: false,
  });
  expect(created.code, created.msg).toBe(200);
  const fresh = await admin<Detail>('/api/v1/manage/user/detail', { userId: created.data.userId });
  // A new address is not verified until the person proves it.
  expect(fresh.data).toMatchObject({ emailVerifiedAt: null, phoneVerifiedAt: null });
  const at = new Date('2026-11-01T08:00:00.000Z');
  await ctx.database.db
    .updateTable('accounts')
    .set({ email_verified_at: at, phone_verified_at: at })
    .where('id', '=', created.data.userId)
    .execute();
  return { userId: created.data.userId, at: at.toISOString() };
}

describe('an administrator changing an address', () => {
  it('clears the mark of the address that changed, keeps the other, and the detail shows both', async () => {
    const { userId, at } = await verifiedUser('v-anna', '+8613800000001');
    const shown = await admin<Detail>('/api/v1/manage/user/detail', { userId });
    expect(shown.data).toMatchObject({ emailVerifiedAt: at, phoneVerifiedAt: at });

    // The console's form sends every field: an unchanged email (in other letters) keeps its mark.
    const sameEmail = await admin<Detail>('/api/v1/manage/user/update', {
      userId,
      email: 'V-Anna@Example.com',
      phone: shown.data.phone,
      name: 'Anna',
    });
    expect(sameEmail.code, sameEmail.msg).toBe(200);
    expect(sameEmail.data).toMatchObject({ emailVerifiedAt: at, phoneVerifiedAt: at });

    const changed = await admin<Detail>('/api/v1/manage/user/update', {
      userId,
      email: 'anna.new@example.com',
      phone: shown.data.phone,
    });
    expect(changed.data).toMatchObject({
      email: 'anna.new@example.com',
      emailVerifiedAt: null,
      phoneVerifiedAt: at,
    });
    const phoneChanged = await admin<Detail>('/api/v1/manage/user/update', {
      userId,
      phone: '+8613911112222',
    });
    expect(phoneChanged.data).toMatchObject({ phoneVerifiedAt: null });
    const detail = await admin<Detail>('/api/v1/manage/user/detail', { userId });
    expect(detail.data).toMatchObject({ emailVerifiedAt: null, phoneVerifiedAt: null });
  });

  it('clears nothing when a change is refused', async () => {
    const { userId, at } = await verifiedUser('v-bert', '+8613800000002');
    const refused = await admin('/api/v1/manage/user/update', { userId, email: 'verified-owner-nope' });
    expect(refused.code).toBe(400);
    const detail = await admin<Detail>('/api/v1/manage/user/detail', { userId });
    expect(detail.data).toMatchObject({ emailVerifiedAt: at, phoneVerifiedAt: at });
  });

  it('any update of an address (the directory sync and sign-in run plain ones): a new or emptied address loses its mark', async () => {
    const { userId, at } = await verifiedUser('v-cleo', '+8613800000003');
    const update = (set: { email?: string | null; phone?: string | null; display_name?: string }) =>
      ctx.database.db.updateTable('accounts').set(set).where('id', '=', userId).execute();
    const marks = () =>
      ctx.database.db
        .selectFrom('accounts')
        .select(['email_verified_at', 'phone_verified_at'])
        .where('id', '=', userId)
        .executeTakeFirstOrThrow();
    await update({ display_name: 'Cleo' });
    expect(await marks()).toEqual({ email_verified_at: new Date(at), phone_verified_at: new Date(at) });
    await update({ email: 'V-CLEO@example.com' });
    expect((await marks()).email_verified_at).toEqual(new Date(at));
    await update({ phone: null });
    expect(await marks()).toEqual({ email_verified_at: new Date(at), phone_verified_at: null });
    await update({ email: 'cleo@elsewhere.example' });
    expect((await marks()).email_verified_at).toBeNull();
  });
});
