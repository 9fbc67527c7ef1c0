import type { ldapServer as contract } from '@tessera/contract';
import type { z } from 'zod';
import type { Db } from '../../db/database.ts';
import type { App } from '../../db/schema.ts';
import type { AppLdapConfig } from '../../db/schema-ldap-server.ts';
import { randomToken, sha256 } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { insertAuditEvent } from '../audit/audit.repo.ts';
import type { LdapNames } from './ldap-names.ts';

type Settings = z.output<typeof contract.ldapAppSettings>;

export interface LdapActor {
  accountId: string;
  ip: string | null;
}

/**
 * The console's LDAP calls: an application's bind DN and base DN, its service account's secret
 * (made or replaced, shown once, kept as a hash) and the second-factor switch. Each change is
 * one transaction with its audit event (which never holds the secret).
 */
export function createLdapConfigService(deps: { db: Db; names: LdapNames }) {
  const { db, names } = deps;

  async function ldapApp(trx: Db, companyId: string, appId: string, lock = false) {
    let query = trx
      .selectFrom('apps')
      .selectAll()
      .where('company_id', '=', companyId)
      .where('id', '=', appId);
    if (lock) query = query.forUpdate();
    const app = await query.executeTakeFirst();
    if (!app) throw new AppError('app.not_found');
    if (app.protocol !== 'ldap') throw new AppError('ldap_app.not_ldap_app');
    const company = await trx
      .selectFrom('companies')
      .select('code')
      .where('id', '=', companyId)
      .executeTakeFirstOrThrow();
    const config = await trx
      .selectFrom('app_ldap_configs')
      .selectAll()
      .where('app_id', '=', app.id)
      .executeTakeFirst();
    return { app, code: company.code, config };
  }

  const settingsOf = (app: App, code: string, config: AppLdapConfig | undefined): Settings => ({
    bindDn: names.names.app(code, app.id),
    baseDn: names.names.base(code),
    hasSecret: Boolean(config?.secret_hash),
    secretRotatedAt: config?.secret_rotated_at?.toISOString() ?? null,
    allowPasswordWithMfa: config?.allow_password_with_mfa ?? false,
    posix: config?.posix ?? false,
  });

  async function detail(companyId: string, appId: string) {
    const { app, code, config } = await ldapApp(db, companyId, appId);
    return settingsOf(app, code, config);
  }

  async function write(
    actor: LdapActor,
    companyId: string,
    appId: string,
    action: string,
    change: {
      secret_hash?: string;
      secret_rotated_at?: Date;
      allow_password_with_mfa?: boolean;
      posix?: boolean;
    },
  ) {
    return db.transaction().execute(async (trx) => {
      const { app, code, config: before } = await ldapApp(trx, companyId, appId, true);
      const values = { ...change, updated_at: new Date() };
      const after = await trx
        .insertInto('app_ldap_configs')
        .values({ app_id: app.id, company_id: companyId, ...values })
        .onConflict((oc) => oc.column('app_id').doUpdateSet(values))
        .returningAll()
        .executeTakeFirstOrThrow();
      await trx.updateTable('apps').set({ updated_at: new Date() }).where('id', '=', app.id).execute();
      await insertAuditEvent(trx, {
        companyId,
        actorAccountId: actor.accountId,
        action,
        targetType: 'app',
        targetId: app.id,
        before: settingsOf(app, code, before),
        after: settingsOf(app, code, after),
        ip: actor.ip,
      });
      return settingsOf(app, code, after);
    });
  }

  const update = (
    actor: LdapActor,
    companyId: string,
    body: { appId: string; allowPasswordWithMfa?: boolean | undefined; posix?: boolean | undefined },
  ) =>
    write(actor, companyId, body.appId, 'app.ldap.update', {
      ...(body.allowPasswordWithMfa === undefined
        ? {}
        : { allow_password_with_mfa: body.allowPasswordWithMfa }),
      ...(body.posix === undefined ? {} : { posix: body.posix }),
    });

  /** A new secret: 256 random bits, returned this once; the previous one stops working. */
  async function rotateSecret(actor: LdapActor, companyId: string, appId: string) {
    const secret = randomToken(32);
    const settings = await write(actor, companyId, appId, 'app.ldap.rotate_secret', {
      secret_hash: sha256(secret),
      secret_rotated_at: new Date(),
    });
    return { ...settings, secret };
  }

  return { detail, update, rotateSecret };
}

export type LdapConfigService = ReturnType<typeof createLdapConfigService>;

/** Whether an LDAP application can be opened: its service account has a secret. */
export async function ldapConfigured(db: Db, appId: string): Promise<boolean> {
  const config = await db
    .selectFrom('app_ldap_configs')
    .select('secret_hash')
    .where('app_id', '=', appId)
    .executeTakeFirst();
  return Boolean(config?.secret_hash);
}
