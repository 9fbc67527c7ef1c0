import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSealer } from '../../lib/crypto.ts';
import { pairwiseSubjects } from './subject.ts';

/** Issue 28: a `sub` resolves back to its account in its own company only, without a lookup. */
const subjects = pairwiseSubjects(createSealer(randomBytes(32)));
const accountIds = fc.oneof(
  fc.uuid().map((id) => id.toLowerCase()),
  fc.string({ minLength: 1, maxLength: 30 }),
);

describe('pairwise subjects', () => {
  it('resolve to their account in their company, and to nobody in another', () => {
    fc.assert(
      fc.property(accountIds, fc.uuid(), fc.uuid(), (accountId, company, other) => {
        fc.pre(company !== other);
        const sub = subjects.subjectOf(company, accountId);
        expect(sub).toMatch(/^[\w-]+$/);
        expect(subjects.accountOf(company, sub)).toBe(accountId);
        expect(subjects.accountOf(other, sub)).toBeNull();
        expect(subjects.accountOf(other, subjects.subjectOf(other, accountId))).toBe(accountId);
      }),
    );
  });

  it('are 44 characters for account ids (UUIDs), and a changed one resolves to nobody', () => {
    const company = randomUUID();
    const accountId = randomUUID();
    const sub = subjects.subjectOf(company, accountId);
    expect(sub).toHaveLength(44);
    expect(sub).not.toContain(accountId.slice(0, 8));
    expect(subjects.accountOf(company, accountId)).toBeNull();
    fc.assert(
      fc.property(fc.nat(sub.length - 1), fc.constantFrom(...'AQgw-_'), (at, replacement) => {
        const changed = `${sub.slice(0, at)}${replacement}${sub.slice(at + 1)}`;
        fc.pre(changed !== sub);
        expect(subjects.accountOf(company, changed)).toBeNull();
      }),
    );
  });
});
