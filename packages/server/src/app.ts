import fastifyCompress from '@fastify/compress';
import fastifyCookie from '@fastify/cookie';
import fastifyMultipart from '@fastify/multipart';
import type { CallAtPath, Language } from '@tessera/contract';
import Fastify, { type FastifyInstance } from 'fastify';
import { inject } from 'light-my-request';
import type Provider from 'oidc-provider';
import { type Config, defaultCompanyQuotas, defaultExchangeConfig } from './config.ts';
import type { DatabaseHandle } from './db/database.ts';
import { createBinder } from './http/bind.ts';
import { installErrorHandling, sendError } from './http/envelope.ts';
import { pageRoutes } from './http/page-routes.ts';
import { requestLogSerializer } from './http/request-log.ts';
import { createSecurityHeaders } from './http/security-headers.ts';
import { createSealer } from './lib/crypto.ts';
import { AppError } from './lib/errors.ts';
import { pickLanguage } from './lib/i18n.ts';
import { createOutboundPolicy } from './lib/outbound-address.ts';
import { purgeIdleBudgets } from './lib/rate-windows.ts';
import { createAccountsRepo } from './modules/account/account.repo.ts';
import {
  API_TOKEN_TTL,
  createAccessTokenVerifier,
  createApiCallerAuthenticator,
  decisionApiAudience,
  managementApiAudience,
} from './modules/app/api-caller.ts';
import { countApps } from './modules/app/app.repo.ts';
import { appRoutes } from './modules/app/app.routes.ts';
import { createAppService } from './modules/app/app.service.ts';
import { appAccessById, logAppSignIn } from './modules/app/app-access.ts';
import { findClientMetadata } from './modules/app/app-clients.ts';
import { brandRoutes, brandStylesheetRoute } from './modules/brand/brand.routes.ts';
import { createBrandService } from './modules/brand/brand.service.ts';
import { installCa } from './modules/ca/ca.install.ts';
import { createCompaniesRepo } from './modules/company/company.repo.ts';
import { companyRoutes } from './modules/company/company.routes.ts';
import { createCompanyService } from './modules/company/company.service.ts';
import { consoleRoleRoutes } from './modules/console-role/console-role.routes.ts';
import { createConsoleRoleService } from './modules/console-role/console-role.service.ts';
import { departmentPathsOf } from './modules/department/department.repo.ts';
import { departmentRoutes } from './modules/department/department.routes.ts';
import { createDepartmentService } from './modules/department/department.service.ts';
import { agentRoutes } from './modules/exchange/agent.routes.ts';
import { createAgentService } from './modules/exchange/agent.service.ts';
import { scheduleRotation } from './modules/exchange/device-rotation.ts';
import { createVerifiedPasswords } from './modules/exchange/device-secrets.ts';
import { createDevicesService } from './modules/exchange/devices.service.ts';
import { exchangeRoutes } from './modules/exchange/exchange.routes.ts';
import { createExchangeSettingsService } from './modules/exchange/exchange-settings.service.ts';
import { createOwnDevicesService } from './modules/exchange/own-devices.service.ts';
import { identitySourceRoutes } from './modules/identity-source/identity-source.routes.ts';
import { createIdentitySources } from './modules/identity-source/identity-sources.ts';
import { defaultProviderUrls } from './modules/identity-source/scan/providers.ts';
import { purgeScanStates } from './modules/identity-source/scan/scan-states.repo.ts';
import { createJobs, type Jobs } from './modules/jobs/jobs.ts';
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
import { createOidcAdapter, purgeExpiredOidcPayloads } from './modules/oidc/adapter.ts';
import { createClientThrottle } from './modules/oidc/client-throttle.ts';
import { createConsentStore } from './modules/oidc/consent.ts';
import { ensureSigningKeys, KEYS_CHANNEL, loadJwks } from './modules/oidc/keys.ts';
import { oidcMountRoutes } from './modules/oidc/oidc-mount.routes.ts';
import { createOidcProvider, OIDC_MOUNT } from './modules/oidc/provider.ts';
import { type AccountSignOut, createSignOut } from './modules/oidc/sign-out.ts';
import { pairwiseSubject } from './modules/oidc/subject.ts';
import { createMetrics } from './modules/ops/metrics.ts';
import { opsRoutes } from './modules/ops/ops.routes.ts';
import { createAuthorizationService } from './modules/permission/authorization.service.ts';
import { createDecisionService, credentialsLoader } from './modules/permission/decision.service.ts';
import { permissionRoutes } from './modules/permission/permission.routes.ts';
import { createPermissionCache, PERMISSIONS_CHANNEL } from './modules/permission/policy-cache.ts';
import { createResourceService } from './modules/permission/resource.service.ts';
import { createRoleService } from './modules/permission/role.service.ts';
import { portalClient, portalClientMetadata } from './modules/portal/portal.routes.ts';
import { installRadius, type RunningRadius } from './modules/radius/radius.install.ts';
import { safetyRoutes } from './modules/safety/safety.routes.ts';
import { createSafetyService } from './modules/safety/safety.service.ts';
import { purgeSamlState } from './modules/saml/saml.repo.ts';
import { samlRoutes } from './modules/saml/saml.routes.ts';
import { createSamlConfigService } from './modules/saml/saml-config.service.ts';
import { createSamlKeys } from './modules/saml/saml-keys.ts';
import { samlLogoutHook } from './modules/saml/saml-logout-hook.ts';
import { createSamlSlo, SAML_LOGOUT_RETURN_PATH } from './modules/saml/saml-slo.service.ts';
import { createSamlSso, SAML_CALLBACK_PATH } from './modules/saml/saml-sso.service.ts';
import { samlWebRoutes } from './modules/saml/saml-web.routes.ts';
import { consoleClientMetadata, consoleClients } from './modules/session/console-clients.ts';
import { createSessionsRepo } from './modules/session/session.repo.ts';
import { sessionRoutes } from './modules/session/session.routes.ts';
import { createSessionService, type TokenEndpoint } from './modules/session/session.service.ts';
import { createSignInService, type SignInPolicy } from './modules/signin/signin.service.ts';
import { purgeUnknownFailures } from './modules/signin/signin-throttle.ts';
import { webRoutes } from './modules/system/web.routes.ts';
import { userRoutes } from './modules/user/user.routes.ts';
import { createUserService } from './modules/user/user.service.ts';
import { userImportRoutes } from './modules/user-import/import.routes.ts';
import { createUserImportService } from './modules/user-import/import.service.ts';
import { databaseFileStore, folderFileStore } from './modules/user-import/import-files.ts';
import { build, version } from './version.ts';

