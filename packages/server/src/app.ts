import type { CallAtPath } from '@tessera/contract';
import type { FastifyInstance } from 'fastify';
import type Provider from 'oidc-provider';
import { bindCalls, createServices } from './app-services.ts';
import type { Config } from './config.ts';
import type { DatabaseHandle } from './db/database.ts';
import { createBinder } from './http/bind.ts';
import { pageRoutes } from './http/page-routes.ts';
import { createServer, installApiBodies, sendNotFound } from './http/server.ts';
import { defaultPurgeLimits } from './lib/batched-purge.ts';
import { createSealer } from './lib/crypto.ts';
import { createOutboundPolicy } from './lib/outbound-address.ts';
import { purgeIdleBudgets } from './lib/rate-windows.ts';
import { createAccountsRepo } from './modules/account/account.repo.ts';
import { createApiCallerAuthenticator } from './modules/app/api-caller.ts';
import { createCas } from './modules/cas/cas.install.ts';
import { purgeCasState } from './modules/cas/cas.repo.ts';
import { createCompaniesRepo } from './modules/company/company.repo.ts';
import { purgeSamlSourceState } from './modules/identity-source/saml-source/saml-source.repo.ts';
import { purgeScanStates } from './modules/identity-source/scan/scan-states.repo.ts';
import { createUpstreamLogout } from './modules/identity-source/upstream/upstream-logout.ts';
import { purgeUpstreamLogoutState } from './modules/identity-source/upstream/upstream-sessions.repo.ts';
import { purgeUpstreamStates } from './modules/identity-source/upstream/upstream-sources.repo.ts';
import type { Jobs } from './modules/jobs/jobs.ts';
import type { RunningLdap } from './modules/ldap-server/ldap-server.install.ts';
import { purgeExpiredOidcPayloads } from './modules/oidc/adapter.ts';
import { installOidcProvider } from './modules/oidc/oidc.install.ts';
import { oidcMountRoutes } from './modules/oidc/oidc-mount.routes.ts';
import { OIDC_MOUNT } from './modules/oidc/provider.ts';
import type { AccountSignOut } from './modules/oidc/sign-out.ts';
import { createMetrics } from './modules/ops/metrics.ts';
import { opsRoutes } from './modules/ops/ops.routes.ts';
import { installPermissions } from './modules/permission/permission.install.ts';
import { createOwnProfileService } from './modules/portal/profile.service.ts';
import type { RunningRadius } from './modules/radius/radius.install.ts';
import { createSaml } from './modules/saml/saml.install.ts';
import { purgeSamlState } from './modules/saml/saml.repo.ts';
import { consoleClients } from './modules/session/console-clients.ts';
import { createSessionsRepo, purgeEndedConsoleSessions } from './modules/session/session.repo.ts';
import type { SignInPolicy } from './modules/signin/signin.service.ts';
import { purgeUnknownFailures } from './modules/signin/signin-throttle.ts';
import type { SmsSender } from './modules/sms/sms.ts';
import { webRoutes } from './modules/system/web.routes.ts';
import { version } from './version.ts';

export interface AppOptions {
  config: Pick<Config, 'publicUrl' | 'session' | 'logLevel'> &
    Partial<
      Pick<
        Config,
        | 'licensePublicKey'
        | 'mail'
        | 'trustedProxies'
        | 'companyQuotas'
        | 'metricsToken'
        | 'exchange'
        | 'importConcurrency'
        | 'syslogAllowLocalTargets'
        | 'scanProviders'
        | 'outboundNetworks'
        | 'radius'
        | 'ldap'
      >
    >;
  database: DatabaseHandle;
  masterKey: Buffer;
  /** Checks every response against its contract schema (tests). */
  validateResponses?: boolean;
  /** The console's build (default: packages/console/dist). */
  consoleDir?: string;
  /** Where the log goes instead of stdout (tests read it). */
  logStream?: { write(line: string): void };
  signInPolicy?: Partial<SignInPolicy>;
  /**
   * Background jobs (modules/jobs): polling and back-off, and whether this instance runs them
   * (tests run them by hand with `jobs.drain()`).
   */
  jobs?: { run?: boolean; pollMs?: number; backoff?: { baseMs: number; maxMs: number } };
  /** How long a directory may take to answer one operation (tests shorten the 10 s). */
  directoryTimeoutMs?: number;
  /** How long RADIUS rejects wait (ms; default 1000, as FreeRADIUS's reject_delay). */
  radiusRejectDelayMs?: number;
  /** Text messages through this sender instead of the configured provider (tests record them). */
  sms?: SmsSender;
}

