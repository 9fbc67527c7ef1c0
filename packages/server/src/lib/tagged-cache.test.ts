import { describe, expect, it } from 'vitest';
import { createTaggedCache } from './tagged-cache.ts';

type Row = { id: string; tags: string[] };

describe('the tagged cache', () => {
  const cacheOf = (max = 10) =>
    createTaggedCache<Row[]>({ maxAgeMs: 60_000, max, tagsOf: (rows) => rows.flatMap((r) => r.tags) });

  it('keeps a value until one of its tags is forgotten, and reads once for callers that wait together', async () => {
    const cache = cacheOf();
    let reads = 0;
    const load = async () => {
      reads++;
      return [{ id: 'x', tags: ['a:1', 'c:9'] }];
    };
    const [first, second] = await Promise.all([cache.read('k', load), cache.read('k', load)]);
    expect(first).toBe(second);
    expect(cache.read('k', load)).toBe(first);
    expect(reads).toBe(1);
    cache.forget('a:2');
    expect(cache.read('k', load)).toBe(first);
    cache.forget('c:9');
    await cache.read('k', load);
    expect(reads).toBe(2);
  });

  it('does not keep a read that a change overtook, nor a value without tags', async () => {
    const cache = cacheOf();
    let release: (rows: Row[]) => void = () => {};
    const slow = cache.read('k', () => new Promise<Row[]>((done) => (release = done)));
    cache.forget('anything');
    release([{ id: 'stale', tags: ['a:1'] }]);
    expect((await slow)[0]?.id).toBe('stale');
    let reads = 0;
    const fresh = async () => {
      reads++;
      return [{ id: 'fresh', tags: ['a:1'] }];
    };
    expect((await cache.read('k', fresh))[0]?.id).toBe('fresh');
    expect(reads).toBe(1);
    await cache.read('none', async () => []);
    expect(cache.size()).toBe(1);
  });

  it('lets the oldest values go beyond its bound', async () => {
    const cache = cacheOf(2);
    for (const key of ['a', 'b', 'c']) await cache.read(key, async () => [{ id: key, tags: [`t:${key}`] }]);
    expect(cache.size()).toBe(2);
    let reads = 0;
    await cache.read('a', async () => {
      reads++;
      return [{ id: 'a', tags: ['t:a'] }];
    });
    expect(reads).toBe(1);
  });
});
