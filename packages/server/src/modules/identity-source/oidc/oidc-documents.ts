import type * as client from 'openid-client';

/**
 * The documents an upstream OpenID provider publishes (its discovery document and its JWKS),
 * kept per source and read again when their lifetime is over, not at every sign-in: the lifetime
 * is the answer's Cache-Control max-age, held between a minute and a day (an hour without one).
 * A read that fails keeps the last good document (the provider being down for a moment does not
 * stop sign-ins); the next read is tried a minute later. An ID token signed with a key the kept
 * JWKS lacks makes it read the JWKS again at once (the provider rotated its keys), at most once
 * every 30 seconds per source, so crafted tokens cannot make Tessera hammer the provider.
 * Every read goes through the outbound-address rule (the reader given is the source's).
 */

export const documentLifetime = { defaultSeconds: 3600, minSeconds: 60, maxSeconds: 86_400 } as const;
/** The shortest time between two reads of a JWKS for an unknown key. */
export const UNKNOWN_KEY_REREAD_SECONDS = 30;

export type Jwks = { keys: client.JsonObject[] };

/** The lifetime a Cache-Control header gives a document, within documentLifetime. */
export function lifetimeOf(cacheControl: string | null | undefined): number {
  const directives = (cacheControl ?? '').toLowerCase();
  if (/(?:^|,)\s*(?:no-store|no-cache)\b/.test(directives)) return documentLifetime.minSeconds;
  const maxAge = /(?:^|,)\s*max-age\s*=\s*"?(\d+)"?/.exec(directives)?.[1];
  const seconds = maxAge === undefined ? documentLifetime.defaultSeconds : Number(maxAge);
  return Math.min(documentLifetime.maxSeconds, Math.max(documentLifetime.minSeconds, seconds));
}

interface Kept<T> {
  value: T;
  /** Milliseconds: read again after this. */
  expiresAt: number;
}

/** A read of a document: its value and the Cache-Control header it came with. */
export type DocumentRead<T> = () => Promise<{ value: T; cacheControl: string | null }>;

export function createUpstreamDocuments(deps: { now?: () => number } = {}) {
  const now = deps.now ?? Date.now;
  const discovery = new Map<string, Kept<client.ServerMetadata>>();
  const keys = new Map<string, Kept<Jwks>>();
  const unknownKeyReads = new Map<string, number>();

  async function kept<T>(map: Map<string, Kept<T>>, key: string, read: DocumentRead<T>, force = false) {
    const entry = map.get(key);
    if (entry && !force && entry.expiresAt > now()) return entry.value;
    try {
      const { value, cacheControl } = await read();
      map.set(key, { value, expiresAt: now() + lifetimeOf(cacheControl) * 1000 });
      return value;
    } catch (error) {
      if (!entry) throw error;
      // The last good document stays; the provider is asked again a minute later.
      entry.expiresAt = now() + documentLifetime.minSeconds * 1000;
      return entry.value;
    }
  }

  return {
    /** The provider's discovery document for `key` (a source and its issuer). */
    discovery: (key: string, read: DocumentRead<client.ServerMetadata>) => kept(discovery, key, read),
    /** Its JWKS; `unknownKey`: a token named a key it lacks (read again unless that was just done). */
    keys(key: string, read: DocumentRead<Jwks>, unknownKey = false) {
      const last = unknownKeyReads.get(key) ?? Number.NEGATIVE_INFINITY;
      const reread = unknownKey && now() - last >= UNKNOWN_KEY_REREAD_SECONDS * 1000;
      if (reread) unknownKeyReads.set(key, now());
      return kept(keys, key, read, reread);
    },
  };
}

export type UpstreamDocuments = ReturnType<typeof createUpstreamDocuments>;
