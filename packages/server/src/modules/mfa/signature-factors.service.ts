import { createHash, randomBytes } from 'node:crypto';
import {
  type MemberRole,
  SIGNATURE_CHALLENGE_SECONDS,
  type SignatureMfaType,
  signatureFactorLimits,
} from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Account } from '../../db/schema.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { describePublicKey, PkiError, verifyChallengeSignature } from '../../lib/pki/keys.ts';
import { pemBlocks } from '../../lib/pki/pem.ts';
import { parseCertificate } from '../../lib/pki/x509.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { assertFullyManaged, assertMayActOn, roleIn } from '../user/user-authority.ts';
import * as repo from './mfa.repo.ts';
import type { MfaService } from './mfa.service.ts';

/**
 * UKEY and soft-lock factors (spec §3 MFA types): a key bound to the person signs a single-use
 * challenge. The challenge is `tessera-ukey:v1:` and 32 random bytes (base64url); the key signs
 * its UTF-8 bytes: RSA-PSS with SHA-256 (salt 32), ECDSA with the curve's hash, or SM2 with SM3
 * and the default distinguishing id, DER-encoded, sent as base64 (packages/ukey-helper does it).
 *
 * - ukey_keyid: a UKEY's KeyId (its serial) with its public key, registered once;
 * - ukey_pubkey: a public key (RSA, ECC or SM2);
 * - ukey_cert: a certificate issued by one of the company's CAs, checked at every use (valid,
 *   not revoked, its CA still the company's, the person still one of its users);
 * - soft_lock: a software key container on a registered computer: its id and its public key.
 *
 * A person binds their own key by signing a binding challenge (proof of possession); an
 * administrator binds one on the user's page, and the key proves itself at its first use.
 */

export const CHALLENGE_PREFIX = 'tessera-ukey:v1:';
const KEY_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

export type ChallengePurpose = 'bind' | 'second_factor';
export type SignatureCheck =
  | { ok: true; type: SignatureMfaType }
  | { ok: false; cause: 'signature_failed' | 'certificate_invalid' };

export interface SignatureKeyInput {
  type: SignatureMfaType;
  name?: string;
  keyId?: string;
  publicKey?: string;
  certificate?: string;
  certificateId?: string;
}

const hashOf = (challenge: string) => createHash('sha256').update(challenge).digest('base64url');

