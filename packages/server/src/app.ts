import fastifyCompress from '@fastify/compress';
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import fastifyMultipart from '@fastify/multipart';
import type { CallAtPath, Language } from '@tessera/contract';
import Fastify, { type FastifyInstance } from 'fastify';
import { inject } from 'light-my-request';
import type Provider from 'oidc-provider';
import { type Config, defaultCompanyQuotas } from './config.ts';
import type { DatabaseHandle } from './db/database.ts';
import { createBinder } from './http/bind.ts';
import { installErrorHandling, sendError } from './http/envelope.ts';
import { createSealer } from './lib/crypto.ts';
import { AppError } from './lib/errors.ts';
import { pickLanguage } from './lib/i18n.ts';
import { purgeIdleBudgets } from './lib/rate-windows.ts';
import { createAccountsRepo } from './modules/account/account.repo.ts';
import {
  API_TOKEN_TTL,
  createApiCallerAuthenticator,
  managementApiAudience,
} from './modules/app/api-caller.ts';
import { countApps } from './modules/app/app.repo.ts';
import { appRoutes } from './modules/app/app.routes.ts';
import { createAppService } from './modules/app/app.service.ts';
import {
  appAccessById,
  appRefusalForClient,
  companyOfClient,
  logAppSignIn,
} from './modules/app/app-access.ts';
import { findClientMetadata } from './modules/app/app-clients.ts';
import { myAppsPortalRoutes } from './modules/app/my-apps.portal.routes.ts';
import { caPublicRoutes, caRoutes } from './modules/ca/ca.routes.ts';
import { createCaService } from './modules/ca/ca.service.ts';
import { createCertificatesService } from './modules/ca/certificates.service.ts';
import { createCompaniesRepo } from './modules/company/company.repo.ts';
import { companyRoutes } from './modules/company/company.routes.ts';
import { createCompanyService } from './modules/company/company.service.ts';
import { departmentPathsOf } from './modules/department/department.repo.ts';
import { departmentRoutes } from './modules/department/department.routes.ts';
import { createDepartmentService } from './modules/department/department.service.ts';
import { licenseRoutes } from './modules/license/license.routes.ts';
import { createLicenseService } from './modules/license/license.service.ts';
import { BUILT_IN_LICENSE_PUBLIC_KEY, parseLicensePublicKey } from './modules/license/license-file.ts';
import { createQuotaService } from './modules/license/quota.service.ts';
import { createCredentialNotices } from './modules/mail/credential-notices.ts';
import { mailRoutes } from './modules/mail/mail.routes.ts';
import { createMailService } from './modules/mail/mail.service.ts';
import { createMailer } from './modules/mail/mailer.ts';
import { createSignInLinksRepo } from './modules/mail/sign-in-links.repo.ts';
import { fido2PortalRoutes } from './modules/mfa/fido2.portal.routes.ts';
import { createFido2Service } from './modules/mfa/fido2.service.ts';
import { accountMfaSection, mfaPortalRoutes } from './modules/mfa/mfa.portal.routes.ts';
import { mfaRoutes } from './modules/mfa/mfa.routes.ts';
import { createMfaService } from './modules/mfa/mfa.service.ts';
import { createOidcAdapter, purgeExpiredOidcPayloads } from './modules/oidc/adapter.ts';
import { createClientThrottle } from './modules/oidc/client-throttle.ts';
import { interactionRoutes } from './modules/oidc/interaction.routes.ts';
import { ensureSigningKeys, KEYS_CHANNEL, loadJwks } from './modules/oidc/keys.ts';
import { createOidcProvider, OIDC_MOUNT } from './modules/oidc/provider.ts';
import { createSignInSteps } from './modules/oidc/sign-in-steps.ts';
import { portalClient, portalClientMetadata, portalRoutes } from './modules/portal/portal.routes.ts';
import { signInLinkRoutes } from './modules/portal/sign-in-link.routes.ts';
import { purgeExpiredChallenges } from './modules/radius/radius.repo.ts';
import { radiusRoutes } from './modules/radius/radius.routes.ts';
import { createRadiusService } from './modules/radius/radius.service.ts';
import { createRadiusAuthenticator } from './modules/radius/radius-auth.ts';
import { createRadiusServer } from './modules/radius/radius-server.ts';
import { safetyRoutes } from './modules/safety/safety.routes.ts';
import { createSafetyService } from './modules/safety/safety.service.ts';
import { consoleClientId, consoleClientMetadata, consoleClients } from './modules/session/console-clients.ts';
import { createSessionsRepo } from './modules/session/session.repo.ts';
import { sessionRoutes } from './modules/session/session.routes.ts';
import { createSessionService, type TokenEndpoint } from './modules/session/session.service.ts';
import { createDeviceCookies } from './modules/signin/device-cookie.ts';
import { createSignInService, type SignInPolicy } from './modules/signin/signin.service.ts';
import { purgeUnknownFailures } from './modules/signin/signin-throttle.ts';
import { webRoutes } from './modules/system/web.routes.ts';
import { userRoutes } from './modules/user/user.routes.ts';
import { createUserService } from './modules/user/user.service.ts';
import { userImportRoutes } from './modules/user-import/import.routes.ts';
import { createUserImportService } from './modules/user-import/import.service.ts';
import { build, version } from './version.ts';