export interface TesseraApp {
  app: FastifyInstance;
  provider(): Provider;
  /** Rebuilds the OIDC provider from the stored keys (after a rotation elsewhere). */
  reloadKeys(): Promise<void>;
  /** Every bound API path with its call, aliases included (the OpenAPI document and the tenant-wall test walk these). */
  boundCalls: CallAtPath[];
  /** Background jobs (modules/jobs): tests run the queued ones with `drain()`. */
  jobs: Jobs;
  /**
   * Signs a person out of every single sign-on session (or of one company's applications) and
   * tells their applications by back-channel logout.
   */
  signOutAccountEverywhere: AccountSignOut['signOutAccountEverywhere'];
  /** The RADIUS server when it is on: its UDP port; reloading its clients and writing its counters now (they also happen by themselves). */
  radius: RunningRadius | null;
  /** The LDAP server when it is on: its ports. */
  ldap: RunningLdap | null;
  close(): Promise<void>;
}

/** The composition root: database → repositories → services → routes. */
export async function buildApp(options: AppOptions): Promise<TesseraApp> {
  const { config, database } = options;
  const { db } = database;
  const issuer = `${config.publicUrl}${OIDC_MOUNT}`;
  const sealer = createSealer(options.masterKey);

  const { app, securityHeaders } = await createServer(options);
  // Before any route, so that every route's answers are counted.
  const metrics = await createMetrics({ enabled: Boolean(config.metricsToken), app, database });
  opsRoutes(app, { db, metrics, metricsToken: config.metricsToken });
  app.setNotFoundHandler(sendNotFound);

  // ---- repositories and services
  const accounts = createAccountsRepo(db);
  const companies = createCompaniesRepo(db);
  const sessions = createSessionsRepo(db);
  const clients = consoleClients(config.publicUrl, sealer);

  // ---- permissions, decided from a cache that every change on every instance invalidates
  const permissions = await installPermissions({
    db,
    sealer,
    listen: database.listen,
    publicUrl: config.publicUrl,
    issuer,
    jwks: () => oidc.jwks(),
  });
  const { decisions } = permissions;

  // ---- SAML applications and the OIDC provider, rebuilt when the signing keys change
  const outbound = createOutboundPolicy(config.outboundNetworks ?? []);
  const secureCookies = config.publicUrl.startsWith('https://');
  const saml = createSaml({ db, sealer, publicUrl: config.publicUrl, issuer });
  const cas = createCas({ db, sealer, publicUrl: config.publicUrl, issuer, outbound, log: app.log });
  const upstreamLogout = createUpstreamLogout({
    db,
    sealer,
    publicUrl: config.publicUrl,
    outbound,
    log: app.log,
  });
  const oidc = await installOidcProvider({
    db,
    sealer,
    listen: database.listen,
    publicUrl: config.publicUrl,
    issuer,
    secureCookies,
    accounts,
    consoleClients: clients,
    samlClientUrls: saml.clientUrls,
    samlSlo: saml.slo,
    casClientUrls: cas.clientUrls,
    casLogoutHook: cas.slo.hook,
    upstreamLogoutHook: upstreamLogout.hook,
    serviceSignOuts: [cas.slo.serviceSignOut],
    decisions,
    decisionApi: permissions.decisionApi,
    outbound,
    metrics,
    log: app.log,
  });
  const { tokenEndpoint } = oidc;

  const services = await createServices({
    options,
    app,
    sealer,
    issuer,
    repos: { accounts, companies, sessions, clients },
    metrics,
    outbound,
    oidc,
  });
  const { jobs, quotas, exchange } = services;

  // ---- routes
  await oidcMountRoutes(app, { publicUrl: config.publicUrl, securityHeaders, callback: oidc.callback });
  await saml.webRoutes(app, { tokenEndpoint, accounts, secureCookies });
  await cas.webRoutes(app, { tokenEndpoint, accounts, permissions: decisions.claim, secureCookies });
  await exchange.agentRoutes(app);

  await pageRoutes(app, {
    db,
    sealer,
    config,
    accounts,
    sessions,
    companies,
    tokenEndpoint,
    issuer,
    secureCookies,
    provider: oidc.provider,
    signIn: services.signIn,
    signInLinks: services.signInLinks,
    mfa: services.mfa,
    fido2: services.fido2,
    signatures: services.signatures,
    ownDevices: exchange.ownDevices,
    consents: oidc.consents,
    brand: services.brand,
    quotas,
    passwordReset: services.passwordReset,
    ownProfile: createOwnProfileService({
      db,
      codes: services.codes,
      mailer: services.mailer,
      sms: services.sms,
      log: app.log,
    }),
    oneTimeCodes: { codes: services.codes, sms: services.sms, mailer: services.mailer },
    outbound,
    signOut: oidc.signOut.signOutAccountEverywhere,
  });

  const bind = createBinder(app, {
    authenticate: services.session.authenticate,
    consoleStandingIn: companies.findConsoleStanding,
    authenticateApp: decisions.authenticateApp,
    authenticateApiToken: createApiCallerAuthenticator({
      db,
      issuer,
      audience: oidc.managementApi.audience,
      jwks: oidc.jwks,
    }),
    validateResponses: options.validateResponses ?? false,
  });
  await installApiBodies(app);
  bindCalls(bind, services, { app, sealer, issuer, database, config, outbound, permissions, saml, cas });
  await webRoutes(app, {
    db,
    calls: () => bind.bound,
    version,
    publicUrl: config.publicUrl,
    consoleDir: options.consoleDir,
  });

  // Each table is purged in bounded batches (lib/batched-purge.ts), at most so many a run.
  jobs.every('maintenance.purge', 600, async (_job, context) => {
    const limits = { ...defaultPurgeLimits, signal: context.signal };
    await Promise.all([
      purgeExpiredOidcPayloads(db, limits),
      purgeIdleBudgets(db, limits),
      purgeUnknownFailures(db, limits),
      purgeScanStates(db, limits),
      purgeUpstreamStates(db, limits),
      purgeSamlSourceState(db, limits),
      purgeUpstreamLogoutState(db, limits),
      purgeSamlState(db, limits),
      purgeCasState(db, limits),
      purgeEndedConsoleSessions(db, limits),
    ]);
  });

  await app.ready();
  if (options.jobs?.run !== false) await jobs.start();
  const radius = await services.radius.start();
  const ldap = await services.ldapDirectory.start();
  return {
    app,
    provider: oidc.provider,
    reloadKeys: oidc.reloadKeys,
    jobs,
    radius,
    ldap,
    async close() {
      await jobs.close();
      await services.radius.close();
      await services.ldapDirectory.close();
      services.mailer.close();
      await oidc.close();
      await permissions.close();
      // Graceful, with a deadline: requests under way get 5 s, then remaining connections are closed.
      const deadline = setTimeout(() => app.server.closeAllConnections(), 5_000);
      deadline.unref();
      try {
        await app.close();
      } finally {
        clearTimeout(deadline);
      }
    },
    boundCalls: bind.bound,
    signOutAccountEverywhere: oidc.signOut.signOutAccountEverywhere,
  };
}
