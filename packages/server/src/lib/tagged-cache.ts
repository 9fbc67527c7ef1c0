/**
 * Values read from the database, kept in memory until a change announces that they may be
 * stale: the one mechanism of every cache that promises "the next request". Each kept value
 * carries tags (say `a:<account id>`); `forget(tag)` drops every value with that tag. The notices
 * come through `DatabaseHandle.listen`, which hands a change made by this process to the cache
 * before the statement that committed it returns, and other instances' changes as PostgreSQL
 * delivers them. A read under way when any tag is forgotten is answered but not kept (its
 * snapshot may predate the change, and its tags are known only once it is read), so a load that a
 * change overtakes never outlives it. Values also expire after `maxAgeMs`, in case a notice is lost
 * with the connection that listens for them, and the oldest (or, with `recency`, the least
 * recently used) go first beyond `max`.
 */
export function createTaggedCache<T>(options: {
  maxAgeMs: number;
  max: number;
  /** The tags a loaded value is forgotten by; a value without tags is not kept. */
  tagsOf(value: T, key: string): readonly string[];
  /** Each hit makes a value the newest (the bound then lets the least recently used go). */
  recency?: boolean;
}) {
  interface Slot {
    value?: T;
    loadedAt?: number;
    loading?: Promise<T>;
    tags?: readonly string[];
  }
  const slots = new Map<string, Slot>();
  const keysByTag = new Map<string, Set<string>>();
  /**
   * Counts `forget` calls. A read keeps its value only if none came while it was under way: a
   * value's tags are known only once it is read, so any notice may concern it.
   */
  let generation = 0;
  /** Keys whose slot is a read under way (a later read of a forgotten key has its own slot). */
  const loadingKeys = new Set<string>();

  function drop(key: string) {
    const slot = slots.get(key);
    slots.delete(key);
    loadingKeys.delete(key);
    for (const tag of slot?.tags ?? []) {
      const keys = keysByTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) keysByTag.delete(tag);
    }
  }

  function keep(key: string, slot: Slot, value: T) {
    const tags = options.tagsOf(value, key);
    if (tags.length === 0) return drop(key);
    slot.value = value;
    slot.loadedAt = Date.now();
    slot.loading = undefined;
    loadingKeys.delete(key);
    slot.tags = tags;
    for (const tag of tags) {
      let keys = keysByTag.get(tag);
      if (!keys) {
        keys = new Set();
        keysByTag.set(tag, keys);
      }
      keys.add(key);
    }
    while (slots.size > options.max) {
      const oldest = slots.keys().next().value;
      if (oldest === undefined) break;
      drop(oldest);
    }
  }

  /** The kept value of `key`, or the one `load` reads (one read at a time per key). */
  function read(key: string, load: () => Promise<T>): T | Promise<T> {
    const slot = slots.get(key);
    if (slot?.loading) return slot.loading;
    if (slot?.loadedAt !== undefined) {
      if (Date.now() - slot.loadedAt < options.maxAgeMs) {
        if (options.recency) {
          slots.delete(key);
          loadingKeys.delete(key);
          slots.set(key, slot);
        }
        return slot.value as T;
      }
      drop(key);
    }
    const fresh: Slot = {};
    const startedIn = generation;
    fresh.loading = load().then(
      (value) => {
        if (slots.get(key) !== fresh) return value;
        // A change was announced meanwhile: answered, not kept.
        if (generation === startedIn) keep(key, fresh, value);
        else drop(key);
        return value;
      },
      (error: unknown) => {
        if (slots.get(key) === fresh) drop(key);
        throw error;
      },
    );
    slots.set(key, fresh);
    loadingKeys.add(key);
    return fresh.loading;
  }

  /** Drops the values with this tag, and the reads under way (the next read starts afresh). */
  function forget(tag: string) {
    generation++;
    for (const key of [...(keysByTag.get(tag) ?? []), ...loadingKeys]) drop(key);
  }

  return { read, forget, size: () => slots.size };
}

export type TaggedCache<T> = ReturnType<typeof createTaggedCache<T>>;
