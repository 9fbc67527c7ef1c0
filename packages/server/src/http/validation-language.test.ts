import { allCalls, zhFieldNames } from '@tessera/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { call, ownerWithCompany, startTestApp, type TestContext } from '../test/harness.ts';

/**
 * Issue 35 item 22: a Chinese request got "password 为必填项". Validation messages name the field
 * in the caller's language (Accept-Language here; the `lang` cookie wins over it).
 */

let ctx: TestContext;
let owner: Awaited<ReturnType<typeof ownerWithCompany>>;
beforeAll(async () => {
  ctx = await startTestApp();
  owner = await ownerWithCompany(ctx, 'wen');
});
afterAll(() => ctx.close());

const inChinese = (path: string, body: unknown) =>
  call(ctx, path, body, { token: owner.token, companyId: owner.companyId, lang: 'zh-CN,zh;q=0.9' });
const latin = /[A-Za-z]/;

/** Every property name of a JSON schema, nested ones included. */
function propertyNames(schema: unknown, into = new Set<string>()): Set<string> {
  if (!schema || typeof schema !== 'object') return into;
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && value && typeof value === 'object') {
      for (const [name, inner] of Object.entries(value)) {
        into.add(name);
        propertyNames(inner, into);
      }
    } else if (typeof value === 'object') propertyNames(value, into);
  }
  return into;
}

describe('validation messages in Chinese (issue 35 item 22)', () => {
  it('name the field in Chinese for a few calls', async () => {
    const missing = await inChinese('/api/v1/manage/user/create', {
      role: 'member',
      password: 'Sunny-Day-42',
    });
    expect(missing).toMatchObject({ code: 400, msg: '用户名为必填项' });
    const sorted = await inChinese('/api/v1/manage/user/list', { sortBy: 'password' });
    expect(sorted.msg).toBe('排序字段不是允许的取值');
    const paged = await inChinese('/api/v1/manage/user/list', { pageSize: 1000 });
    expect(paged.msg).toBe('每页条数最大为 100');
    const typed = await inChinese('/api/v1/manage/user/list', { keyword: 42 });
    expect(typed.msg).toBe('关键字的类型不正确');
    for (const answer of [missing, sorted, paged, typed]) expect(answer.msg).not.toMatch(latin);
    // The field the console marks stays the API's name.
    expect(missing.data).toMatchObject({
      fields: [{ field: 'username', message: '用户名为必填项' }, { field: 'confirmPassword' }],
    });
  });

  it('keep the API names in English', async () => {
    const answer = await call(ctx, '/api/v1/manage/user/list', { sortBy: 'password' }, owner);
    expect(answer.msg).toBe('sortBy is not one of the allowed values');
  });

  it('have a Chinese name for every field of every call', () => {
    const unnamed = new Set<string>();
    for (const { request } of allCalls) {
      for (const name of propertyNames(z.toJSONSchema(request, { io: 'input', unrepresentable: 'any' })))
        if (!zhFieldNames[name]) unnamed.add(name);
    }
    expect([...unnamed]).toEqual([]);
  });
});
