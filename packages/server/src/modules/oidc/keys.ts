import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { randomToken } from '../../lib/crypto.ts';

export const signingAlgorithms = ['ES256', 'RS256'] as const;
export type SigningAlgorithm = (typeof signingAlgorithms)[number];

/** Retired keys stay published this long, so tokens signed before a rotation still verify. */
const RETIRED_KEY_GRACE_DAYS = 31;
const SEAL_PURPOSE = 'signing-key';

async function newSigningKey(alg: SigningAlgorithm, sealer: Sealer) {
  const { privateKey } = await generateKeyPair(alg, { extractable: true, modulusLength: 2048 });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: randomToken(12), alg, use: 'sig' };
  return {
    kid: jwk.kid as string,
    alg,
    status: 'active' as const,
    private_jwk_sealed: sealer.seal(JSON.stringify(jwk), SEAL_PURPOSE),
  };
}

/** Creates the first key of each algorithm on first start. */
export async function ensureSigningKeys(db: Db, sealer: Sealer): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(7316420962)`.execute(trx);
    const active = await trx
      .selectFrom('signing_keys')
      .select('alg')
      .where('status', '=', 'active')
      .execute();
    for (const alg of signingAlgorithms) {
      if (!active.some((key) => key.alg === alg)) {
        await trx
          .insertInto('signing_keys')
          .values(await newSigningKey(alg, sealer))
          .execute();
      }
    }
  });
}

/**
 * Rotation without downtime: a new active key per algorithm signs from now on; the previous
 * keys stay in the JWKS (retired) until every token they signed has expired.
 */
export async function rotateSigningKeys(db: Db, sealer: Sealer): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    await trx
      .updateTable('signing_keys')
      .set({ status: 'retired', retired_at: sql<Date>`now()` })
      .where('status', '=', 'active')
      .execute();
    const kids: string[] = [];
    for (const alg of signingAlgorithms) {
      const key = await newSigningKey(alg, sealer);
      await trx.insertInto('signing_keys').values(key).execute();
      kids.push(key.kid);
    }
    return kids;
  });
}

/** Private JWKS for oidc-provider: active keys first (they sign), ES256 before RS256. */
export async function loadJwks(db: Db, sealer: Sealer): Promise<{ keys: JWK[] }> {
  const rows = await db
    .selectFrom('signing_keys')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb('status', '=', 'active'),
        eb('retired_at', '>', sql<Date>`now() - make_interval(days => ${RETIRED_KEY_GRACE_DAYS})`),
      ]),
    )
    .orderBy(sql`status = 'active'`, 'desc')
    .orderBy(sql`alg = 'ES256'`, 'desc')
    .orderBy('created_at', 'desc')
    .execute();
  return { keys: rows.map((row) => JSON.parse(sealer.open(row.private_jwk_sealed, SEAL_PURPOSE)) as JWK) };
}

export const KEYS_CHANNEL = 'tessera_signing_keys';
