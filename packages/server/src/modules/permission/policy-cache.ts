import type { Db } from '../../db/database.ts';
import type { CompiledPolicy, PersonFacts } from './evaluator.ts';
import { loadPerson, loadPolicy } from './policy.repo.ts';

/**
 * Decisions are answered from memory: each instance keeps the compiled policies of the companies
 * it was asked about, the facts of the people it was asked about (most recently used first, up to
 * a bound) and the credentials of the applications that asked. Every change that can alter an
 * answer is announced on PERMISSIONS_CHANNEL by database triggers (migration 13), whichever code
 * path made it, so the next request on every instance sees it: the embedded database delivers the
 * notice before the changing statement returns; PostgreSQL delivers it to every instance right
 * after the commit (and the instance that made a change through this module forgets at once).
 * A load that a change overtakes is not kept. Entries also expire after MAX_AGE_MS, in case a
 * notice is lost with the connection that listens for them.
 */
export const PERMISSIONS_CHANNEL = 'tessera_permissions';
const MAX_AGE_MS = 5 * 60_000;

interface Slot<T> {
  value?: T;
  loadedAt?: number;
  loading?: Promise<T>;
}

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

export function createPermissionCache(deps: {
  db: Db;
  loadCredentials(clientId: string): Promise<AppCredentials | null>;
  maxPeople?: number;
}) {
  const maxPeople = deps.maxPeople ?? 100_000;
  const policies = new Map<string, Slot<CompiledPolicy>>();
  const people = new Map<string, Slot<PersonFacts | null>>();
  /** Keys of `people` by account, for account-wide notices. */
  const keysOfAccount = new Map<string, Set<string>>();
  const clients = new Map<string, Slot<AppCredentials | null>>();

  const forgetPersonKey = (key: string) => {
    people.delete(key);
    const account = key.slice(key.indexOf(':') + 1);
    const keys = keysOfAccount.get(account);
    keys?.delete(key);
    if (keys?.size === 0) keysOfAccount.delete(account);
  };

  function read<T>(
    map: Map<string, Slot<T>>,
    key: string,
    load: () => Promise<T>,
    options: { recency?: boolean; onStored?: () => void } = {},
  ): T | Promise<T> {
    const slot = map.get(key);
    if (slot?.loadedAt !== undefined && Date.now() - slot.loadedAt < MAX_AGE_MS) {
      if (options.recency) {
        // Most recently used last.
        map.delete(key);
        map.set(key, slot);
      }
      return slot.value as T;
    }
    if (slot?.loading) return slot.loading;
    const fresh: Slot<T> = {};
    fresh.loading = load().then(
      (value) => {
        // A notice that arrived meanwhile removed (or replaced) the slot: the answer is not kept.
        if (map.get(key) === fresh) {
          fresh.value = value;
          fresh.loadedAt = Date.now();
          fresh.loading = undefined;
          options.onStored?.();
        }
        return value;
      },
      (error: unknown) => {
        if (map.get(key) === fresh) map.delete(key);
        throw error;
      },
    );
    map.set(key, fresh);
    return fresh.loading;
  }

  const policy = (companyId: string) => read(policies, companyId, () => loadPolicy(deps.db, companyId));

  function person(companyId: string, accountId: string) {
    const key = `${companyId}:${accountId}`;
    return read(people, key, () => loadPerson(deps.db, companyId, accountId), {
      recency: true,
      onStored: () => {
        let keys = keysOfAccount.get(accountId);
        if (!keys) {
          keys = new Set();
          keysOfAccount.set(accountId, keys);
        }
        keys.add(key);
        while (people.size > maxPeople) {
          const oldest = people.keys().next().value;
          if (oldest === undefined) break;
          forgetPersonKey(oldest);
        }
      },
    });
  }

  const credentials = (clientId: string) => read(clients, clientId, () => deps.loadCredentials(clientId));

  /** Forgets what a change may have altered (see the channel's payloads in migration 13). */
  function onNotice(payload: string) {
    const kind = payload.slice(0, 2);
    const rest = payload.slice(2);
    if (kind === 'p:') policies.delete(rest);
    else if (kind === 'u:') forgetPersonKey(rest);
    else if (kind === 'a:') for (const key of [...(keysOfAccount.get(rest) ?? [])]) forgetPersonKey(key);
    else if (kind === 'c:') clients.delete(rest);
  }

  return {
    policy,
    person,
    credentials,
    onNotice,
    /** A change this instance made: forgotten at once, before the notice arrives. */
    companyChanged: (companyId: string) => onNotice(`p:${companyId}`),
    personChanged: (companyId: string, accountId: string) => onNotice(`u:${companyId}:${accountId}`),
    /** How much is held (tests and benchmarks). */
    size: () => ({ policies: policies.size, people: people.size, clients: clients.size }),
  };
}

export type PermissionCache = ReturnType<typeof createPermissionCache>;
