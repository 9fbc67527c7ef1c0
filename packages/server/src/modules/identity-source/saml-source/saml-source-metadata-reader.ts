import { samlSource as calls, type Language, type samlSource } from '@tessera/contract';
import type { z } from 'zod';
import type { Db } from '../../../db/database.ts';
import type { Bind } from '../../../http/bind.ts';
import { AppError } from '../../../lib/errors.ts';
import type { OutboundPolicy } from '../../../lib/outbound-address.ts';
import { spendBudgets } from '../../../lib/rate-windows.ts';
import { fetchMetadata } from '../../saml/saml-fetch.ts';
import type { IdentitySourceService } from '../identity-source.service.ts';
import { parseIdentityProviderMetadata } from './saml-source-metadata.ts';
import type { SamlMetadataRefresh } from './saml-source-refresh.ts';

/**
 * The console's "read metadata" of a SAML source: an uploaded document, or a URL fetched once
 * now through the outbound-address rule (at most 30 fetches an hour per company, as for SAML
 * applications' metadata). Nothing is stored: the form shows what was read, the administrator
 * saves it. And "refresh now" of a saved source's metadata URL (saml-source-refresh.ts), which
 * spends the same budget.
 */
export function createSamlMetadataReader(deps: {
  db: Db;
  outbound: OutboundPolicy;
  sources: Pick<IdentitySourceService, 'findExisting'>;
  samlRefresh: SamlMetadataRefresh;
}) {
  /** One of the company's fetches of metadata an hour (the same budget as reading it into the form). */
  async function spendFetch(companyId: string) {
    const budget = { key: `saml-metadata-fetch:${companyId}`, limit: 30, minutes: 60 };
    if (!(await spendBudgets(deps.db, [budget], 'reserve'))) throw new AppError('saml.fetch_throttled');
  }

  /** "Refresh now" on a source set up from a metadata URL: read it again, as the daily job does. */
  async function refreshNow(companyId: string, lang: Language, sourceId: string) {
    const source = await deps.sources.findExisting(companyId, sourceId);
    if (!deps.samlRefresh.refreshable(source)) throw new AppError('saml_source.no_metadata_url');
    await spendFetch(companyId);
    await deps.samlRefresh.refresh(source);
    const state = await deps.samlRefresh.stateOf(lang, source);
    if (!state) throw new AppError('saml_source.no_metadata_url');
    return state;
  }

  async function read(companyId: string, body: z.output<typeof samlSource.readSamlSourceMetadata.request>) {
    let xml = body.xml;
    if (body.url) {
      await spendFetch(companyId);
      xml = await fetchMetadata(body.url, deps.outbound);
    }
    return parseIdentityProviderMetadata(xml ?? '');
  }

  return { read, refreshNow };
}

export function samlSourceConsoleRoutes(
  bind: Bind,
  readMetadata: ReturnType<typeof createSamlMetadataReader>,
) {
  bind(calls.readSamlSourceMetadata, async ({ tenant, body }) => readMetadata.read(tenant.companyId, body));
  bind(calls.refreshSamlSourceMetadata, async ({ tenant, body, lang }) =>
    readMetadata.refreshNow(tenant.companyId, lang, body.sourceId),
  );
}
