import { platform as calls } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import type { PlatformService } from './platform.service.ts';

export function platformRoutes(bind: Bind, service: PlatformService) {
  const actor = (session: { accountId: string; isPlatformAdmin: boolean }, ip: string) => ({
    accountId: session.accountId,
    isPlatformAdmin: session.isPlatformAdmin,
    ip,
  });
  bind(calls.platformSetup, async ({ session, ip }) => service.setup(actor(session, ip)));
  bind(calls.companyCreation, async ({ session, ip }) => service.companyCreation(actor(session, ip)));
  bind(calls.setCompanyCreation, async ({ session, body, ip }) =>
    service.setCompanyCreation(actor(session, ip), body.mode),
  );
}
