import { license as calls } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import { listThirdPartyPackages } from '../system/third-party.ts';
import type { LicenseService } from './license.service.ts';

export function licenseRoutes(
  bind: Bind,
  service: LicenseService,
  system: { version: string; build: string; database: 'postgres' | 'pglite'; startedAt: Date },
) {
  bind(calls.licenseDetail, async () => service.detail());
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
  bind(calls.systemInfo, async () => ({
    version: system.version,
    build: system.build,
    nodeVersion: process.version,
    database: system.database,
    startedAt: system.startedAt.toISOString(),
  }));
  let thirdParty: ReturnType<typeof listThirdPartyPackages> | undefined;
  bind(calls.thirdParty, async () => {
    // The shipped packages do not change while the server runs: read them once.
    thirdParty ??= listThirdPartyPackages();
    return { list: await thirdParty };
  });
}
