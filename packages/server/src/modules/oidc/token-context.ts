import { sql } from 'kysely';
import Provider from 'oidc-provider';
import { ACCOUNT_COLUMNS, type Account } from '../../db/schema.ts';
import { preparedStatement } from '../../lib/prepared.ts';

/**
 * A code or refresh token is read with what the token endpoint reads next about it, in one
 * statement: its single sign-on session (a token of Tessera's own clients ends with it), its
 * grant and its account. The provider then asks the adapter for the session and the grant, and
 * findAccount for the account, one statement each: those come from what was read with the
 * token, kept for the rest of the request (on the provider's request context) and used once.
 */
export const TOKENS_READ_WITH_CONTEXT = new Set(['AuthorizationCode', 'RefreshToken']);

type Row = Partial<Account> & {
  payload: Record<string, unknown> | string;
  consumed_at: Date | null;
  session_payload: unknown;
  grant_payload: unknown;
};

const live = (alias: string) => sql.raw(`(${alias}.expires_at is null or ${alias}.expires_at > now())`);

export const findTokenWithContext = preparedStatement(
  (_db, where: { model: string; id: string }) => sql<Row>`
    select t.payload, t.consumed_at,
      (select s.payload from oidc_payloads s
        where s.model = 'Session' and s.uid = t.payload->>'sessionUid' and ${live('s')}) as session_payload,
      (select g.payload from oidc_payloads g
        where g.model = 'Grant' and g.id = t.payload->>'grantId' and ${live('g')}) as grant_payload,
      ${sql.join(ACCOUNT_COLUMNS.map((column) => sql.ref(`a.${column}`)))}
    from oidc_payloads t left join accounts a on a.id = t.payload->>'accountId'
    where t.model = ${where.model} and t.id = ${where.id} and ${live('t')}`,
);

/** What was read with a token, per request of the provider. */
const readAlong = new WeakMap<object, Map<string, unknown>>();

const contextRows = (create: boolean) => {
  const ctx = Provider.ctx as object | undefined;
  if (!ctx) return undefined;
  let rows = readAlong.get(ctx);
  if (!rows && create) {
    rows = new Map();
    readAlong.set(ctx, rows);
  }
  return rows;
};

/** Keeps what was read with a token for the rest of the request. */
export function keepReadAlong(row: Row) {
  const rows = contextRows(true);
  const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as Record<
    string,
    unknown
  >;
  if (!rows) return;
  const { payload: _p, consumed_at: _c, session_payload, grant_payload, ...account } = row;
  if (typeof payload.sessionUid === 'string')
    rows.set(`Session:uid:${payload.sessionUid}`, session_payload ?? null);
  if (typeof payload.grantId === 'string') rows.set(`Grant:${payload.grantId}`, grant_payload ?? null);
  if (typeof payload.accountId === 'string')
    rows.set(`Account:${payload.accountId}`, account.id ? (account as Account) : null);
}

/**
 * The row kept for this key in this request, once (undefined when none was kept: ask the
 * database). Null when the row was looked for and is not there.
 */
export function takeReadAlong<T>(key: string): T | null | undefined {
  const rows = contextRows(false);
  if (!rows?.has(key)) return undefined;
  const value = rows.get(key) as T | null;
  rows.delete(key);
  return value;
}

/** Forgets what was kept for this key (the adapter wrote it). */
export function forgetReadAlong(key: string) {
  contextRows(false)?.delete(key);
}

/** Forgets everything kept in this request (a grant was revoked). */
export function forgetAllReadAlong() {
  contextRows(false)?.clear();
}

/** The account read with the token of this request, if it was (see findAccount in provider.ts). */
export const accountReadAlong = (accountId: string) => takeReadAlong<Account>(`Account:${accountId}`);
