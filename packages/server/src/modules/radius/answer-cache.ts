/**
 * The requests a RADIUS server remembers for retransmissions (RFC 5080, section 2.2.2): a copy
 * that comes again within `keepMs` gets the answer already sent, without a second check, and a
 * copy of a request still being worked out is dropped. Entries are kept in arrival order, so the
 * expired ones are at the front and are forgotten as requests arrive: the cache holds the last
 * `keepMs` of requests, and never more than `max` (then the oldest go first).
 */
export function createAnswerCache(keepMs: number, max: number) {
  const entries = new Map<string, { answer?: Buffer; expires: number }>();

  function forgetExpired(now: number) {
    for (const [key, entry] of entries) {
      if (entry.expires > now && entries.size < max) return;
      entries.delete(key);
    }
  }

  return {
    /** The request's entry, if it came within `keepMs` (`answer` is undefined while it is worked out). */
    seen(key: string, now = Date.now()) {
      const entry = entries.get(key);
      return entry && entry.expires > now ? entry : undefined;
    },
    /** Remembers a request as it arrives, after forgetting those that expired. */
    arrived(key: string, now = Date.now()) {
      forgetExpired(now);
      entries.delete(key);
      entries.set(key, { expires: now + keepMs });
    },
    /** Remembers the answer sent to a request, for its copies. */
    answered(key: string, answer: Buffer, now = Date.now()) {
      entries.set(key, { answer, expires: now + keepMs });
    },
    get size() {
      return entries.size;
    },
  };
}
