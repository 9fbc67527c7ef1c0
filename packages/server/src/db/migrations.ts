import { type Kysely, sql } from 'kysely';
import { m01 } from './migrations/01-foundation.ts';
import { m02 } from './migrations/02-licences.ts';
import { m03 } from './migrations/03-portal-sessions.ts';
import { m04 } from './migrations/04-credential-versions.ts';
import { m05 } from './migrations/05-organisation.ts';
import { m06 } from './migrations/06-user-search.ts';
import { m07 } from './migrations/07-safety.ts';
import { m08 } from './migrations/08-webauthn-challenges.ts';
import { m09 } from './migrations/09-credentials-changed-at.ts';
import { m10 } from './migrations/10-applications.ts';
import { m11 } from './migrations/11-sliding-budgets-known-devices-and-revocation.ts';
import { m12 } from './migrations/12-company-quotas.ts';
import { m13 } from './migrations/13-background-jobs.ts';
import { m14 } from './migrations/14-import-queue.ts';
import { m15 } from './migrations/15-logs-syslog-forwarding-and-brand.ts';
import { m16 } from './migrations/16-application-logout-and-consent.ts';
import { m17 } from './migrations/17-identity-sources-and-directory-sync.ts';
import { m18 } from './migrations/18-permissions-and-console-roles.ts';
import { m19 } from './migrations/19-saml-applications.ts';
import { m20 } from './migrations/20-exchange-agent-and-devices.ts';
import { m21 } from './migrations/21-sign-in-counts.ts';
import { m22 } from './migrations/22-exchange-agent-notices.ts';
import { m23 } from './migrations/23-radius-certificate-authorities-and-signature-factors.ts';
import { m24 } from './migrations/24-application-consent-choice.ts';
import { m25 } from './migrations/25-application-department-and-role-assignments.ts';
import { m26 } from './migrations/26-company-codes.ts';
import { m27 } from './migrations/27-platform-settings.ts';
import { m28 } from './migrations/28-one-time-codes.ts';
import { m29 } from './migrations/29-sms-providers.ts';
import { m30 } from './migrations/30-code-sign-in.ts';
import { m31 } from './migrations/31-cas-applications.ts';
import { m32 } from './migrations/32-scim-inbound.ts';
import { m33 } from './migrations/33-application-provisioning.ts';
import { m34 } from './migrations/34-ldap-applications.ts';
import { m35 } from './migrations/35-upstream-oidc-sources.ts';
import { m36 } from './migrations/36-saml-identity-sources.ts';
import { m37 } from './migrations/37-scim-groups-as-roles.ts';
import { m38 } from './migrations/38-ldap-posix.ts';
import { m39 } from './migrations/39-usernames-with-at.ts';
import { m40 } from './migrations/40-upstream-logout.ts';
import { m41 } from './migrations/41-installation-ca.ts';
import { m42 } from './migrations/42-upstream-groups-and-metadata-refresh.ts';
import type { Database } from './schema.ts';

export interface Migration {
  id: number;
  name: string;
  sql: string;
}

/** The one migration set, a file a migration (db/migrations/). Append only: an applied migration is never edited. */
export const migrations: Migration[] = [
  m01,
  m02,
  m03,
  m04,
  m05,
  m06,
  m07,
  m08,
  m09,
  m10,
  m11,
  m12,
  m13,
  m14,
  m15,
  m16,
  m17,
  m18,
  m19,
  m20,
  m21,
  m22,
  m23,
  m24,
  m25,
  m26,
  m27,
  m28,
  m29,
  m30,
  m31,
  m32,
  m33,
  m34,
  m35,
  m36,
  m37,
  m38,
  m39,
  m40,
  m41,
  m42,
];

/** Arbitrary constant that names Tessera's migration lock among advisory locks. */
const MIGRATION_LOCK = 7_316_420_961;

/**
 * Applies pending migrations in one transaction under an advisory lock, so two instances
 * starting together apply them once and a failure leaves nothing half done.
 */
export async function migrate(db: Kysely<Database>): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx);
    await sql`create table if not exists schema_migrations (
      id integer primary key, name text not null, applied_at timestamptz not null default now())`.execute(
      trx,
    );
    const applied = new Set(
      (await trx.selectFrom('schema_migrations').select('id').execute()).map((r) => r.id),
    );
    const done: string[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.id)) continue;
      await sql.raw(migration.sql).execute(trx);
      await trx.insertInto('schema_migrations').values({ id: migration.id, name: migration.name }).execute();
      done.push(migration.name);
    }
    return done;
  });
}
