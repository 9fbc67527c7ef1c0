import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { AppOptions } from './app.ts';
import { defaultCompanyQuotas } from './config.ts';
import type { DatabaseHandle } from './db/database.ts';
import type { Bind } from './http/bind.ts';
import { defaultPurgeLimits } from './lib/batched-purge.ts';
import type { Sealer } from './lib/crypto.ts';
import { onFirstUse } from './lib/on-first-use.ts';
import type { OutboundPolicy } from './lib/outbound-address.ts';
import type { AccountsRepo } from './modules/account/account.repo.ts';
import { countApps } from './modules/app/app.repo.ts';
import { appRoutes } from './modules/app/app.routes.ts';
import { createAppService } from './modules/app/app.service.ts';
import { brandRoutes, brandStylesheetRoute } from './modules/brand/brand.routes.ts';
import { createBrandService } from './modules/brand/brand.service.ts';
import { installCa } from './modules/ca/ca.install.ts';
import type { Cas } from './modules/cas/cas.install.ts';
import type { CompaniesRepo } from './modules/company/company.repo.ts';
import { companyRoutes } from './modules/company/company.routes.ts';
import { createCompanyService } from './modules/company/company.service.ts';
import { consoleRoleRoutes } from './modules/console-role/console-role.routes.ts';
import { createConsoleRoleService } from './modules/console-role/console-role.service.ts';
import { departmentRoutes } from './modules/department/department.routes.ts';
import { createDepartmentService } from './modules/department/department.service.ts';
import { createExchange } from './modules/exchange/exchange.install.ts';
import { identitySourceRoutes } from './modules/identity-source/identity-source.routes.ts';
import { createIdentitySources } from './modules/identity-source/identity-sources.ts';
import { samlSourceConsoleRoutes } from './modules/identity-source/saml-source/saml-source-metadata-reader.ts';
import { defaultProviderUrls } from './modules/identity-source/scan/providers.ts';
import { createJobs } from './modules/jobs/jobs.ts';
import { createLdapDirectory } from './modules/ldap-server/ldap-server.install.ts';
import { licenseRoutes } from './modules/license/license.routes.ts';
import { createLicenseService } from './modules/license/license.service.ts';
import { BUILT_IN_LICENSE_PUBLIC_KEY, parseLicensePublicKey } from './modules/license/license-file.ts';
import { createQuotaService } from './modules/license/quota.service.ts';
import { installLogs } from './modules/log/log.install.ts';
import { createCredentialNotices } from './modules/mail/credential-notices.ts';
import { mailRoutes } from './modules/mail/mail.routes.ts';
import { createMailService } from './modules/mail/mail.service.ts';
import { createMailer } from './modules/mail/mailer.ts';
import { createSignInLinksRepo } from './modules/mail/sign-in-links.repo.ts';
import { createFido2Service } from './modules/mfa/fido2.service.ts';
import { mfaRoutes } from './modules/mfa/mfa.routes.ts';
import { createMfaService } from './modules/mfa/mfa.service.ts';
import type { SignatureFactors } from './modules/mfa/signature-factors.service.ts';
import type { OidcInstall } from './modules/oidc/oidc.install.ts';
import type { Metrics } from './modules/ops/metrics.ts';
import { createPasswordReset } from './modules/password-reset/password-reset.service.ts';
import type { Permissions } from './modules/permission/permission.install.ts';
import { platformRoutes } from './modules/platform/platform.routes.ts';
import { createPlatformService } from './modules/platform/platform.service.ts';
import { createProvisioning } from './modules/provisioning/provisioning.install.ts';
import { createRadius } from './modules/radius/radius.install.ts';
import { safetyRoutes } from './modules/safety/safety.routes.ts';
import { createSafetyService } from './modules/safety/safety.service.ts';
import type { Saml } from './modules/saml/saml.install.ts';
import { installScim } from './modules/scim/scim.install.ts';
import type { ConsoleClient } from './modules/session/console-clients.ts';
import type { SessionsRepo } from './modules/session/session.repo.ts';
import { sessionRoutes } from './modules/session/session.routes.ts';
import { createSessionService } from './modules/session/session.service.ts';
import { createSignInService } from './modules/signin/signin.service.ts';
import { SMS_CHANNEL } from './modules/sms/sms.repo.ts';
import { smsRoutes } from './modules/sms/sms.routes.ts';
import { createSmsService } from './modules/sms/sms.service.ts';
import type { SmsSender } from './modules/sms/sms.ts';
import { userRoutes } from './modules/user/user.routes.ts';
import { createUserService } from './modules/user/user.service.ts';
import { userImportRoutes } from './modules/user-import/import.routes.ts';
import { createUserImportService } from './modules/user-import/import.service.ts';
import { databaseFileStore, folderFileStore } from './modules/user-import/import-files.ts';
import { createOneTimeCodes } from './modules/verification/one-time-codes.ts';
import { build, version } from './version.ts';

