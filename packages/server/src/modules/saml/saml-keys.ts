import { createPrivateKey } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import type { SamlSigningKey } from '../../db/schema-saml.ts';
import type { Sealer } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { generateSigningKey } from './saml-certificates.ts';
import type { SigningKey } from './saml-signature.ts';

const KEY_PURPOSE = 'saml-signing-key';

export interface KeyActor {
  accountId: string;
  ip: string;
}

/**
 * The signing keys of a company's SAML identity provider. A company has one active key (made
 * when it is first needed). Rotation publishes the next certificate first (the metadata lists
 * it beside the active one, so service providers that read metadata learn it, and the others
 * can be given it) and only signs with it once an administrator activates it; the old key is
 * retired then. Private keys are sealed with the master key.
 */
export function createSamlKeys(deps: { db: Db; sealer: Sealer }) {
  const { db, sealer } = deps;

  const published = (companyId: string, from: Db = db): Promise<SamlSigningKey[]> =>
    from
      .selectFrom('saml_signing_keys')
      .selectAll()
      .where('company_id', '=', companyId)
      .where('status', 'in', ['active', 'next'])
      .orderBy('status')
      .execute();

  async function newKeyRow(companyId: string, status: 'active' | 'next') {
    const key = await generateSigningKey(`CN=Tessera SAML ${companyId}`);
    return {
      id: newId(),
      company_id: companyId,
      status,
      private_key_sealed: sealer.seal(
        key.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        KEY_PURPOSE,
      ),
      certificate: key.certificate,
      not_after: key.notAfter,
      activated_at: status === 'active' ? new Date() : null,
    };
  }

  /** The active key's row, made on first use (of parallel first uses, one key wins). */
  async function activeRow(companyId: string): Promise<SamlSigningKey> {
    const find = () =>
      db
        .selectFrom('saml_signing_keys')
        .selectAll()
        .where('company_id', '=', companyId)
        .where('status', '=', 'active')
        .executeTakeFirst();
    const existing = await find();
    if (existing) return existing;
    await db
      .insertInto('saml_signing_keys')
      .values(await newKeyRow(companyId, 'active'))
      .onConflict((oc) => oc.column('company_id').where('status', '=', 'active').doNothing())
      .execute();
    const created = await find();
    if (!created) throw new Error('no active SAML signing key');
    return created;
  }

  /** The key that signs the company's messages now. */
  async function activeKey(companyId: string): Promise<SigningKey> {
    const row = await activeRow(companyId);
    return {
      privateKey: createPrivateKey(sealer.open(row.private_key_sealed, KEY_PURPOSE)),
      certificate: row.certificate,
    };
  }

  /** The certificates the metadata publishes: the active one, then the next one if prepared. */
  async function publishedCertificates(companyId: string): Promise<SamlSigningKey[]> {
    await activeRow(companyId);
    return published(companyId);
  }

  const audit = (trx: Db, actor: KeyActor, companyId: string, action: string, after: unknown) =>
    insertAuditEvent(trx, {
      companyId,
      actorAccountId: actor.accountId,
      action,
      targetType: 'company',
      targetId: companyId,
      after,
      ip: actor.ip,
    });

  const lockKeys = (trx: Db, companyId: string) =>
    trx
      .selectFrom('saml_signing_keys')
      .select('id')
      .where('company_id', '=', companyId)
      .where('status', 'in', ['active', 'next'])
      .forUpdate()
      .execute();

  /** Publishes a next certificate (not signing yet). */
  async function prepareNext(actor: KeyActor, companyId: string) {
    await activeRow(companyId);
    const row = await newKeyRow(companyId, 'next');
    await db.transaction().execute(async (trx) => {
      await lockKeys(trx, companyId);
      const rows = await published(companyId, trx);
      if (rows.some((r) => r.status === 'next')) throw new AppError('saml.key_next_exists');
      await trx.insertInto('saml_signing_keys').values(row).execute();
      await audit(trx, actor, companyId, 'saml.key.prepare', { keyId: row.id, notAfter: row.not_after });
    });
  }

  /** Signs with the prepared key from now on; the key that signed so far is retired. */
  async function activateNext(actor: KeyActor, companyId: string) {
    await db.transaction().execute(async (trx) => {
      await lockKeys(trx, companyId);
      const rows = await published(companyId, trx);
      const next = rows.find((r) => r.status === 'next');
      if (!next) throw new AppError('saml.key_no_next');
      const retired = rows.find((r) => r.status === 'active');
      if (retired)
        await trx
          .updateTable('saml_signing_keys')
          .set({ status: 'retired', retired_at: new Date() })
          .where('id', '=', retired.id)
          .execute();
      await trx
        .updateTable('saml_signing_keys')
        .set({ status: 'active', activated_at: new Date() })
        .where('id', '=', next.id)
        .execute();
      await audit(trx, actor, companyId, 'saml.key.activate', { keyId: next.id, retiredKeyId: retired?.id });
    });
  }

  /** Withdraws a prepared key that never signed anything. */
  async function discardNext(actor: KeyActor, companyId: string) {
    await db.transaction().execute(async (trx) => {
      await lockKeys(trx, companyId);
      const next = (await published(companyId, trx)).find((r) => r.status === 'next');
      if (!next) throw new AppError('saml.key_no_next');
      await trx.deleteFrom('saml_signing_keys').where('id', '=', next.id).execute();
      await audit(trx, actor, companyId, 'saml.key.discard', { keyId: next.id });
    });
  }

  return { activeKey, publishedCertificates, prepareNext, activateNext, discardNext };
}

export type SamlKeys = ReturnType<typeof createSamlKeys>;
