import type { Language } from '@tessera/contract';
import { sql } from 'kysely';
import type { Db } from '../../../db/database.ts';
import { AppError } from '../../../lib/errors.ts';
import { translateError } from '../../../lib/i18n.ts';
import type { OutboundPolicy } from '../../../lib/outbound-address.ts';
import { insertAuditEvent } from '../../audit/audit.repo.ts';
import type { Jobs } from '../../jobs/jobs.ts';
import { parseCertificate } from '../../saml/saml-certificates.ts';
import { fetchMetadata } from '../../saml/saml-fetch.ts';
import type * as repo from '../identity-source.repo.ts';
import { parseIdentityProviderMetadata } from './saml-source-metadata.ts';

/**
 * A SAML source set up from its upstream's metadata URL reads that metadata again once a day
 * (a job, one instance of all doing each source) and when an administrator asks, so a rotation
 * of the upstream's signing certificates (new ones published beside the old, then the old
 * dropped) is followed without anyone pasting certificates. The single sign-on address, its
 * binding and the signing certificates are taken from the new metadata; the entity id must stay
 * the one the source was set up with, and the NameID format stays the administrator's choice. A
 * failed read (unreachable, refused by the outbound-address rule, malformed, another entity)
 * keeps the last good settings and shows its error on the source until a read succeeds.
 */

export const METADATA_REFRESH_JOB = 'saml-source.metadata-refresh';
/** How often a source's metadata is read again. */
export const METADATA_REFRESH_HOURS = 24;

type SamlSource = repo.SourceRow<'saml'>;

/** Whether a source reads its upstream's metadata from a URL. */
const refreshable = (source: repo.AnySource): source is SamlSource =>
  source.type === 'saml' && Boolean((source.settings as repo.SamlSettings).metadataUrl);

export function createSamlMetadataRefresh(deps: { db: Db; outbound: OutboundPolicy; jobs: Jobs }) {
  const { db } = deps;

  async function record(sourceId: string, outcome: { error?: AppError }) {
    const next = sql<Date>`now() + make_interval(hours => ${METADATA_REFRESH_HOURS})`;
    const values = outcome.error
      ? {
          failed_at: sql<Date>`now()`,
          error_reason: outcome.error.reason,
          error_params: JSON.stringify(outcome.error.params ?? {}),
        }
      : { refreshed_at: sql<Date>`now()`, failed_at: null, error_reason: null, error_params: null };
    await db
      .insertInto('saml_source_metadata_refreshes')
      .values({ source_id: sourceId, next_refresh_at: next, ...values })
      .onConflict((oc) => oc.column('source_id').doUpdateSet({ next_refresh_at: next, ...values }))
      .execute();
  }

  /** Reads the source's metadata URL now and takes what changed; a failure is recorded, never thrown. */
  async function refresh(source: SamlSource): Promise<void> {
    const stored = source.settings;
    try {
      const read = parseIdentityProviderMetadata(
        await fetchMetadata(stored.metadataUrl ?? '', deps.outbound),
      );
      if (read.idpEntityId !== stored.idpEntityId)
        throw new AppError('saml_source.metadata_other_entity', { entityId: read.idpEntityId.slice(0, 200) });
      const settings: repo.SamlSettings = {
        ...stored,
        ssoUrl: read.ssoUrl,
        ssoBinding: read.ssoBinding,
        // A single logout URL typed by hand stays when the metadata names none.
        sloUrl: read.sloUrl ?? stored.sloUrl ?? null,
        signingCertificates: read.signingCertificates.map(parseCertificate),
      };
      const changed = JSON.stringify(settings) !== JSON.stringify(stored);
      await db.transaction().execute(async (trx) => {
        if (!changed) return;
        await trx
          .updateTable('identity_sources')
          .set({ settings: JSON.stringify(settings), updated_at: sql<Date>`now()` })
          .where('id', '=', source.id)
          .execute();
        await insertAuditEvent(trx, {
          companyId: source.company_id,
          actorAccountId: null,
          action: 'identity_source.update',
          targetType: 'identity_source',
          targetId: source.id,
          before: { ssoUrl: stored.ssoUrl, signingCertificates: stored.signingCertificates.length },
          after: { ssoUrl: settings.ssoUrl, signingCertificates: settings.signingCertificates.length },
        });
      });
      await record(source.id, {});
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      await record(source.id, { error });
    }
  }

  /** Claims the sources whose refresh is due (each instance runs this; one wins each source). */
  async function refreshDue() {
    const due = await db
      .insertInto('saml_source_metadata_refreshes')
      .columns(['source_id', 'next_refresh_at'])
      .expression((eb) =>
        eb
          .selectFrom('identity_sources')
          .select(['id', sql<Date>`now() + make_interval(hours => ${METADATA_REFRESH_HOURS})`.as('next')])
          .where('type', '=', 'saml')
          .where('enabled', '=', true)
          .where(sql<boolean>`coalesce(settings->>'metadataUrl', '') <> ''`),
      )
      .onConflict((oc) =>
        oc
          .column('source_id')
          .doUpdateSet({ next_refresh_at: (eb) => eb.ref('excluded.next_refresh_at') })
          .where('saml_source_metadata_refreshes.next_refresh_at', '<=', sql<Date>`now()`),
      )
      .returning('source_id')
      .execute();
    for (const { source_id } of due) {
      const source = await db
        .selectFrom('identity_sources')
        .selectAll()
        .where('id', '=', source_id)
        .executeTakeFirst();
      if (source && refreshable(source as repo.AnySource)) await refresh(source as SamlSource);
    }
  }

  /** The state of a source's refreshes as its detail shows it (null: not set up from a URL). */
  async function stateOf(lang: Language, source: repo.AnySource) {
    if (!refreshable(source)) return null;
    const row = await db
      .selectFrom('saml_source_metadata_refreshes')
      .selectAll()
      .where('source_id', '=', source.id)
      .executeTakeFirst();
    return {
      refreshedAt: row?.refreshed_at?.toISOString() ?? null,
      nextRefreshAt: row?.next_refresh_at.toISOString() ?? null,
      failedAt: row?.failed_at?.toISOString() ?? null,
      error: row?.error_reason
        ? translateError(lang, row.error_reason as AppError['reason'], row.error_params ?? {})
        : null,
    };
  }

  deps.jobs.every(`${METADATA_REFRESH_JOB}.schedule`, 3600, refreshDue);

  return { refresh, refreshDue, stateOf, refreshable };
}

export type SamlMetadataRefresh = ReturnType<typeof createSamlMetadataRefresh>;
