import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Account, NewAccount } from '../../db/schema.ts';

export function createAccountsRepo(db: Db) {
  return {
    findAccountById: (id: string): Promise<Account | undefined> =>
      db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst(),

    findAccountByUsername: (username: string): Promise<Account | undefined> =>
      db
        .selectFrom('accounts')
        .selectAll()
        .where(sql<string>`lower(username)`, '=', username.toLowerCase())
        .executeTakeFirst(),

    findAccountByEmail: (email: string): Promise<Account | undefined> =>
      db
        .selectFrom('accounts')
        .selectAll()
        .where(sql<string>`lower(email)`, '=', email.toLowerCase())
        .executeTakeFirst(),

    /** Username, email or phone, as typed on the sign-in page. */
    findAccountByIdentifier: (identifier: string): Promise<Account | undefined> => {
      const lower = identifier.toLowerCase();
      return db
        .selectFrom('accounts')
        .selectAll()
        .where((eb) =>
          eb.or([
            eb(sql<string>`lower(username)`, '=', lower),
            eb(sql<string>`lower(email)`, '=', lower),
            eb('phone', '=', identifier),
          ]),
        )
        .orderBy(sql`lower(username) = ${lower}`, 'desc')
        .executeTakeFirst();
    },

    /** Sets a new password hash; raising the credential version ends every session of the account. */
    updatePasswordHash: (id: string, passwordHash: string) =>
      db
        .updateTable('accounts')
        .set((eb) => ({
          password_hash: passwordHash,
          password_changed_at: sql<Date>`now()`,
          credential_version: eb('credential_version', '+', 1),
        }))
        .where('id', '=', id)
        .execute(),

    insertAccount: (account: NewAccount): Promise<Account> =>
      db.insertInto('accounts').values(account).returningAll().executeTakeFirstOrThrow(),

    /** Accounts that take a place in the licence's user quantity (platform operators do not). */
    countLicensedAccounts: async (from: Db = db): Promise<number> => {
      const row = await from
        .selectFrom('accounts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('is_platform_admin', '=', false)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    countPlatformAdmins: async (): Promise<number> => {
      const row = await db
        .selectFrom('accounts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('is_platform_admin', '=', true)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

export type AccountsRepo = ReturnType<typeof createAccountsRepo>;
