import { describe, expect, it } from 'vitest';
import { createExpiringSet } from './expiring-set.ts';

describe('expiring set', () => {
  it('holds a key until its time, and never more keys than its capacity', () => {
    let now = 1_000;
    const set = createExpiringSet(3, () => now);
    set.add('a', 100);
    set.add('b', 10);
    set.add('c', 100);
    expect(set.has('a')).toBe(true);
    now += 50;
    // Full: the ended key goes first.
    set.add('d', 100);
    expect([set.has('a'), set.has('b'), set.has('c'), set.has('d')]).toEqual([true, false, true, true]);
    // Full of live keys: the oldest goes.
    for (let i = 0; i < 1000; i++) set.add(`x${i}`, 100);
    expect(set.size).toBe(3);
    expect(set.has('x999')).toBe(true);
    expect(set.has('a')).toBe(false);
    now += 200;
    expect(set.has('x999')).toBe(false);
  });
});
