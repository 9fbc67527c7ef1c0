/**
 * Keys that each hold until a time, at most `capacity` of them: past the cap, ended keys go
 * first, then the oldest. For in-memory blocks that an attacker with many addresses must not
 * grow without bound (the lasting budgets live in the database).
 */
export function createExpiringSet(capacity: number, now: () => number = Date.now) {
  const until = new Map<string, number>();
  return {
    /** Whether the key holds now; an ended key is forgotten. */
    has(key: string): boolean {
      const end = until.get(key);
      if (end === undefined) return false;
      if (end > now()) return true;
      until.delete(key);
      return false;
    },
    add(key: string, forMs: number) {
      until.delete(key);
      if (until.size >= capacity) {
        const at = now();
        for (const [other, end] of until) if (end <= at) until.delete(other);
        for (const other of until.keys()) {
          if (until.size < capacity) break;
          until.delete(other);
        }
      }
      until.set(key, now() + forMs);
    },
    get size() {
      return until.size;
    },
  };
}
