import type { CertificateStatus } from '@tessera/contract';
import { type Selectable, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { CertificateAuthoritiesTable, IssuedCertificatesTable } from '../../db/schema.ts';

/** Certificate authorities and the certificates they issued (SQL only; every query takes the company). */

export type CaRow = Selectable<CertificateAuthoritiesTable>;
export type CertificateRow = Selectable<IssuedCertificatesTable>;

export const listCas = (db: Db, companyId: string) =>
  db
    .selectFrom('certificate_authorities')
    .selectAll()
    .where('company_id', '=', companyId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

export const findCa = (db: Db, companyId: string, caId: string) =>
  db
    .selectFrom('certificate_authorities')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', caId)
    .executeTakeFirst();

/** A CA by id alone: its public CRL and certificate addresses name no company. */
export const findCaById = (db: Db, caId: string) =>
  db.selectFrom('certificate_authorities').selectAll().where('id', '=', caId).executeTakeFirst();

export async function countCas(db: Db, companyId: string) {
  const row = await db
    .selectFrom('certificate_authorities')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('company_id', '=', companyId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export const insertCa = (
  db: Db,
  row: Omit<CaRow, 'crl_number' | 'crl_der' | 'crl_next_update' | 'created_at'>,
) => db.insertInto('certificate_authorities').values(row).execute();

export const deleteCa = (db: Db, companyId: string, caId: string) =>
  db
    .deleteFrom('certificate_authorities')
    .where('company_id', '=', companyId)
    .where('id', '=', caId)
    .execute();

/** Takes the CA's next CRL number (a row lock orders parallel publications). */
export async function nextCrlNumber(db: Db, caId: string): Promise<number> {
  const row = await db
    .updateTable('certificate_authorities')
    .set({ crl_number: sql<string>`crl_number + 1` })
    .where('id', '=', caId)
    .returning('crl_number')
    .executeTakeFirstOrThrow();
  return Number(row.crl_number);
}

export const storeCrl = (db: Db, caId: string, crl: Buffer, nextUpdate: Date) =>
  db
    .updateTable('certificate_authorities')
    .set({ crl_der: crl, crl_next_update: nextUpdate })
    .where('id', '=', caId)
    .execute();

/** Counts of a CA's certificates by status, for every CA of the company. */
export async function certificateCounts(db: Db, companyId: string) {
  const rows = await db
    .selectFrom('issued_certificates')
    .select((eb) => [
      'ca_id',
      eb.fn
        .countAll<string>()
        .filterWhere('revoked_at', 'is', null)
        .filterWhere('not_after', '>', sql<Date>`now()`)
        .as('valid'),
      eb.fn.countAll<string>().filterWhere('revoked_at', 'is not', null).as('revoked'),
      eb.fn
        .countAll<string>()
        .filterWhere('revoked_at', 'is', null)
        .filterWhere('not_after', '<=', sql<Date>`now()`)
        .as('expired'),
    ])
    .where('company_id', '=', companyId)
    .groupBy('ca_id')
    .execute();
  return new Map(
    rows.map((row) => [
      row.ca_id,
      { valid: Number(row.valid), revoked: Number(row.revoked), expired: Number(row.expired) },
    ]),
  );
}

export const insertCertificate = (
  db: Db,
  row: Omit<CertificateRow, 'revoked_at' | 'revocation_reason' | 'created_at'>,
) => db.insertInto('issued_certificates').values(row).execute();

const certificateView = (db: Db) =>
  db
    .selectFrom('issued_certificates as c')
    .innerJoin('certificate_authorities as ca', 'ca.id', 'c.ca_id')
    .leftJoin('accounts as a', 'a.id', 'c.account_id')
    .selectAll('c')
    .select(['ca.name as ca_name', 'a.username']);

export type CertificateView = CertificateRow & { ca_name: string; username: string | null };

const statusFilter = (status: CertificateStatus) =>
  status === 'revoked'
    ? sql<boolean>`c.revoked_at is not null`
    : status === 'expired'
      ? sql<boolean>`c.revoked_at is null and c.not_after <= now()`
      : sql<boolean>`c.revoked_at is null and c.not_after > now()`;

export async function listCertificates(
  db: Db,
  companyId: string,
  query: { caId?: string; userId?: string; status?: CertificateStatus; page: number; pageSize: number },
) {
  let base = db.selectFrom('issued_certificates as c').where('c.company_id', '=', companyId);
  if (query.caId) base = base.where('c.ca_id', '=', query.caId);
  if (query.userId) base = base.where('c.account_id', '=', query.userId);
  if (query.status) base = base.where(statusFilter(query.status));
  const ids = base.select('c.id');
  const [rows, count] = await Promise.all([
    certificateView(db)
      .where('c.id', 'in', ids)
      .orderBy('c.created_at', 'desc')
      .orderBy('c.id', 'desc')
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows: rows as CertificateView[], total: Number(count.n) };
}

export const findCertificate = (db: Db, companyId: string, certificateId: string) =>
  certificateView(db)
    .where('c.company_id', '=', companyId)
    .where('c.id', '=', certificateId)
    .executeTakeFirst() as Promise<CertificateView | undefined>;

/** An issued certificate by its fingerprint, issued to the account (a person binding their own certificate). */
export const findCertificateOfAccount = (db: Db, accountId: string, fingerprint: string) =>
  db
    .selectFrom('issued_certificates')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('fingerprint', '=', fingerprint)
    .executeTakeFirst();

/** Revokes once: false when it was revoked already. */
export async function revokeCertificate(db: Db, certificateId: string, reason: string) {
  const row = await db
    .updateTable('issued_certificates')
    .set({ revoked_at: sql<Date>`now()`, revocation_reason: reason })
    .where('id', '=', certificateId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** The revoked certificates a CRL lists (those not expired yet are enough, but listing all is simpler and small). */
export const revokedOf = (db: Db, caId: string) =>
  db
    .selectFrom('issued_certificates')
    .select(['serial_number', 'revoked_at', 'revocation_reason'])
    .where('ca_id', '=', caId)
    .where('revoked_at', 'is not', null)
    .orderBy('revoked_at')
    .execute();
