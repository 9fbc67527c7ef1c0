import { availableParallelism } from 'node:os';
import { type Algorithm, hash, verify } from '@node-rs/argon2';

/** Algorithm.Argon2id (an ambient const enum, which isolated modules cannot read). */
const ARGON2ID = 2 as Algorithm;

/** argon2id with the OWASP baseline (19 MiB, 2 passes, 1 lane). */
const options = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/**
 * Runs `work` with at most `limit` at once; the others wait their turn, first come first served.
 * A turn ends whether its work succeeds or fails.
 */
export function takingTurns(limit: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (running >= limit) await new Promise<void>((turn) => waiting.push(turn));
    else running++;
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

/**
 * At most one hash per core at a time (TESSERA_HASHES_AT_ONCE; limitHashesAtOnce). argon2id is
 * bound by memory (19 MiB a hash): more hashes than cores take turns on the cores and evict each
 * other's memory from the caches, so each costs more CPU (bench/RESULTS.md, "The floor of a
 * sign-in"). They would also hold all four of libuv's threads, which file reads and DNS lookups
 * share.
 */
let oneAtATimePerCore = takingTurns(availableParallelism());

/** Sets how many hashes run at once (the server's start, from TESSERA_HASHES_AT_ONCE). */
export function limitHashesAtOnce(limit: number): void {
  oneAtATimePerCore = takingTurns(limit);
}

export const hashPassword = (password: string): Promise<string> =>
  oneAtATimePerCore(() => hash(password, options));

export const verifyPassword = async (passwordHash: string, password: string): Promise<boolean> => {
  try {
    return await oneAtATimePerCore(() => verify(passwordHash, password));
  } catch {
    return false;
  }
};

let dummyHash: Promise<string> | undefined;
/** Verifying against this keeps the time of an unknown account equal to that of a wrong password. */
export const dummyPasswordHash = (): Promise<string> => {
  dummyHash ??= hashPassword('tessera-timing-equaliser');
  return dummyHash;
};

/**
 * The password hash of an account that has no password yet (made by an import; the person gets
 * in through a sign-in link). No password verifies against it.
 */
export const UNUSABLE_PASSWORD_HASH = '!';
