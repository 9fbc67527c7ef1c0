import { type Algorithm, hash, verify } from '@node-rs/argon2';

/** Algorithm.Argon2id (an ambient const enum, which isolated modules cannot read). */
const ARGON2ID = 2 as Algorithm;

/** argon2id with the OWASP baseline (19 MiB, 2 passes, 1 lane). */
const options = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string): Promise<string> => hash(password, options);

export const verifyPassword = async (passwordHash: string, password: string): Promise<boolean> => {
  try {
    return await verify(passwordHash, password);
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
