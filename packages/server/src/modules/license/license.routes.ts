import { license as calls, quota as quotaCalls } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import { listThirdPartyPackages } from '../system/third-party.ts';
import type { LicenseService } from './license.service.ts';
import type { QuotaService } from './quota.service.ts';

export function licenseRoutes(
  bind: Bind,
  service: LicenseService,
  quotas: QuotaService,
  system: {
    version: string;
    build: string;
    database: 'postgres' | 'pglite';
    startedAt: Date;
    mailEnabled: boolean;
  },
) {
  bind(calls.licenseDetail, async ({ session, tenant }) =>
    service.detail({ companyId: tenant.companyId, isPlatformAdmin: session.isPlatformAdmin }),
  );
  bind(calls.licenseCode, async () => ({ code: await service.applicationCode() }));
  bind(calls.licenseInfo, async () => service.info());
  bind(calls.licenseImport, async ({ session, tenant, body, ip }) =>
    service.importLicense(
      {
        accountId: session.accountId,
        isPlatformAdmin: session.isPlatformAdmin,
        companyId: tenant.companyId,
        ip,
      },
      body.license,
    ),
  );
  const platformActor = (session: { accountId: string; isPlatformAdmin: boolean }, ip: string) => ({
    accountId: session.accountId,
    isPlatformAdmin: session.isPlatformAdmin,
    ip,
  });
  bind(quotaCalls.companyQuotaList, async ({ session, body, ip }) =>
    quotas.list(platformActor(session, ip), body),
  );
  bind(quotaCalls.setCompanyQuota, async ({ session, body, ip, lang }) =>
    quotas.setQuotas(platformActor(session, ip), lang, body),
  );
  bind(calls.systemInfo, async () => ({
    version: system.version,
    build: system.build,
    nodeVersion: process.version,
    database: system.database,
    startedAt: system.startedAt.toISOString(),
    mailEnabled: system.mailEnabled,
  }));
  let thirdParty: ReturnType<typeof listThirdPartyPackages> | undefined;
  bind(calls.thirdParty, async () => {
    // The shipped packages do not change while the server runs: read them once.
    thirdParty ??= listThirdPartyPackages();
    return { list: await thirdParty };
  });
}