declare module 'fastify' {
  interface FastifyRequest {
    lang: Language;
  }
}

export interface AppOptions {
  config: Pick<Config, 'publicUrl' | 'session' | 'logLevel'> &
    Partial<Pick<Config, 'licensePublicKey' | 'mail' | 'trustedProxies' | 'companyQuotas' | 'radius'>>;
  database: DatabaseHandle;
  masterKey: Buffer;
  /** Checks every response against its contract schema (tests). */
  validateResponses?: boolean;
  signInPolicy?: Partial<SignInPolicy>;
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
  /** The RADIUS server when it is on: its UDP port; reloading its clients and writing its counters now (they also happen by themselves). */
  radius: { port: number; reload(): Promise<void>; flush(): Promise<void> } | null;
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
    logger: { level: config.logLevel },
    bodyLimit: 1024 * 1024,
    // Only then are X-Forwarded-For/-Proto read: request.ip is the client's address everywhere
    // (budgets, logs, the provider below), and a client cannot name its own address.
    trustProxy: trustProxyOf(config.trustedProxies),
  });
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
  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith('/api/'))
      return sendError(request, reply, new AppError('request.route_not_found'));
    return reply.status(404).type('text/plain; charset=utf-8').send('Not found');
  });

  // ---- repositories and services
  const accounts = createAccountsRepo(db);
  const companies = createCompaniesRepo(db);
  const sessions = createSessionsRepo(db);
  const signIn = createSignInService({ db, accounts, policy: options.signInPolicy });
  const clients = consoleClients(config.publicUrl, sealer);

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
  const Adapter = createOidcAdapter(db, async (clientId) => {
    await clientThrottle.check(clientId);
    return ownClients.get(clientId) ?? findClientMetadata(db, sealer, clientId);
  });
  const appAccess = (app: { appId: string }, accountId: string) => appAccessById(db, app.appId, accountId);
  const cookieKeys = [sealer.derive('oidc-cookies').toString('base64url')];
  const secureCookies = config.publicUrl.startsWith('https://');
  const managementApi = { audience: managementApiAudience(config.publicUrl), tokenTtl: API_TOKEN_TTL };
  const buildProvider = async () => {
    const jwks = await loadJwks(db, sealer);
    const provider = createOidcProvider({
      issuer,
      adapter: Adapter,
      jwks,
      managementApi,
      cookieKeys,
      clients: [],
      findAccount: accounts.findAccountById,
      secureCookies,
      appAccess,
      departmentPaths: (companyId, accountId) => departmentPathsOf(db, companyId, accountId),
      appRefused: ({ app, ...event }) =>
        logAppSignIn(db, { ...event, companyId: app.companyId, userAgent: null }),
      appSignedIn: ({ app, ...event }) =>
        logAppSignIn(db, { ...event, companyId: app.companyId, cause: null }),
    });
    clientThrottle.watch(provider, (error) =>
      app.log.warn({ err: error }, 'counting a client authentication failed'),
    );
    return { provider, callback: provider.callback(), jwks };
  };
  let current = await buildProvider();
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
  const companyService = createCompanyService({ db, companies, quotas });
  const mailer = createMailer(config.mail, app.log);
  const signInLinks = createSignInLinksRepo(db);
  const mailService = createMailService({ db, mailer, links: signInLinks, publicUrl: config.publicUrl });
  const notifyCredentialChange = createCredentialNotices({
    db,
    mailer,
    publicUrl: config.publicUrl,
    log: app.log,
  });
  const userService = createUserService({ db, quotas, notifyCredentialChange });
  const departmentService = createDepartmentService({ db });
  const mfaService = createMfaService({ db, sealer, notifyCredentialChange });
  const fido2Service = createFido2Service({ db, mfa: mfaService, publicUrl: config.publicUrl });
  const userImport = createUserImportService({ db, quotas, log: app.log });
  // Imports left running by a stopped process never finish; a shutdown waits for (or fails) its own.
  await userImport.failInterruptedTasks();
  app.addHook('preClose', () => userImport.close());

  // ---- routes
  await app.register(async (scope) => {
    // oidc-provider reads the raw request body itself.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    const handler = async (
      request: import('fastify').FastifyRequest,
      reply: import('fastify').FastifyReply,
    ) => {
      reply.hijack();
      // As Express does for mounted apps: the provider derives its mount path from originalUrl.
      const raw = request.raw as typeof request.raw & { originalUrl?: string };
      // The provider (Koa, with proxy on) reads the client's address and the scheme from these:
      // they are set to what this server decided, never passed on from the client.
      raw.headers['x-forwarded-for'] = request.ip;
      raw.headers['x-forwarded-proto'] = new URL(config.publicUrl).protocol.slice(0, -1);
      delete raw.headers['x-forwarded-host'];
      raw.originalUrl = raw.url;
      raw.url = raw.url?.slice(OIDC_MOUNT.length) || '/';
      await current.callback(request.raw, reply.raw);
    };
    scope.all(OIDC_MOUNT, handler);
    scope.all(`${OIDC_MOUNT}/*`, handler);
  });

  await app.register(async (scope) => {
    await scope.register(fastifyFormbody, { bodyLimit: 16 * 1024 });
    const portal = portalRoutes(scope, {
      db,
      sealer,
      accounts,
      sessions,
      tokenEndpoint,
      issuer,
      publicUrl: config.publicUrl,
      lifetimes: config.session,
      mfaSection: accountMfaSection({ mfa: mfaService, sealer }),
    });
    mfaPortalRoutes(scope, { mfa: mfaService, sealer, signedIn: portal.signedIn });
    myAppsPortalRoutes(scope, {
      db,
      sealer,
      issuer,
      signedIn: portal.signedIn,
      startSignIn: portal.startSignIn,
    });
    fido2PortalRoutes(scope, { mfa: mfaService, fido2: fido2Service, sealer, signedIn: portal.signedIn });
    signInLinkRoutes(scope, {
      db,
      sealer,
      links: signInLinks,
      signIn,
      startSignIn: portal.startSignIn,
      secureCookies,
    });
    interactionRoutes(scope, {
      provider: () => current.provider,
      signIn,
      sealer,
      accounts,
      devices: createDeviceCookies({ db, sealer, secure: secureCookies }),
      steps: createSignInSteps({ db, mfa: mfaService, fido2: fido2Service }),
      secureCookies,
      passkey: fido2Service,
      appRefusal: (input) => appRefusalForClient(db, input),
      clientCompany: (clientId) => companyOfClient(db, clientId),
      clientAccessDenied: (clientId, account) =>
        clientId === consoleClientId('admin') && !account.is_platform_admin,
    });
  });

  const bind = createBinder(app, {
    authenticate: sessionService.authenticate,
    adminRoleIn: companies.findAdminRole,
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
  licenseRoutes(bind, licenses, quotas, { version, build, database: database.kind, startedAt: new Date() });
  // ---- RADIUS, certificate authorities
  const radiusServer =
    config.radius?.port == null
      ? undefined
      : createRadiusServer({
          database,
          sealer,
          log: app.log,
          host: config.radius.host,
          port: config.radius.port,
          rejectDelayMs: options.radiusRejectDelayMs,
          authenticator: createRadiusAuthenticator({ db, accounts, signIn, mfa: mfaService }),
        });
  let radiusPort: number | null = null;
  radiusRoutes(bind, createRadiusService({ db, sealer, port: () => radiusPort }));
  const caService = createCaService({ db, sealer, publicUrl: config.publicUrl });
  caRoutes(bind, caService, createCertificatesService({ db, cas: caService, publicUrl: config.publicUrl }));
  caPublicRoutes(app, caService);
  await webRoutes(app, { db, calls: () => bind.bound, version, publicUrl: config.publicUrl });

  const purgeTimer = setInterval(() => {
    Promise.all([
      purgeExpiredOidcPayloads(db),
      purgeIdleBudgets(db),
      purgeUnknownFailures(db),
      purgeExpiredChallenges(db),
    ]).catch((error) => app.log.warn({ err: error }, 'purging expired grants and budgets failed'));
  }, 10 * 60_000);
  purgeTimer.unref();

  await app.ready();
  if (radiusServer) {
    try {
      radiusPort = await radiusServer.start();
    } catch (error) {
      await radiusServer.close();
      throw new Error(
        `the RADIUS server cannot listen on udp ${config.radius?.host}:${config.radius?.port} (${(error as Error).message}); set TESSERA_RADIUS_PORT`,
      );
    }
  }
  return {
    app,
    provider: () => current.provider,
    reloadKeys,
    radius:
      radiusServer && radiusPort !== null
        ? { port: radiusPort, reload: radiusServer.reload, flush: radiusServer.flush }
        : null,
    async close() {
      clearInterval(purgeTimer);
      await radiusServer?.close();
      mailer.close();
      await unlisten();
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
  };
}