declare module 'fastify' {
  interface FastifyRequest {
    lang: Language;
  }
}

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
  close(): Promise<void>;
}

/** Fastify's `trustProxy` for TESSERA_TRUSTED_PROXIES: a hop count, or addresses and ranges. */
const trustProxyOf = (trusted: Config['trustedProxies']) => {
  if (typeof trusted !== 'number') return trusted ?? false;
  return (_address: string, hop: number) => hop < trusted;
};

/** The composition root: database → repositories → services → routes. */
export async function buildApp(options: AppOptions): Promise<TesseraApp> {
  const { config, database } = options;
  const { db } = database;
  const issuer = `${config.publicUrl}${OIDC_MOUNT}`;
  const sealer = createSealer(options.masterKey);

  const app = Fastify({
    logger: {
      level: config.logLevel,
      serializers: { req: requestLogSerializer },
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    bodyLimit: 1024 * 1024,
    // Only then are X-Forwarded-For/-Proto read: request.ip is the client's address everywhere
    // (budgets, logs, the provider below), and a client cannot name its own address.
    trustProxy: trustProxyOf(config.trustedProxies),
  });
  const securityHeaders = createSecurityHeaders({ publicUrl: config.publicUrl });
  securityHeaders.install(app);
  await app.register(fastifyCookie);
  // The console's scripts are the bulk of what a browser downloads; the OIDC routes answer raw and are not touched.
  await app.register(fastifyCompress, { threshold: 1024, encodings: ['br', 'gzip'] });
  app.decorateRequest('lang', 'en');
  app.addHook('onRequest', async (request, reply) => {
    const query = request.query as Record<string, unknown> | undefined;
    const chosen =
      typeof query?.lang === 'string' && ['en', 'zh'].includes(query.lang) ? query.lang : undefined;
    if (chosen && request.method === 'GET') {
      // A language picked on a sign-in page sticks, for the portal and the console alike.
      reply.setCookie('lang', chosen, { path: '/', maxAge: 365 * 86_400, sameSite: 'lax' });
      request.raw.headers.cookie = `${request.headers.cookie ? `${request.headers.cookie}; ` : ''}lang=${chosen}`;
    }
    request.lang = pickLanguage(chosen ?? request.cookies.lang, request.headers['accept-language']);
  });
  installErrorHandling(app);
  // Before any route, so that every route's answers are counted.
  const metrics = await createMetrics({ enabled: Boolean(config.metricsToken), app, database });
  opsRoutes(app, { db, metrics, metricsToken: config.metricsToken });
  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith('/api/'))
      return sendError(request, reply, new AppError('request.route_not_found'));
    return reply.status(404).type('text/plain; charset=utf-8').send('Not found');
  });

  // ---- repositories and services
  const accounts = createAccountsRepo(db);
  const companies = createCompaniesRepo(db);
  const sessions = createSessionsRepo(db);
  const clients = consoleClients(config.publicUrl, sealer);

  // ---- permissions: decided from a cache that every change on every instance invalidates
  const permissionCache = createPermissionCache({ db, loadCredentials: credentialsLoader(db, sealer) });
  const unlistenPermissions = await database.listen(PERMISSIONS_CHANNEL, permissionCache.onNotice);
  const decisionApi = { audience: decisionApiAudience(config.publicUrl), tokenTtl: API_TOKEN_TTL };
  const decisions = createDecisionService({
    db,
    cache: permissionCache,
    tokenIssuedTo: createAccessTokenVerifier({ issuer, ...decisionApi, jwks: () => current.jwks }),
  });

  // ---- OIDC provider, rebuilt when the signing keys change
  await ensureSigningKeys(db, sealer);
  // Every client, Tessera's own included, is found through the adapter, so that failed client
  // authentications are throttled the same way for all of them (client-throttle.ts).
  const ownClients = new Map(
    [...clients.map(consoleClientMetadata), portalClientMetadata(portalClient(config.publicUrl, sealer))].map(
      (metadata) => [metadata.client_id, metadata],
    ),
  );
  const clientThrottle = createClientThrottle(db);
  // SAML applications sign in as internal clients that come back to these (modules/saml).
  const samlClientUrls = {
    callback: `${config.publicUrl}${SAML_CALLBACK_PATH}`,
    logoutReturn: `${config.publicUrl}${SAML_LOGOUT_RETURN_PATH}`,
  };
  const Adapter = createOidcAdapter(db, async (clientId) => {
    await clientThrottle.check(clientId);
    return ownClients.get(clientId) ?? findClientMetadata(db, sealer, clientId, samlClientUrls);
  });
  const samlKeys = createSamlKeys({ db, sealer });
  const samlSlo = createSamlSlo({ db, sealer, keys: samlKeys, publicUrl: config.publicUrl, issuer });
  const appAccess = (app: { appId: string }, accountId: string) => appAccessById(db, app.appId, accountId);
  const cookieKeys = [sealer.derive('oidc-cookies').toString('base64url')];
  const secureCookies = config.publicUrl.startsWith('https://');
  const managementApi = { audience: managementApiAudience(config.publicUrl), tokenTtl: API_TOKEN_TTL };
  const consents = createConsentStore(db);
  const outbound = createOutboundPolicy(config.outboundNetworks ?? []);
  const buildProvider = async () => {
    const jwks = await loadJwks(db, sealer);
    const provider = createOidcProvider({
      issuer,
      adapter: Adapter,
      jwks,
      managementApi,
      decisionApi,
      cookieKeys,
      clients: [],
      findAccount: accounts.findAccountById,
      secureCookies,
      appAccess,
      departmentPaths: (companyId, accountId) => departmentPathsOf(db, companyId, accountId),
      permissions: (app, accountId) => decisions.claim(app, accountId),
      appRefused: ({ app, ...event }) =>
        logAppSignIn(db, { ...event, companyId: app.companyId, userAgent: null }),
      appSignedIn: ({ app, ...event }) =>
        logAppSignIn(db, { ...event, companyId: app.companyId, cause: null }),
      pairwiseSubject: pairwiseSubject(sealer),
      consents,
      fetch: outbound.fetch,
      log: app.log,
    });
    metrics.watchProvider(provider);
    clientThrottle.watch(provider, (error) =>
      app.log.warn({ err: error }, 'counting a client authentication failed'),
    );
    // Single logout reaches the SAML applications of a single sign-on session that ends.
    provider.use(samlLogoutHook(samlSlo));
    return { provider, callback: provider.callback(), jwks };
  };
  let current = await buildProvider();
  // An administrator's disable, lock, removal, password reset or factor removal signs the person
  // out of their applications too (back-channel logout, modules/oidc/sign-out.ts).
  const signOut = createSignOut({ db, provider: () => current.provider, log: app.log });
  const reloadKeys = async () => {
    current = await buildProvider();
  };
  const unlisten = await database.listen(KEYS_CHANNEL, () => {
    reloadKeys().catch((error) => app.log.error({ err: error }, 'reloading signing keys failed'));
  });

  const tokenEndpoint: TokenEndpoint = async (params, client) => {
    const response = await inject(current.callback, {
      method: 'POST',
      url: '/token',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(
          `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`,
        ).toString('base64')}`,
      },
      payload: new URLSearchParams(params).toString(),
    });
    return { status: response.statusCode, body: JSON.parse(response.payload || '{}') };
  };

  const jobs = createJobs({
    db,
    log: app.log,
    listen: database.listen,
    pollMs: options.jobs?.pollMs,
    backoff: options.jobs?.backoff,
  });

  const sessionService = createSessionService({
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
  const companyService = createCompanyService({ db, companies, quotas, signOut });
  const mailer = createMailer(config.mail, app.log);
  const signInLinks = createSignInLinksRepo(db);
  const mailService = createMailService({ db, mailer, links: signInLinks, publicUrl: config.publicUrl });
  const notifyCredentialChange = createCredentialNotices({
    db,
    mailer,
    publicUrl: config.publicUrl,
    log: app.log,
  });
  const userService = createUserService({ db, quotas, notifyCredentialChange, signOut });
  const departmentService = createDepartmentService({ db });
  const mfaService = createMfaService({ db, sealer, notifyCredentialChange, signOut });
  const fido2Service = createFido2Service({ db, mfa: mfaService, publicUrl: config.publicUrl });
  const exchangeConfig = config.exchange ?? defaultExchangeConfig;
  const ownDevices = createOwnDevicesService({ db, sealer, publicUrl: config.publicUrl });
  scheduleRotation(jobs, db, sealer);
  const userImport = createUserImportService({
    db,
    quotas,
    jobs,
    log: app.log,
    files: database.kind === 'postgres' ? databaseFileStore(db) : await folderFileStore(db),
    concurrency: config.importConcurrency,
  });
  const brandService = createBrandService({ db });
  // Imports left without a job by a stopped process never finish. A shutdown waits for its own
  // (jobs.close below), then ends their workers: they fail as interrupted.
  await userImport.failInterruptedTasks();
  app.addHook('preClose', () => userImport.close());

  // ---- routes
  await oidcMountRoutes(app, {
    publicUrl: config.publicUrl,
    securityHeaders,
    callback: (request, response) => current.callback(request, response),
  });

  await samlWebRoutes(app, {
    db,
    keys: samlKeys,
    sso: createSamlSso({
      db,
      sealer,
      keys: samlKeys,
      publicUrl: config.publicUrl,
      issuer,
      tokenEndpoint,
      findAccount: accounts.findAccountById,
      departmentPaths: (companyId, accountId) => departmentPathsOf(db, companyId, accountId),
    }),
    slo: samlSlo,
    publicUrl: config.publicUrl,
    secureCookies,
  });
  // The Exchange agent: ActiveSync and Autodiscover for phones, on this same port.
  await agentRoutes(app, {
    agent: createAgentService({
      db,
      sealer,
      // A phone's password is checked with argon2id once; then for 15 minutes, or until it changes, from memory.
      verified: createVerifiedPasswords({ ttlMs: 15 * 60_000, max: 10_000 }),
      maxHoldSeconds: exchangeConfig.maxHoldSeconds,
    }),
    guard: outbound,
    maxHoldSeconds: exchangeConfig.maxHoldSeconds,
    publicUrl: config.publicUrl,
  });

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
    provider: () => current.provider,
    signIn,
    signInLinks,
    mfa: mfaService,
    fido2: fido2Service,
    ownDevices,
    consents,
    brand: brandService,
    quotas,
  });

  const bind = createBinder(app, {
    authenticate: sessionService.authenticate,
    consoleStandingIn: companies.findConsoleStanding,
    authenticateApp: decisions.authenticateApp,
    authenticateApiToken: createApiCallerAuthenticator({
      db,
      issuer,
      audience: managementApi.audience,
      jwks: () => current.jwks,
    }),
    validateResponses: options.validateResponses ?? false,
  });
  await app.register(fastifyMultipart, { limits: { fileSize: 1024 * 1024, files: 1, fields: 10 } });
  // The API takes JSON (and multipart for uploads) only.
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = String(body);
    if (!text.trim()) return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new AppError('request.malformed_json'), undefined);
    }
  });
  sessionRoutes(bind, sessionService);
  companyRoutes(bind, companyService);
  mailRoutes(bind, mailService);
  userRoutes(bind, userService);
  departmentRoutes(bind, departmentService);
  mfaRoutes(bind, mfaService);
  userImportRoutes(bind, userImport);
  safetyRoutes(bind, createSafetyService({ db }));
  appRoutes(bind, createAppService({ db, sealer, issuer, quotas }));
  samlRoutes(
    bind,
    createSamlConfigService({
      db,
      keys: samlKeys,
      publicUrl: config.publicUrl,
      outbound,
    }),
  );
  exchangeRoutes(
    bind,
    createExchangeSettingsService({ db, sealer, guard: outbound, publicUrl: config.publicUrl }),
    createDevicesService({ db, sealer }),
  );
  licenseRoutes(bind, licenses, quotas, { version, build, database: database.kind, startedAt: new Date() });
  installLogs(bind, {
    db,
    jobs,
    publicUrl: config.publicUrl,
    allowLocalTargets: config.syslogAllowLocalTargets ?? false,
  });
  brandRoutes(bind, brandService);
  brandStylesheetRoute(app, brandService);
  identitySourceRoutes(bind, identitySources.service, identitySources.tests, identitySources.sync);
  consoleRoleRoutes(bind, createConsoleRoleService({ db }));
  permissionRoutes(bind, {
    resources: createResourceService({ db, cache: permissionCache }),
    roles: createRoleService({ db, cache: permissionCache }),
    authorizations: createAuthorizationService({ db, cache: permissionCache }),
    decisions,
  });
  const radius = installRadius(bind, {
    database,
    sealer,
    jobs,
    log: app.log,
    config: config.radius,
    rejectDelayMs: options.radiusRejectDelayMs,
    accounts,
    signIn,
    mfa: mfaService,
  });
  installCa(app, bind, { db, sealer, publicUrl: config.publicUrl });
  await webRoutes(app, {
    db,
    calls: () => bind.bound,
    version,
    publicUrl: config.publicUrl,
    consoleDir: options.consoleDir,
  });

  jobs.every('maintenance.purge', 600, async () => {
    await Promise.all([
      purgeExpiredOidcPayloads(db),
      purgeIdleBudgets(db),
      purgeUnknownFailures(db),
      purgeScanStates(db),
      purgeSamlState(db),
    ]);
  });

  await app.ready();
  if (options.jobs?.run !== false) await jobs.start();
  const runningRadius = await radius.start();
  return {
    app,
    provider: () => current.provider,
    reloadKeys,
    jobs,
    radius: runningRadius,
    async close() {
      await jobs.close();
      await radius.close();
      mailer.close();
      await unlisten();
      await unlistenPermissions();
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
    signOutAccountEverywhere: signOut.signOutAccountEverywhere,
  };
}
