import type { Algorithm } from '@node-rs/argon2';

/**
 * The raw argon2id hash the sign-in benchmarks compare with: as
 * packages/server/src/modules/account/password.ts, argon2id, 19 MiB, 2 passes, 1 lane.
 */
export const argonOptions = {
  algorithm: 2 as Algorithm,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;
