import { samlSource as calls, type samlSource } from '@tessera/contract';
import type { z } from 'zod';
import type { Db } from '../../../db/database.ts';
import type { Bind } from '../../../http/bind.ts';
import { AppError } from '../../../lib/errors.ts';
import type { OutboundPolicy } from '../../../lib/outbound-address.ts';
import { spendBudgets } from '../../../lib/rate-windows.ts';
import { fetchMetadata } from '../../saml/saml-fetch.ts';
import { parseIdentityProviderMetadata } from './saml-source-metadata.ts';

/**
 * The console's "read metadata" of a SAML source: an uploaded document, or a URL fetched once
 * now through the outbound-address rule (at most 30 fetches an hour per company, as for SAML
 * applications' metadata). Nothing is stored: the form shows what was read, the administrator
 * saves it.
 */
export function createSamlMetadataReader(deps: { db: Db; outbound: OutboundPolicy }) {
  return async function readMetadata(
    companyId: string,
    body: z.output<typeof samlSource.readSamlSourceMetadata.request>,
  ) {
    let xml = body.xml;
    if (body.url) {
      const budget = { key: `saml-metadata-fetch:${companyId}`, limit: 30, minutes: 60 };
      if (!(await spendBudgets(deps.db, [budget], 'reserve'))) throw new AppError('saml.fetch_throttled');
      xml = await fetchMetadata(body.url, deps.outbound);
    }
    return parseIdentityProviderMetadata(xml ?? '');
  };
}

export function samlSourceConsoleRoutes(
  bind: Bind,
  readMetadata: ReturnType<typeof createSamlMetadataReader>,
) {
  bind(calls.readSamlSourceMetadata, async ({ tenant, body }) => readMetadata(tenant.companyId, body));
}
