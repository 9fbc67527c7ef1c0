import { describe, expect, it } from 'vitest';
import { createAnswerCache } from './answer-cache.ts';

describe('RADIUS answers kept for retransmissions', () => {
  it('answers a copy within the window, and forgets requests once it has passed', () => {
    const cache = createAnswerCache(30_000, 1000);
    cache.arrived('a', 0);
    expect(cache.seen('a', 10)).toEqual({ expires: 30_000 });
    cache.answered('a', Buffer.from('accept'), 20);
    expect(cache.seen('a', 29_000)?.answer?.toString()).toBe('accept');
    expect(cache.seen('a', 30_020)).toBeUndefined();
    // Requests arriving later forget the expired ones: the cache does not grow with traffic.
    for (let i = 0; i < 500; i++) cache.arrived(`r${i}`, 1_000 + i * 100);
    expect(cache.size).toBe(300);
    expect(cache.seen('r199', 50_000)).toBeUndefined();
    expect(cache.seen('r200', 50_000)).toBeDefined();
  });

  it('holds at most its maximum, forgetting the oldest first', () => {
    const cache = createAnswerCache(30_000, 3);
    for (const key of ['a', 'b', 'c', 'd']) cache.arrived(key, 0);
    expect(cache.size).toBe(3);
    expect(cache.seen('a', 1)).toBeUndefined();
    expect(cache.seen('d', 1)).toBeDefined();
  });
});
