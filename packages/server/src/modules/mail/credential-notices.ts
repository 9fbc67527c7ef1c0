import type { Db } from '../../db/database.ts';
import type { Mailer } from './mailer.ts';
import { type CredentialsMail, credentialsMail } from './templates.ts';

/**
 * Tells a person by mail that their credentials changed (an administrator's password reset or
 * removal of second factors, their own reset of a forgotten password), in the language of the
 * company concerned. Sent after the change is stored; without mail set up, or without an address, nobody is told. A failed
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
    /** Null for a person of no company (a self-service reset of a developer account): in English, as Tessera. */
    companyId: string | null,
    change: CredentialsMail['change'],
  ): Promise<void> {
    if (!mailer.configured) return;
    const row = await db
      .selectFrom('accounts as a')
      .leftJoin('companies as c', (join) => join.on('c.id', '=', companyId))
      .select(['a.username', 'a.display_name', 'a.email', 'c.name as company', 'c.default_language'])
      .where('a.id', '=', accountId)
      .executeTakeFirst();
    if (!row?.email) return;
    try {
      await mailer.send(
        credentialsMail(row.default_language ?? 'en', row.email, {
          name: row.display_name ?? row.username,
          username: row.username,
          company: row.company ?? 'Tessera',
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