/** The periodic checkpoint of the embedded database. */
export const CHECKPOINT_JOB = 'database.checkpoint';
/** The hourly removal of one-time codes that ended. */
export const CODES_PURGE_JOB = 'codes.purge';

/**
 * The services of the areas, in the order they need each other; jobs registered here run once
 * the app is ready.
 */
export async function createServices(context: {
  options: AppOptions;
  app: FastifyInstance;
  sealer: Sealer;
  issuer: string;
  repos: {
    accounts: AccountsRepo;
    companies: CompaniesRepo;
    sessions: SessionsRepo;
    clients: ConsoleClient[];
  };
  metrics: Metrics;
  outbound: OutboundPolicy;
  oidc: Pick<OidcInstall, 'tokenEndpoint' | 'signOut'>;
}) {
  const { options, app, sealer, issuer, metrics, outbound } = context;
  const { config, database } = options;
  const { db } = database;
  const { accounts, companies, sessions, clients } = context.repos;
  const { tokenEndpoint, signOut } = context.oidc;

  const jobs = createJobs({
    db,
    log: app.log,
    listen: database.listen,
    pollMs: options.jobs?.pollMs,
    backoff: options.jobs?.backoff,
  });

  // PGlite runs no checkpointer: without checkpoints its write-ahead log grows with every write
  // until a clean stop, and an open after a crash replays all of it.
  if (database.kind === 'pglite')
    jobs.every(CHECKPOINT_JOB, 300, async () => {
      await sql`checkpoint`.execute(db);
    });

  const session = createSessionService({
    sessions,
    accounts,
    sealer,
    clients,
    issuer,
    tokenEndpoint,
    lifetimes: config.session,
  });
  const licenses = createLicenseService({
    db,
    trustedKey: parseLicensePublicKey(config.licensePublicKey ?? BUILT_IN_LICENSE_PUBLIC_KEY),
    counters: { user: accounts.countLicensedAccounts, app: countApps },
  });
  const quotas = createQuotaService({
    db,
    licenses,
    defaults: config.companyQuotas ?? defaultCompanyQuotas,
  });
  const identitySources = createIdentitySources({
    db,
    sealer,
    quotas,
    jobs,
    publicUrl: config.publicUrl,
    urls: config.scanProviders ?? defaultProviderUrls,
    timeoutMs: options.directoryTimeoutMs,
    outbound,
  });
  const signInCore = createSignInService({
    db,
    accounts,
    policy: options.signInPolicy,
    directory: identitySources.directory,
  });
  const signIn: typeof signInCore = {
    ...signInCore,
    signInWithPassword: async (attempt) => metrics.signedIn(await signInCore.signInWithPassword(attempt)),
    signInVerified: async (account, attempt) =>
      metrics.signedIn(await signInCore.signInVerified(account, attempt)),
  };
  const platform = createPlatformService({
    db,
    config,
    storage: database.kind,
    licenses,
    radiusPort: () => radius.port(),
  });
  const company = createCompanyService({ db, companies, quotas, signOut, creation: platform });
  const mailer = createMailer(config.mail, app.log);
  const signInLinks = createSignInLinksRepo(db);
  // Codes by email and SMS: sign-in, second factor, forgotten passwords, confirming addresses.
  // The platform's provider (Alibaba Cloud or Tencent Cloud); without one, nothing goes by SMS.
  const smsProvider = createSmsService({ db, sealer, outbound, log: app.log });
  app.addHook('onClose', await database.listen(SMS_CHANNEL, smsProvider.onNotice));
  const sms: SmsSender = options.sms ?? smsProvider.sender;
  const codes = createOneTimeCodes({ db, mailer, sms });
  jobs.every(CODES_PURGE_JOB, 3600, async (_job, context) => {
    await codes.purge({ ...defaultPurgeLimits, signal: context.signal });
  });
  const mail = createMailService({ db, mailer, links: signInLinks, publicUrl: config.publicUrl });
  const notifyCredentialChange = createCredentialNotices({
    db,
    mailer,
    publicUrl: config.publicUrl,
    log: app.log,
  });
  const user = createUserService({
    db,
    quotas,
    notifyCredentialChange,
    signOut,
    invitations: {
      enabled: mailer.configured,
      send: (actor, companyId, userId, lang) => mail.sendSignInLink(actor, companyId, userId, lang),
    },
    log: app.log,
  });
  // Forgotten passwords: a code by mail or SMS, then a new password that ends every session.
  const passwordReset = createPasswordReset({
    db,
    mailer,
    sms,
    signOut,
    notifyCredentialChange,
    signInPolicy: signIn.policy,
    log: app.log,
  });
  const department = createDepartmentService({ db });
  const mfa = createMfaService({ db, sealer, notifyCredentialChange, signOut });
  const fido2 = createFido2Service({ db, mfa, publicUrl: config.publicUrl });
  // UKEY and soft-lock keys: the service and its ASN.1 and SM2 libraries load at the first use.
  const signatures = onFirstUse<SignatureFactors>(async () =>
    (await import('./modules/mfa/signature-factors.service.ts')).createSignatureFactors({ db, mfa }),
  );
  const exchange = createExchange({
    db,
    sealer,
    listen: database.listen,
    jobs,
    publicUrl: config.publicUrl,
    config: config.exchange,
    outbound,
  });
  const userImport = createUserImportService({
    db,
    quotas,
    jobs,
    log: app.log,
    files: database.kind === 'postgres' ? databaseFileStore(db) : await folderFileStore(db),
    concurrency: config.importConcurrency,
    mailEnabled: mailer.configured,
  });
  const brand = createBrandService({
    db,
    passkeyOffered: () => fido2.passkeyLoginOffered(),
    forgotPasswordOffered: (companyId) => passwordReset.offered(companyId),
  });
  const radius = createRadius({
    database,
    sealer,
    jobs,
    log: app.log,
    metrics,
    config: config.radius,
    rejectDelayMs: options.radiusRejectDelayMs,
    accounts,
    signIn,
    mfa,
    codes,
  });
  // Outbound SCIM: people given an application are created, updated and deactivated there.
  const provisioning = createProvisioning({ db, sealer, outbound, jobs });
  const ldapDirectory = createLdapDirectory({
    db,
    sealer,
    signIn,
    mfa,
    log: app.log,
    config: config.ldap,
    version,
  });
  // Imports left without a job by a stopped process never finish. A shutdown waits for its own
  // (jobs.close below), then ends their workers: they fail as interrupted.
  await userImport.failInterruptedTasks();
  app.addHook('preClose', () => userImport.close());
  return {
    jobs,
    session,
    licenses,
    quotas,
    identitySources,
    signIn,
    company,
    platform,
    mailer,
    signInLinks,
    sms,
    smsProvider,
    codes,
    passwordReset,
    mail,
    user,
    department,
    mfa,
    fido2,
    signatures,
    exchange,
    userImport,
    brand,
    radius,
    provisioning,
    ldapDirectory,
  };
}

