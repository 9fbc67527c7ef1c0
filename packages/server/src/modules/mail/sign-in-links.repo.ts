import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

export interface NewSignInLink {
  tokenHash: string;
  accountId: string;
  companyId: string;
  createdBy: string;
  expiresAt: Date;
}

/** Sign-in links: only the SHA-256 of the token is stored; a link is usable once, until it expires. */
export function createSignInLinksRepo(db: Db) {
  return {
    /** Stores a new link; it replaces the person's earlier unused links of the company. */
    insertSignInLink: async (link: NewSignInLink, trx: Db = db) => {
      await trx
        .deleteFrom('sign_in_links')
        .where('account_id', '=', link.accountId)
        .where('company_id', '=', link.companyId)
        .where('used_at', 'is', null)
        .execute();
      await trx
        .insertInto('sign_in_links')
        .values({
          token_hash: link.tokenHash,
          account_id: link.accountId,
          company_id: link.companyId,
          created_by: link.createdBy,
          expires_at: link.expiresAt,
        })
        .execute();
    },

    /** A link that can still be used, with what its confirmation page shows; nothing is changed. */
    findUsableSignInLink: (tokenHash: string) =>
      db
        .selectFrom('sign_in_links as l')
        .innerJoin('accounts as a', 'a.id', 'l.account_id')
        .leftJoin('companies as c', 'c.id', 'l.company_id')
        .select(['l.account_id', 'l.company_id', 'a.username', 'c.name as company_name'])
        .where('l.token_hash', '=', tokenHash)
        .where('l.used_at', 'is', null)
        .where('l.expires_at', '>', sql<Date>`now()`)
        .executeTakeFirst(),

    /**
     * Uses the link up in one atomic statement: of two parallel uses exactly one gets the row,
     * and an expired or used link gets none.
     */
    consumeSignInLink: (tokenHash: string) =>
      db
        .updateTable('sign_in_links')
        .set({ used_at: sql<Date>`now()` })
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', sql<Date>`now()`)
        .returning(['account_id', 'company_id'])
        .executeTakeFirst(),
  };
}

export type SignInLinksRepo = ReturnType<typeof createSignInLinksRepo>;
