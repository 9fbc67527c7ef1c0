import type { Db } from '../../db/database.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { OutboundPolicy } from '../../lib/outbound-address.ts';
import type { Jobs } from '../jobs/jobs.ts';
import type { QuotaService } from '../license/quota.service.ts';
import type { AnySource, LdapSettings } from './identity-source.repo.ts';
import { createIdentitySourceService } from './identity-source.service.ts';
import { withDirectory } from './ldap/ldap-client.ts';
import { readDirectory } from './ldap/ldap-directory.ts';
import { createDirectorySignIn } from './ldap/ldap-signin.ts';
import { createLdapTests, ldapConnectionOf } from './ldap/ldap-tests.ts';
import { createOidcTests } from './oidc/oidc-tests.ts';
import { createSamlMetadataReader } from './saml-source/saml-source-metadata-reader.ts';
import { createSamlMetadataRefresh } from './saml-source/saml-source-refresh.ts';
import { readDingtalkContacts, readWecomContacts } from './scan/contacts.ts';
import type { ProviderUrls } from './scan/providers.ts';
import { SourceFailure } from './source-failure.ts';
import { secretPurpose } from './source-settings.ts';
import type { DirectorySnapshot } from './sync/snapshot.ts';
import { createSyncService } from './sync/sync.service.ts';

/**
 * The identity-source area put together: sources and their tests, the directory sync (one
 * engine, a connector per kind of directory) and the directory's password check for sign-in.
 */
export function createIdentitySources(deps: {
  db: Db;
  sealer: Sealer;
  quotas: Pick<QuotaService, 'takePlaces'>;
  jobs: Jobs;
  publicUrl: string;
  urls: ProviderUrls;
  /** How long a directory may take to answer (tests shorten it). */
  timeoutMs?: number;
  /** Where directories may be (TESSERA_OUTBOUND_ALLOWED_NETWORKS). */
  outbound: OutboundPolicy;
}) {
  const directoryOptions = { timeoutMs: deps.timeoutMs, outbound: deps.outbound };
  const { db, sealer } = deps;
  const secretOf = (source: AnySource) =>
    source.secret_sealed ? sealer.open(source.secret_sealed, secretPurpose(source.id)) : null;

  /** The connector of each kind of source: what the directory says now. */
  async function readSource(source: AnySource): Promise<DirectorySnapshot> {
    switch (source.type) {
      case 'ldap':
        return withDirectory(
          ldapConnectionOf(source.settings as LdapSettings, secretOf(source)),
          (session) => readDirectory(session, source.settings as LdapSettings),
          directoryOptions,
        );
      case 'dingtalk':
        return readDingtalkContacts(source.settings, secretOf(source) ?? '', deps.urls);
      case 'work_weixin':
        return readWecomContacts(source.settings, secretOf(source) ?? '', deps.urls);
      case 'weixin':
      case 'oidc':
      case 'saml':
        throw new SourceFailure('identity_source.not_syncable');
    }
  }

  const sync = createSyncService({ db, quotas: deps.quotas, jobs: deps.jobs, readDirectory: readSource });
  const samlRefresh = createSamlMetadataRefresh({ db, outbound: deps.outbound, jobs: deps.jobs });
  const service = createIdentitySourceService({
    db,
    sealer,
    publicUrl: deps.publicUrl,
    runView: sync.runView,
    samlRefresh,
  });
  const tests = createLdapTests({ db, sources: service, directory: directoryOptions });
  const directory = createDirectorySignIn({ db, sealer, quotas: deps.quotas, directory: directoryOptions });
  const oidcTests = createOidcTests({ sources: service, outbound: deps.outbound });
  const samlMetadata = createSamlMetadataReader({
    db,
    outbound: deps.outbound,
    sources: service,
    samlRefresh,
  });
  return { service, tests, sync, directory, oidcTests, samlMetadata };
}
