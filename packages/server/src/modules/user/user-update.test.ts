import { describe, expect, it } from 'vitest';
import { call, sessionFor, type TestContext, TINY_PNG } from '../../test/harness.ts';
import { type Company, userTestbed } from '../../test/user-kit.ts';

/** Changing who a user is (user-profile.service.ts): their profile and departments, and their photo. */

let ctx: TestContext;
let acme: Company;
let other: Company;

const { asAcme, createUser, count, snapshot, auditOf, rootOf, department, uploadPhoto } = userTestbed(
  (bed) => {
    ({ ctx, acme, other } = bed);
  },
);

describe('user update', () => {
  it('changes the profile and departments of a managed user, audited with before and after', async () => {
    const created = await createUser({ username: 'upd-one', email: 'upd@example.com' });
    const support = await department(acme, 'Support', await rootOf(acme));
    const updated = await asAcme('update', {
      userId: created.data.userId,
      name: 'Updated Name',
      nickname: '',
      email: 'UPD2@example.com',
      phone: '13700000000',
      departmentIds: [support],
      mustChangePassword: false,
    });
    expect(updated.data).toMatchObject({
      name: 'Updated Name',
      nickname: null,
      email: 'upd2@example.com',
      phone: '13700000000',
      mustChangePassword: false,
      departments: [{ departmentId: support, name: 'Support' }],
    });
    const audit = await auditOf(created.data.userId, 'user.update');
    expect(audit[0]?.before).toMatchObject({ email: 'upd@example.com', departments: [] });
    expect(audit[0]?.after).toMatchObject({ email: 'upd2@example.com', departments: [support] });
    // Leaving a field out keeps it.
    const kept = await asAcme('update', { userId: created.data.userId, nickname: 'Nick' });
    expect(kept.data).toMatchObject({ name: 'Updated Name', email: 'upd2@example.com', nickname: 'Nick' });
    const cleared = await asAcme('update', { userId: created.data.userId, departmentIds: [] });
    expect(cleared.data.departments).toEqual([]);
  });

  it('refuses taken or bad values and profile changes of people the company does not manage, storing nothing', async () => {
    const created = await createUser({ username: 'upd-two' });
    await createUser({ username: 'upd-three', email: 'three@example.com', phone: '13600000000' });
    const before = await snapshot();
    const cases: [Record<string, unknown>, string][] = [
      [{ userId: created.data.userId, email: 'THREE@example.com' }, 'user.email_taken'],
      [{ userId: created.data.userId, phone: '136 0000 0000' }, 'user.phone_taken'],
      [{ userId: created.data.userId, email: 'bad' }, 'user.email_invalid'],
      [{ userId: created.data.userId, departmentIds: [await rootOf(other)] }, 'department.not_found'],
      [{ userId: acme.account.id, name: 'Owner Renamed' }, 'user.not_managed'],
      [{ userId: acme.account.id, mustChangePassword: true }, 'user.not_managed'],
      [{ userId: other.account.id, name: 'x' }, 'user.not_found'],
      [{ userId: 'no-such-user', name: 'x' }, 'user.not_found'],
      [{ name: 'x' }, 'request.invalid'],
    ];
    for (const [body, reason] of cases) {
      const response = await asAcme('update', body);
      expect({ body, reason: (response.data as unknown as { reason: string }).reason }).toEqual({
        body,
        reason,
      });
    }
    expect(await snapshot()).toEqual(before);
    const zh = await asAcme('update', { userId: acme.account.id, nickname: 'x' }, 'zh');
    expect(zh).toMatchObject({
      code: 409,
      msg: '该用户的账号不由本公司管理：此处只能修改其状态、部门和成员关系',
    });
    // The record of a person the company does not manage: departments may change.
    const root = await rootOf(acme);
    const owner = await asAcme('update', { userId: acme.account.id, departmentIds: [root] });
    expect(owner.data).toMatchObject({ managed: false, departments: [{ departmentId: root }] });
  });
});

describe('user photo', () => {
  const gif = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');

  it('stores a png or gif photo of a managed user and serves it with its content type', async () => {
    const created = await createUser({ username: 'photogenic' });
    const uploaded = await uploadPhoto(created.data.userId, TINY_PNG);
    expect(uploaded.code).toBe(200);
    expect(uploaded.data.photo).toMatch(/^\/api\/v1\/files\/[0-9a-f-]{36}$/);
    const served = await ctx.tessera.app.inject({ method: 'GET', url: uploaded.data.photo ?? '' });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.rawPayload.equals(TINY_PNG)).toBe(true);

    // Declared as png, really a gif: the bytes decide. The previous photo is removed.
    const files = await count('files');
    const replaced = await uploadPhoto(created.data.userId, gif, 'image/png');
    expect(replaced.code).toBe(200);
    expect(await count('files')).toBe(files);
    const servedGif = await ctx.tessera.app.inject({ method: 'GET', url: replaced.data.photo ?? '' });
    expect(servedGif.headers['content-type']).toBe('image/gif');
    expect((await ctx.tessera.app.inject({ method: 'GET', url: uploaded.data.photo ?? '' })).statusCode).toBe(
      404,
    );
    expect(await auditOf(created.data.userId, 'user.photo')).toHaveLength(2);

    const userToken = await sessionFor(ctx, created.data.userId);
    const self = await call(ctx, '/api/v1/manage/user/self-details', {}, { token: userToken });
    expect(self.data).toEqual({
      userId: created.data.userId,
      username: 'photogenic',
      name: null,
      nickname: null,
      photo: replaced.data.photo,
    });
  });

  it('refuses other types, oversized files and people the company does not manage, storing nothing', async () => {
    const created = await createUser({ username: 'no-photo' });
    const before = await snapshot();
    const text = await uploadPhoto(
      created.data.userId,
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
      'image/svg+xml',
    );
    expect(text).toMatchObject({ code: 415, data: { reason: 'upload.unsupported_type' } });
    expect(text.msg).toBe('This file type is not allowed; use one of: PNG, JPEG, GIF, WEBP');
    const big = Buffer.concat([TINY_PNG, Buffer.alloc(2 * 1024 * 1024)]);
    expect(await uploadPhoto(created.data.userId, big)).toMatchObject({
      code: 413,
      data: { reason: 'upload.too_large' },
    });
    expect((await uploadPhoto(acme.account.id, TINY_PNG)).data).toMatchObject({ reason: 'user.not_managed' });
    expect((await uploadPhoto(other.account.id, TINY_PNG)).data).toMatchObject({ reason: 'user.not_found' });
    expect(await snapshot()).toEqual(before);
    expect((await asAcme('detail', { userId: created.data.userId })).data.photo).toBeNull();
  });
});