/** A signature as people paste it: base64 or base64url, whitespace ignored. */
export function signatureBytes(text: string | undefined): Buffer | undefined {
  const compact = (text ?? '').replace(/\s+/g, '');
  if (
    !compact ||
    compact.length > signatureFactorLimits.signatureMax ||
    !/^[A-Za-z0-9+/_-]+={0,2}$/.test(compact)
  )
    return undefined;
  return Buffer.from(compact.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

function publicKeyOf(pem: string | undefined) {
  if (!pem?.trim()) throw new AppError('mfa.public_key_required');
  const block = pemBlocks(pem, 2).find((b) => b.label === 'PUBLIC KEY');
  if (!block) throw new AppError('mfa.public_key_invalid');
  try {
    return { spki: block.der, info: describePublicKey(block.der) };
  } catch (error) {
    if (error instanceof PkiError) throw new AppError('mfa.public_key_invalid');
    throw error;
  }
}

export function createSignatureFactors(deps: { db: Db; mfa: MfaService }) {
  const { db } = deps;

  /** A new single-use challenge of the account for `purpose`, bound to `subject` (a session or interaction). */
  async function newChallenge(accountId: string, purpose: ChallengePurpose, subject: string) {
    const challenge = `${CHALLENGE_PREFIX}${randomBytes(32).toString('base64url')}`;
    const expiresAt = new Date(Date.now() + SIGNATURE_CHALLENGE_SECONDS * 1000);
    // Expired challenges go as new ones are made (as passkey challenges do): the table stays small.
    await db.deleteFrom('signature_challenges').where('expires_at', '<=', sql<Date>`now()`).execute();
    await db
      .insertInto('signature_challenges')
      .values({
        challenge_hash: hashOf(challenge),
        account_id: accountId,
        purpose,
        subject,
        expires_at: expiresAt,
      })
      .execute();
    return { challenge, expiresAt };
  }

  /** Uses a challenge once: true only for the first use of an unexpired challenge of this account, purpose and subject. */
  async function claimChallenge(
    accountId: string,
    purpose: ChallengePurpose,
    subject: string,
    challenge: string | undefined,
  ) {
    if (!challenge?.startsWith(CHALLENGE_PREFIX) || challenge.length > 128) return false;
    const row = await db
      .deleteFrom('signature_challenges')
      .where('challenge_hash', '=', hashOf(challenge))
      .where('account_id', '=', accountId)
      .where('purpose', '=', purpose)
      .where('subject', '=', subject)
      .returning('expires_at')
      .executeTakeFirst();
    return row !== undefined && row.expires_at.getTime() > Date.now();
  }

  /**
   * The key a factor would be bound to. A certificate must be one issued to this person by a CA
   * of `companyId` (or of any company of theirs, for their own binding), valid and not revoked.
   */
  async function resolveKey(accountId: string, input: SignatureKeyInput, companyId: string | null) {
    const keyId = input.keyId?.trim() || undefined;
    const needsKeyId = input.type === 'ukey_keyid' || input.type === 'soft_lock';
    if (needsKeyId && !keyId) throw new AppError('mfa.key_id_required');
    if (keyId && !KEY_ID_PATTERN.test(keyId)) throw new AppError('mfa.key_id_invalid');
    if (input.type !== 'ukey_cert')
      return {
        ...publicKeyOf(input.publicKey),
        keyId: needsKeyId ? keyId : undefined,
        certificateId: undefined,
      };
    let query = db
      .selectFrom('issued_certificates as c')
      .innerJoin('company_members as m', (join) =>
        join.onRef('m.company_id', '=', 'c.company_id').onRef('m.account_id', '=', 'c.account_id'),
      )
      .select(['c.id', 'c.account_id', 'c.certificate_der', 'c.revoked_at', 'c.not_before', 'c.not_after'])
      .where('m.status', '=', 'enabled');
    if (companyId) query = query.where('c.company_id', '=', companyId);
    if (input.certificateId) query = query.where('c.id', '=', input.certificateId);
    else {
      const block = pemBlocks(input.certificate ?? '', 2).find((b) => b.label === 'CERTIFICATE');
      if (!input.certificate?.trim()) throw new AppError('mfa.certificate_required');
      if (!block) throw new AppError('mfa.certificate_invalid');
      query = query.where('c.fingerprint', '=', createHash('sha256').update(block.der).digest('hex'));
    }
    const row = await query.executeTakeFirst();
    if (!row) throw new AppError('mfa.certificate_untrusted');
    if (row.account_id !== accountId) throw new AppError('mfa.certificate_other_user');
    if (row.revoked_at) throw new AppError('mfa.certificate_revoked');
    const now = Date.now();
    if (row.not_before.getTime() > now || row.not_after.getTime() <= now)
      throw new AppError('mfa.certificate_expired');
    const certificate = parseCertificate(row.certificate_der);
    return { spki: certificate.spki, info: certificate.keyInfo, keyId: undefined, certificateId: row.id };
  }

  /** Stores a factor of a resolved key; answers its row. */
  async function store(
    trx: Db,
    account: Pick<Account, 'id'>,
    input: SignatureKeyInput,
    key: Awaited<ReturnType<typeof resolveKey>>,
  ) {
    const duplicate = await trx
      .selectFrom('mfa_factors')
      .select('id')
      .where('account_id', '=', account.id)
      .where('type', '=', input.type)
      .where('status', '=', 'bound')
      .where('public_key', '=', key.spki)
      .executeTakeFirst();
    if (duplicate) throw new AppError('mfa.key_already_bound');
    const id = newId();
    const name =
      input.name?.trim() ||
      [key.info.algorithm.toUpperCase(), key.info.strength, key.keyId].filter(Boolean).join(' ');
    await trx
      .insertInto('mfa_factors')
      .values({
        id,
        account_id: account.id,
        type: input.type,
        name: name.slice(0, signatureFactorLimits.nameMax),
        status: 'bound',
        secret_sealed: null,
        credential_id: null,
        public_key: key.spki,
        sign_count: null,
        transports: null,
        key_id: key.keyId ?? null,
        key_algorithm: key.info.algorithm,
        key_strength: key.info.strength,
        certificate_id: key.certificateId ?? null,
        bound_at: sql<Date>`now()`,
      })
      .execute();
    return id;
  }

  /**
   * The person binds their own key: the signature over their binding challenge proves they hold
   * it. The first factor they bind comes with recovery codes (answered once). Null: the challenge
   * was used or expired, or the signature does not verify.
   */
  async function bindOwn(
    account: Pick<Account, 'id' | 'home_company_id'>,
    input: SignatureKeyInput & { challenge?: string; signature?: string },
    subject: string,
    ip: string | null,
  ): Promise<{ factorId: string; recoveryCodes: string[] | null } | null> {
    const key = await resolveKey(account.id, input, null);
    const signature = signatureBytes(input.signature);
    if (!(await claimChallenge(account.id, 'bind', subject, input.challenge))) return null;
    if (
      !signature ||
      !verifyChallengeSignature(key.spki, Buffer.from(input.challenge ?? '', 'utf8'), signature)
    )
      return null;
    const recoveryCodes = await deps.mfa.recoveryCodesForFirstBinding(account.id);
    return db.transaction().execute(async (trx) => {
      const factorId = await store(trx, account, input, key);
      if (recoveryCodes) await deps.mfa.storeRecoveryCodes(trx, account.id, recoveryCodes);
      await insertAuditEvent(trx, {
        companyId: account.home_company_id,
        actorAccountId: account.id,
        action: 'mfa.bind',
        targetType: 'user',
        targetId: account.id,
        after: {
          factorId,
          type: input.type,
          algorithm: key.info.algorithm,
          strength: key.info.strength,
          recoveryCodesIssued: recoveryCodes?.length ?? 0,
        },
        ip,
      });
      return { factorId, recoveryCodes };
    });
  }

  /** An administrator binds a key to a user the company fully manages (spec §6 roles, issue 12). */
  async function bindForUser(
    actor: { accountId: string; ip: string | null; role: MemberRole },
    companyId: string,
    input: SignatureKeyInput & { userId: string },
  ) {
    const role = await roleIn(db, companyId, input.userId);
    if (!role) throw new AppError('user.not_found');
    assertMayActOn(actor.role, role);
    await assertFullyManaged(db, companyId, input.userId);
    const key = await resolveKey(input.userId, input, companyId);
    const factorId = await db.transaction().execute(async (trx) => {
      const id = await store(trx, { id: input.userId }, input, key);
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'mfa.admin_bind',
        targetType: 'user',
        targetId: input.userId,
        after: {
          factorId: id,
          type: input.type,
          algorithm: key.info.algorithm,
          strength: key.info.strength,
          keyId: key.keyId ?? null,
        },
        ip: actor.ip,
      });
      return id;
    });
    const factor = await repo.findFactor(db, input.userId, factorId);
    if (!factor) throw new AppError('mfa.factor_not_found');
    return {
      factorId: factor.id,
      type: input.type,
      name: factor.name,
      status: factor.status,
      boundAt: factor.bound_at?.toISOString() ?? null,
      lastUsedAt: null,
    };
  }

  /** Checks a factor's signature over a claimed second-factor challenge, and its certificate at this moment. */
  async function check(
    account: Pick<Account, 'id'>,
    input: { factorId?: string; challenge?: string; signature?: string },
    subject: string,
    allowed: readonly string[],
  ): Promise<SignatureCheck> {
    const claimed = await claimChallenge(account.id, 'second_factor', subject, input.challenge);
    const factor = input.factorId
      ? await db
          .selectFrom('mfa_factors')
          .select(['id', 'type', 'public_key', 'certificate_id'])
          .where('account_id', '=', account.id)
          .where('id', '=', input.factorId)
          .where('status', '=', 'bound')
          .executeTakeFirst()
      : undefined;
    const signature = signatureBytes(input.signature);
    if (!claimed || !factor?.public_key || !allowed.includes(factor.type) || !signature)
      return { ok: false, cause: 'signature_failed' };
    if (factor.certificate_id && !(await certificateUsable(account.id, factor.certificate_id)))
      return { ok: false, cause: 'certificate_invalid' };
    let verified = false;
    try {
      verified = verifyChallengeSignature(
        factor.public_key,
        Buffer.from(input.challenge ?? '', 'utf8'),
        signature,
      );
    } catch {
      verified = false;
    }
    if (!verified) return { ok: false, cause: 'signature_failed' };
    await db
      .updateTable('mfa_factors')
      .set({ last_used_at: sql<Date>`now()` })
      .where('id', '=', factor.id)
      .execute();
    return { ok: true, type: factor.type as SignatureMfaType };
  }

  /** A certificate factor's certificate now: not revoked, within its validity and its CA's, its company still the person's. */
  async function certificateUsable(accountId: string, certificateId: string) {
    const row = await db
      .selectFrom('issued_certificates as c')
      .innerJoin('certificate_authorities as ca', 'ca.id', 'c.ca_id')
      .innerJoin('company_members as m', (join) =>
        join.onRef('m.company_id', '=', 'c.company_id').on('m.account_id', '=', accountId),
      )
      .select('c.id')
      .where('c.id', '=', certificateId)
      .where('c.account_id', '=', accountId)
      .where('c.revoked_at', 'is', null)
      .where('c.not_before', '<=', sql<Date>`now()`)
      .where('c.not_after', '>', sql<Date>`now()`)
      .where('ca.not_after', '>', sql<Date>`now()`)
      .where('m.status', '=', 'enabled')
      .executeTakeFirst();
    return row !== undefined;
  }

  return { newChallenge, claimChallenge, bindOwn, bindForUser, check };
}

export type SignatureFactors = ReturnType<typeof createSignatureFactors>;