export type Services = Awaited<ReturnType<typeof createServices>>;

/** The API calls of every area (the OpenAPI document lists them), and the brand's stylesheet. */
export function bindCalls(
  bind: Bind,
  services: Services,
  context: {
    app: FastifyInstance;
    sealer: Sealer;
    issuer: string;
    database: DatabaseHandle;
    config: AppOptions['config'];
    outbound: OutboundPolicy;
    permissions: Pick<Permissions, 'routes' | 'roles'>;
    saml: Pick<Saml, 'routes'>;
    cas: Pick<Cas, 'routes'>;
  },
) {
  const { app, sealer, issuer, database, config, outbound } = context;
  const { db } = database;
  const { quotas, licenses, identitySources } = services;
  sessionRoutes(bind, services.session);
  companyRoutes(bind, services.company);
  platformRoutes(bind, services.platform);
  mailRoutes(bind, services.mail);
  userRoutes(bind, services.user);
  departmentRoutes(bind, services.department);
  mfaRoutes(bind, services.mfa, services.signatures);
  userImportRoutes(bind, services.userImport);
  safetyRoutes(bind, createSafetyService({ db }));
  appRoutes(bind, createAppService({ db, sealer, issuer, quotas, outbound }));
  context.saml.routes(bind, outbound);
  context.cas.routes(bind);
  services.provisioning.routes(bind);
  services.exchange.routes(bind);
  licenseRoutes(bind, licenses, quotas, {
    version,
    build,
    database: database.kind,
    startedAt: new Date(),
    mailEnabled: services.mailer.configured,
  });
  installLogs(bind, {
    db,
    jobs: services.jobs,
    publicUrl: config.publicUrl,
    allowLocalTargets: config.syslogAllowLocalTargets ?? false,
  });
  brandRoutes(bind, services.brand);
  brandStylesheetRoute(app, services.brand);
  identitySourceRoutes(
    bind,
    identitySources.service,
    identitySources.tests,
    identitySources.sync,
    identitySources.oidcTests,
  );
  samlSourceConsoleRoutes(bind, identitySources.samlMetadata);
  consoleRoleRoutes(bind, createConsoleRoleService({ db }));
  context.permissions.routes(bind);
  services.radius.routes(bind);
  services.ldapDirectory.routes(bind);
  smsRoutes(bind, services.smsProvider);
  void installScim(app, bind, {
    db,
    publicUrl: config.publicUrl,
    users: services.user,
    departments: services.department,
    roles: context.permissions.roles,
  });
  installCa(app, bind, { db, sealer, publicUrl: config.publicUrl });
}
