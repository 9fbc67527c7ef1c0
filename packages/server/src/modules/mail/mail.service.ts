import { type Language, type MemberRole, SIGN_IN_LINK_TTL_SECONDS } from '@tessera/contract';
import type { Db } from '../../db/database.ts';
import { randomToken, sha256 } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import { isDirectoryAccount } from '../identity-source/identity-source.repo.ts';
import { assertMayActOn, fullyManagedColumn } from '../user/user-authority.ts';
import type { Mailer } from './mailer.ts';
import type { SignInLinksRepo } from './sign-in-links.repo.ts';
import { accountMail, signInLinkMail } from './templates.ts';

export interface Actor {
  accountId: string;
  ip: string | null;
  role: MemberRole;
}

/** The address of the link's page; `lang` makes the page speak the mail's language. */
export const signInLinkUrl = (publicUrl: string, token: string, lang: Language) =>
  `${publicUrl}/portal/link/${token}?lang=${lang}`;

/**
 * Mails an administrator sends to a managed user of their company. The mail goes out first and
 * the link is stored after it was accepted by the SMTP server: a failed send stores nothing, and
 * no transaction waits on the network.
 */
export function createMailService(deps: {
  db: Db;
  mailer: Mailer;
  links: SignInLinksRepo;
  publicUrl: string;
}) {
  const { db, mailer, links } = deps;

  /**
   * The company's fully managed user with an email address, whom the actor may act on (a
   * sign-in link is a credential), or the error that says why not.
   */
  async function mailableUser(actor: Actor, companyId: string, userId: string) {
    const user = await db
      .selectFrom('company_members as m')
      .innerJoin('accounts as a', 'a.id', 'm.account_id')
      .innerJoin('companies as c', 'c.id', 'm.company_id')
      .select([
        'a.id',
        'a.username',
        'a.display_name',
        'a.email',
        'm.role',
        fullyManagedColumn.as('fully_managed'),
        'c.name as company_name',
      ])
      .where('m.company_id', '=', companyId)
      .where('m.account_id', '=', userId)
      .executeTakeFirst();
    if (!user) throw new AppError('user.not_found');
    assertMayActOn(actor.role, user.role);
    if (!user.fully_managed) throw new AppError('user.not_managed');
    if (!user.email) throw new AppError('user.no_email');
    if (!mailer.configured) throw new AppError('mail.not_configured');
    return { ...user, email: user.email, name: user.display_name ?? user.username };
  }

  return {
    async sendSignInLink(actor: Actor, companyId: string, userId: string, lang: Language) {
      const user = await mailableUser(actor, companyId, userId);
      // A directory person signs in with the directory's password, never with a link that bypasses it.
      if (await isDirectoryAccount(db, user.id)) throw new AppError('user.directory_managed');
      const token = randomToken();
      const expiresAt = new Date(Date.now() + SIGN_IN_LINK_TTL_SECONDS * 1000);
      await mailer.send(
        signInLinkMail(lang, user.email, {
          name: user.name,
          username: user.username,
          company: user.company_name,
          link: signInLinkUrl(deps.publicUrl, token, lang),
          expiresAt,
        }),
      );
      await db.transaction().execute(async (trx) => {
        await links.insertSignInLink(
          { tokenHash: sha256(token), accountId: user.id, companyId, createdBy: actor.accountId, expiresAt },
          trx,
        );
        await insertAuditEvent(trx, {
          companyId,
          actorAccountId: actor.accountId,
          action: 'user.sign_in_link',
          targetType: 'user',
          targetId: user.id,
          after: { sentTo: user.email, expiresAt: expiresAt.toISOString() },
          ip: actor.ip,
        });
      });
      return { sentTo: user.email, expiresAt: expiresAt.toISOString() };
    },

    async sendAccountEmail(actor: Actor, companyId: string, userId: string, lang: Language) {
      const user = await mailableUser(actor, companyId, userId);
      await mailer.send(
        accountMail(lang, user.email, {
          name: user.name,
          username: user.username,
          company: user.company_name,
          signInUrl: `${deps.publicUrl}/portal/account`,
        }),
      );
      await insertAuditEvent(db, {
        companyId,
        actorAccountId: actor.accountId,
        action: 'user.email',
        targetType: 'user',
        targetId: user.id,
        after: { sentTo: user.email },
        ip: actor.ip,
      });
      return { sentTo: user.email };
    },
  };
}

export type MailService = ReturnType<typeof createMailService>;
