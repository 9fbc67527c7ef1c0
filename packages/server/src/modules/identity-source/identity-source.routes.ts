import { identitySource as calls, directorySync } from '@tessera/contract';
import type { Bind } from '../../http/bind.ts';
import type { IdentitySourceService } from './identity-source.service.ts';
import type { LdapTests } from './ldap/ldap-tests.ts';
import type { OidcTests } from './oidc/oidc-tests.ts';
import type { SyncService } from './sync/sync.service.ts';

export function identitySourceRoutes(
  bind: Bind,
  service: IdentitySourceService,
  tests: LdapTests,
  sync: SyncService,
  oidcTests: OidcTests,
) {
  const actor = (ctx: {
    session: { accountId: string };
    ip: string;
    tenant: { role: import('@tessera/contract').MemberRole };
  }) => ({
    accountId: ctx.session.accountId,
    ip: ctx.ip,
    role: ctx.tenant.role,
  });

  bind(calls.listIdentitySources, async ({ tenant, lang }) => service.list(tenant.companyId, lang));
  bind(calls.identitySourceDetailCall, async ({ tenant, lang, body }) =>
    service.detail(tenant.companyId, lang, body.sourceId),
  );
  bind(calls.createIdentitySource, async (ctx) => {
    const sourceId = await service.create(actor(ctx), ctx.tenant.companyId, ctx.lang, ctx.body);
    return service.detail(ctx.tenant.companyId, ctx.lang, sourceId);
  });
  bind(calls.updateIdentitySource, async (ctx) => {
    await service.update(actor(ctx), ctx.tenant.companyId, ctx.lang, ctx.body);
    return service.detail(ctx.tenant.companyId, ctx.lang, ctx.body.sourceId);
  });
  bind(calls.setIdentitySourceStatus, async (ctx) => {
    await service.setEnabled(actor(ctx), ctx.tenant.companyId, ctx.body.sourceId, ctx.body.enabled);
    return service.summary(ctx.tenant.companyId, ctx.lang, ctx.body.sourceId);
  });
  bind(calls.deleteIdentitySource, async (ctx) =>
    service.remove(actor(ctx), ctx.tenant.companyId, ctx.body.sourceId),
  );
  bind(calls.testLdapConnection, async ({ tenant, lang, body }) =>
    tests.testConnection(tenant.companyId, lang, body),
  );
  bind(calls.testLdapUser, async ({ tenant, lang, body }) => tests.testUser(tenant.companyId, lang, body));
  bind(calls.testOidcSource, async ({ tenant, lang, body }) =>
    oidcTests.testSource(tenant.companyId, lang, body),
  );

  bind(directorySync.previewSync, async (ctx) =>
    sync.request(actor(ctx), ctx.tenant.companyId, ctx.lang, {
      sourceId: ctx.body.sourceId,
      mode: 'preview',
    }),
  );
  bind(directorySync.applySync, async (ctx) =>
    sync.request(actor(ctx), ctx.tenant.companyId, ctx.lang, {
      sourceId: ctx.body.sourceId,
      mode: 'apply',
      previewRunId: ctx.body.runId,
    }),
  );
  bind(directorySync.startSync, async (ctx) =>
    sync.request(actor(ctx), ctx.tenant.companyId, ctx.lang, { sourceId: ctx.body.sourceId, mode: 'sync' }),
  );
  bind(directorySync.listSyncRuns, async ({ tenant, lang, body }) => sync.list(tenant.companyId, lang, body));
  bind(directorySync.syncRunDetail, async ({ tenant, lang, body }) =>
    sync.detail(tenant.companyId, lang, body.sourceId, body.runId),
  );
  bind(directorySync.syncRunRows, async ({ tenant, lang, body }) => sync.rows(tenant.companyId, lang, body));
}
