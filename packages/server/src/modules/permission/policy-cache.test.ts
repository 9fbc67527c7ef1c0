import { describe, expect, it } from 'vitest';
import type { PersonFacts } from './evaluator.ts';
import { createPersonBatcher } from './policy-cache.ts';

const facts = (accountId: string): PersonFacts => ({
  accountId,
  username: accountId,
  enabled: true,
  roleIds: [],
  departmentIds: [],
});

describe('the person batcher of the decision cache', () => {
  it('reads the people asked about in one round in one statement per company, and answers each', async () => {
    const reads: { companyId: string; ids: string[] }[] = [];
    const load = createPersonBatcher(async (companyId, ids) => {
      reads.push({ companyId, ids: [...ids] });
      return ids.filter((id) => id !== 'stranger').map(facts);
    });
    const answers = await Promise.all([
      load('c1', 'alice'),
      load('c1', 'bob'),
      load('c1', 'alice'),
      load('c2', 'alice'),
      load('c1', 'stranger'),
    ]);
    expect(reads).toEqual([
      { companyId: 'c1', ids: ['alice', 'bob', 'stranger'] },
      { companyId: 'c2', ids: ['alice'] },
    ]);
    expect(answers.map((a) => a?.accountId ?? null)).toEqual(['alice', 'bob', 'alice', 'alice', null]);
    // The next round is read again, on its own.
    await load('c1', 'bob');
    expect(reads).toHaveLength(3);
  });

  it('hands a failed read to everyone of its batch, and at most 500 people go in one statement', async () => {
    const sizes: number[] = [];
    const failing = createPersonBatcher(async () => {
      throw new Error('connection lost');
    });
    const results = await Promise.allSettled([failing('c1', 'a'), failing('c1', 'b')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    const load = createPersonBatcher(async (_companyId, ids) => {
      sizes.push(ids.length);
      return ids.map(facts);
    });
    await Promise.all(Array.from({ length: 1_200 }, (_, i) => load('c1', `p${i}`)));
    expect(sizes).toEqual([500, 500, 200]);
  });
});
