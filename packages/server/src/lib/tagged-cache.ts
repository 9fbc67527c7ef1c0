/**
 * Values read from the database, kept in memory until a change announces that they may be
 * stale. Each kept value carries tags (say `a:<account id>`); `forget(tag)` drops every value
 * with that tag. A read under way when any tag is forgotten is answered but not kept, so a load
 * that a change overtakes never outlives it. Values also expire after `maxAgeMs`, in case a notice
 * is lost with the connection that listens for them, and the oldest go first beyond `max`.
 */
export function createTaggedCache<T>(options: {
  maxAgeMs: number;
  max: number;
  /** The tags a loaded value is forgotten by; a value without tags is not kept. */
  tagsOf(value: T): readonly string[];
}) {
  interface Slot {
    value?: T;
    loadedAt?: number;
    loading?: Promise<T>;
    tags?: readonly string[];
  }
  const slots = new Map<string, Slot>();
  const keysByTag = new Map<string, Set<string>>();
  /** Keys whose value is being read. */
  const loading = new Set<string>();

  function drop(key: string) {
    const slot = slots.get(key);
    slots.delete(key);
    loading.delete(key);
    for (const tag of slot?.tags ?? []) {
      const keys = keysByTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) keysByTag.delete(tag);
    }
  }

  function keep(key: string, slot: Slot, value: T) {
    const tags = options.tagsOf(value);
    if (tags.length === 0) return drop(key);
    slot.value = value;
    slot.loadedAt = Date.now();
    slot.loading = undefined;
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
      if (Date.now() - slot.loadedAt < options.maxAgeMs) return slot.value as T;
      drop(key);
    }
    const fresh: Slot = {};
    fresh.loading = load().then(
      (value) => {
        loading.delete(key);
        // Forgotten meanwhile (the slot was dropped or replaced): answered, not kept.
        if (slots.get(key) === fresh) keep(key, fresh, value);
        return value;
      },
      (error: unknown) => {
        if (slots.get(key) === fresh) drop(key);
        throw error;
      },
    );
    slots.set(key, fresh);
    loading.add(key);
    return fresh.loading;
  }

  /** Drops the values with this tag, and every read under way. */
  function forget(tag: string) {
    for (const key of [...(keysByTag.get(tag) ?? []), ...loading]) drop(key);
  }

  return { read, forget, size: () => slots.size };
}

export type TaggedCache<T> = ReturnType<typeof createTaggedCache<T>>;
