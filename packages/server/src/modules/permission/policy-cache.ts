import type { Db } from '../../db/database.ts';
import { createTaggedCache } from '../../lib/tagged-cache.ts';
import type { CompiledPolicy, PersonFacts } from './evaluator.ts';
import { loadPeople, loadPolicy } from './policy.repo.ts';

/**
 * Decisions are answered from memory: each instance keeps the compiled policies of the companies
 * it was asked about, the facts of the people it was asked about (most recently used first, up to
 * a bound) and the credentials of the applications that asked. Every change that can alter an
 * answer is announced on PERMISSIONS_CHANNEL by database triggers (migration 13), whichever code
 * path made it: the instance that made the change has forgotten before the changing statement
 * returns (lib/tagged-cache.ts, db/database.ts), the others as soon as PostgreSQL delivers the
 * notice. A load that a change overtakes is not kept. Entries also expire after MAX_AGE_MS, in
 * case a notice is lost with the connection that listens for them.
 */
export const PERMISSIONS_CHANNEL = 'tessera_permissions';
const MAX_AGE_MS = 5 * 60_000;

/** What the decision API knows of an application's credentials. */
export interface AppCredentials {
  appId: string;
  companyId: string;
  status: 'to_be_configured' | 'opened' | 'disabled';
  /** Which secret the app has: its client credentials tokens carry the one they were issued for. */
  secretVersion: string;
  /** SHA-256 of the client secret; null for a public client (no secret, no decision API). */
  secretHash: Buffer | null;
}

/** At most this many people are read in one statement. */
const BATCH_MAX = 500;

/**
 * Reads people's facts in batches: the people asked about while the event loop handles one round
 * of arriving requests are read in one statement per company (after that round, on `setImmediate`),
 * so a busy decision API spends one database round trip on many people it has not seen yet.
 */
export function createPersonBatcher(
  load: (companyId: string, accountIds: readonly string[]) => Promise<PersonFacts[]>,
) {
  type Waiter = { resolve(facts: PersonFacts | null): void; reject(error: unknown): void };
  let pending = new Map<string, Map<string, Waiter[]>>();
  let scheduled = false;

  async function readBatch(companyId: string, batch: [string, Waiter[]][]) {
    try {
      const found = new Map(
        (
          await load(
            companyId,
            batch.map(([id]) => id),
          )
        ).map((f) => [f.accountId, f]),
      );
      for (const [id, waiters] of batch) for (const w of waiters) w.resolve(found.get(id) ?? null);
    } catch (error) {
      for (const [, waiters] of batch) for (const w of waiters) w.reject(error);
    }
  }

  function flush() {
    scheduled = false;
    const round = pending;
    pending = new Map();
    for (const [companyId, byAccount] of round) {
      const entries = [...byAccount];
      for (let i = 0; i < entries.length; i += BATCH_MAX)
        void readBatch(companyId, entries.slice(i, i + BATCH_MAX));
    }
  }

  return (companyId: string, accountId: string) =>
    new Promise<PersonFacts | null>((resolve, reject) => {
      let byAccount = pending.get(companyId);
      if (!byAccount) {
        byAccount = new Map();
        pending.set(companyId, byAccount);
      }
      const waiters = byAccount.get(accountId);
      if (waiters) waiters.push({ resolve, reject });
      else byAccount.set(accountId, [{ resolve, reject }]);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}

export function createPermissionCache(deps: {
  db: Db;
  loadCredentials(clientId: string): Promise<AppCredentials | null>;
  maxPeople?: number;
}) {
  const loadPerson = createPersonBatcher((companyId, accountIds) =>
    loadPeople(deps.db, companyId, accountIds),
  );
  // The tags are the notices that concern an entry (see the channel's payloads in migration 18).
  const policies = createTaggedCache<CompiledPolicy>({
    maxAgeMs: MAX_AGE_MS,
    max: 10_000,
    tagsOf: (_policy, companyId) => [`p:${companyId}`],
  });
  const people = createTaggedCache<PersonFacts | null>({
    maxAgeMs: MAX_AGE_MS,
    max: deps.maxPeople ?? 100_000,
    recency: true,
    tagsOf: (_facts, key) => [`u:${key}`, `a:${key.slice(key.indexOf(':') + 1)}`],
  });
  const clients = createTaggedCache<AppCredentials | null>({
    maxAgeMs: MAX_AGE_MS,
    max: 10_000,
    tagsOf: (_credentials, clientId) => [`c:${clientId}`],
  });

  /** Forgets what a change may have altered (each cache knows the notices that concern it). */
  function onNotice(payload: string) {
    for (const cache of [policies, people, clients]) cache.forget(payload);
  }

  return {
    policy: (companyId: string) => policies.read(companyId, () => loadPolicy(deps.db, companyId)),
    person: (companyId: string, accountId: string) =>
      people.read(`${companyId}:${accountId}`, () => loadPerson(companyId, accountId)),
    credentials: (clientId: string) => clients.read(clientId, () => deps.loadCredentials(clientId)),
    onNotice,
    /** A change this instance made: forgotten at once, before the notice arrives. */
    companyChanged: (companyId: string) => onNotice(`p:${companyId}`),
    personChanged: (companyId: string, accountId: string) => onNotice(`u:${companyId}:${accountId}`),
    /** How much is held (tests and benchmarks). */
    size: () => ({ policies: policies.size(), people: people.size(), clients: clients.size() }),
  };
}

export type PermissionCache = ReturnType<typeof createPermissionCache>;
