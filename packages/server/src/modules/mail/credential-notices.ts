import type { Db } from '../../db/database.ts';
import type { Mailer } from './mailer.ts';
import { type CredentialsMail, credentialsMail } from './templates.ts';

/**
 * Tells a person by mail that an administrator changed their credentials (a password reset,
 * second factors removed), in the language of the company whose administrator did it. Sent after
 * the change is stored; without mail set up, or without an address, nobody is told. A failed
 * send is logged and changes nothing: the change stands.
 */
export function createCredentialNotices(deps: {
  db: Db;
  mailer: Mailer;
  publicUrl: string;
  log: { warn(details: object, message: string): void };
}) {
  const { db, mailer } = deps;
  return async function notifyCredentialChange(
    accountId: string,
    companyId: string,
    change: CredentialsMail['change'],
  ): Promise<void> {
    if (!mailer.configured) return;
    const row = await db
      .selectFrom('accounts as a')
      .innerJoin('companies as c', (join) => join.on('c.id', '=', companyId))
      .select(['a.username', 'a.display_name', 'a.email', 'c.name as company', 'c.default_language'])
      .where('a.id', '=', accountId)
      .executeTakeFirst();
    if (!row?.email) return;
    try {
      await mailer.send(
        credentialsMail(row.default_language, row.email, {
          name: row.display_name ?? row.username,
          username: row.username,
          company: row.company,
          change,
          signInUrl: `${deps.publicUrl}/portal/account`,
          at: new Date(),
        }),
      );
    } catch (error) {
      deps.log.warn({ err: error, accountId, change }, 'the notice of a credential change could not be sent');
    }
  };
}

export type NotifyCredentialChange = ReturnType<typeof createCredentialNotices>;
