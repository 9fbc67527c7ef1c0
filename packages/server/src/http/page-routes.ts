import fastifyFormbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import type Provider from 'oidc-provider';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import type { Sealer } from '../lib/crypto.ts';
import type { OutboundPolicy } from '../lib/outbound-address.ts';
import type { createAccountsRepo } from '../modules/account/account.repo.ts';
import { appRefusalForClient, createClientCompanies } from '../modules/app/app-access.ts';
import { myAppsPortalRoutes } from '../modules/app/my-apps.portal.routes.ts';
import type { createBrandService } from '../modules/brand/brand.service.ts';
import type { createCompaniesRepo } from '../modules/company/company.repo.ts';
import { accountDevicesSection, exchangePortalRoutes } from '../modules/exchange/exchange.portal.routes.ts';
import type { createOwnDevicesService } from '../modules/exchange/own-devices.service.ts';
import { findEnabledSources } from '../modules/identity-source/identity-source.repo.ts';
import { createUpstreamDocuments } from '../modules/identity-source/oidc/oidc-documents.ts';
import { defaultProviderUrls } from '../modules/identity-source/scan/providers.ts';
import { scanBindingRoutes } from '../modules/identity-source/scan/scan-binding.routes.ts';
import { SCAN_TYPES, scanSignInRoutes } from '../modules/identity-source/scan/scan-signin.routes.ts';
import {
  createUpstreamKinds,
  upstreamKindRoutes,
} from '../modules/identity-source/upstream/upstream-kinds.ts';
import {
  createUpstreamOffer,
  upstreamSignInRoutes,
} from '../modules/identity-source/upstream/upstream-signin.ts';
import type { createQuotaService } from '../modules/license/quota.service.ts';
import type { createSignInLinksRepo } from '../modules/mail/sign-in-links.repo.ts';
import { fido2PortalRoutes } from '../modules/mfa/fido2.portal.routes.ts';
import type { createFido2Service } from '../modules/mfa/fido2.service.ts';
import { accountMfaSection, mfaPortalRoutes } from '../modules/mfa/mfa.portal.routes.ts';
import type { createMfaService } from '../modules/mfa/mfa.service.ts';
import { signaturePortalRoutes } from '../modules/mfa/signature.portal.routes.ts';
import type { SignatureFactors } from '../modules/mfa/signature-factors.service.ts';
import { createCodeSignIn } from '../modules/oidc/code-sign-in.ts';
import type { createConsentStore } from '../modules/oidc/consent.ts';
import { interactionRoutes } from '../modules/oidc/interaction.routes.ts';
import { createSentCodeFactor, type SentCodeDeps } from '../modules/oidc/sign-in-code-factor.ts';
import { accountWithFacts } from '../modules/oidc/sign-in-facts.ts';
import { createSignInSteps } from '../modules/oidc/sign-in-steps.ts';
import type { AccountSignOut } from '../modules/oidc/sign-out.ts';
import { passwordResetRoutes } from '../modules/password-reset/password-reset.routes.ts';
import type { PasswordReset } from '../modules/password-reset/password-reset.service.ts';
import { PORTAL_CLIENT_ID, portalRoutes } from '../modules/portal/portal.routes.ts';
import { profileRoutes } from '../modules/portal/profile.routes.ts';
import type { OwnProfileService } from '../modules/portal/profile.service.ts';
import { signInLinkRoutes } from '../modules/portal/sign-in-link.routes.ts';
import { consoleClientId } from '../modules/session/console-clients.ts';
import type { createSessionsRepo } from '../modules/session/session.repo.ts';
import type { TokenEndpoint } from '../modules/session/session.service.ts';
import { createDeviceCookies } from '../modules/signin/device-cookie.ts';
import type { createSignInService } from '../modules/signin/signin.service.ts';

/**
 * The server-rendered pages: the user centre (portal) with its sections, My apps, second factors
 * and passkeys, sign-in links, the sign-in interaction of the provider, and scan sign-in and
 * binding. One scope, which reads HTML form bodies.
 */
export async function pageRoutes(
  app: FastifyInstance,
  deps: {
    db: Db;
    sealer: Sealer;
    config: Pick<Config, 'publicUrl' | 'session'> & Partial<Pick<Config, 'scanProviders'>>;
    accounts: ReturnType<typeof createAccountsRepo>;
    sessions: ReturnType<typeof createSessionsRepo>;
    companies: ReturnType<typeof createCompaniesRepo>;
    tokenEndpoint: TokenEndpoint;
    issuer: string;
    secureCookies: boolean;
    provider(): Provider;
    signIn: ReturnType<typeof createSignInService>;
    signInLinks: ReturnType<typeof createSignInLinksRepo>;
    mfa: ReturnType<typeof createMfaService>;
    fido2: ReturnType<typeof createFido2Service>;
    signatures: SignatureFactors;
    ownDevices: ReturnType<typeof createOwnDevicesService>;
    consents: ReturnType<typeof createConsentStore>;
    brand: ReturnType<typeof createBrandService>;
    quotas: ReturnType<typeof createQuotaService>;
    passwordReset: PasswordReset;
    /** The person's own details in the user centre. */
    ownProfile: OwnProfileService;
    /** Codes by email and SMS: the login methods email_code and sms_code, the MFA kinds email and sms. */
    oneTimeCodes?: SentCodeDeps;
    /** Where connections to addresses companies typed may go (upstream identity providers). */
    outbound: OutboundPolicy;
    /** Ends a person's sessions (an upstream provider's back-channel logout). */
    signOut: AccountSignOut['signOutAccountEverywhere'];
  },
) {
  const { db, sealer, companies } = deps;
  const companyOfClient = createClientCompanies(db);
  /** The company a sign-in is for: its application's, or the one its user centre address names. */
  const signInCompany = async (clientId: string, companyCode?: string) =>
    clientId === PORTAL_CLIENT_ID
      ? companyCode
        ? ((await deps.brand.pageBrandOfCode(companyCode))?.companyId ?? null)
        : null
      : companyOfClient(clientId);
  const codes = deps.oneTimeCodes;
  const upstreamKindDeps = {
    db,
    sealer,
    publicUrl: deps.config.publicUrl,
    outbound: deps.outbound,
    signOut: deps.signOut,
    log: app.log,
    oidcDocuments: createUpstreamDocuments(),
  };
  const upstreamDeps = {
    db,
    quotas: deps.quotas,
    accounts: deps.accounts,
    signIn: deps.signIn,
    clientCompany: (clientId: string) => companyOfClient(clientId),
    kinds: createUpstreamKinds(upstreamKindDeps),
    sealer,
  };
  const upstreamOffer = createUpstreamOffer(upstreamDeps);
  const sentCodes = codes && createSentCodeFactor(codes);
  await app.register(async (scope) => {
    await scope.register(fastifyFormbody, { bodyLimit: 16 * 1024 });
    // The third-party accounts section needs the user centre's session, which portalRoutes provides.
    let bindingsSection: ReturnType<typeof scanBindingRoutes>['section'] | undefined;
    const portal = portalRoutes(scope, {
      db,
      sealer,
      accounts: deps.accounts,
      sessions: deps.sessions,
      tokenEndpoint: deps.tokenEndpoint,
      issuer: deps.issuer,
      publicUrl: deps.config.publicUrl,
      lifetimes: deps.config.session,
      mfaSection: accountMfaSection({ mfa: deps.mfa, sealer }),
      devicesSection: accountDevicesSection({ devices: deps.ownDevices, sealer }),
      bindingsSection: (account, sessionId) =>
        bindingsSection ? bindingsSection(account, sessionId) : Promise.reject(new Error('not ready')),
      brandOfCode: (code) => deps.brand.pageBrandOfCode(code),
      savedBrandOf: (companyId) => deps.brand.pageBrand(companyId),
    });
    exchangePortalRoutes(scope, { devices: deps.ownDevices, sealer, signedIn: portal.signedIn });
    mfaPortalRoutes(scope, { mfa: deps.mfa, sealer, signedIn: portal.signedIn });
    profileRoutes(scope, {
      profile: deps.ownProfile,
      sealer,
      signedIn: portal.signedIn,
      startSignIn: portal.startSignIn,
    });
    myAppsPortalRoutes(scope, {
      db,
      sealer,
      issuer: deps.issuer,
      signedIn: portal.signedIn,
      startSignIn: portal.startSignIn,
    });
    fido2PortalRoutes(scope, { mfa: deps.mfa, fido2: deps.fido2, sealer, signedIn: portal.signedIn });
    signaturePortalRoutes(scope, {
      mfa: deps.mfa,
      signatures: deps.signatures,
      sealer,
      signedIn: portal.signedIn,
    });
    signInLinkRoutes(scope, {
      db,
      sealer,
      links: deps.signInLinks,
      signIn: deps.signIn,
      startSignIn: portal.startSignIn,
      secureCookies: deps.secureCookies,
    });
    const interaction = interactionRoutes(scope, {
      provider: deps.provider,
      signIn: deps.signIn,
      sealer,
      accounts: deps.accounts,
      accountWithFacts: (accountId) => accountWithFacts(db, accountId),
      devices: createDeviceCookies({ db, sealer, secure: deps.secureCookies }),
      steps: createSignInSteps({
        db,
        mfa: deps.mfa,
        fido2: deps.fido2,
        signatures: deps.signatures,
        sentCodes,
      }),
      codeSignIn: codes && createCodeSignIn({ db, ...codes, log: app.log, accounts: deps.accounts }),
      sentCodes: sentCodes && { ...sentCodes, mfa: deps.mfa },
      secureCookies: deps.secureCookies,
      passkey: deps.fido2,
      appRefusal: (input) => appRefusalForClient(db, input),
      consents: deps.consents,
      companyName: async (companyId) => (await companies.findCompanyById(db, companyId))?.name,
      clientCompany: (clientId) => companyOfClient(clientId),
      brandOfClient: async (clientId, companyCode) => {
        // The user centre belongs to no company: its sign-in wears the brand its address named.
        if (clientId === PORTAL_CLIENT_ID)
          return companyCode ? deps.brand.pageBrandOfCode(companyCode) : null;
        const companyId = await companyOfClient(clientId);
        return companyId ? deps.brand.pageBrand(companyId) : null;
      },
      clientAccessDenied: (clientId, account) =>
        clientId === consoleClientId('admin') && !account.is_platform_admin,
      scanSources: async (clientId) => {
        const companyId = await companyOfClient(clientId);
        if (!companyId) return [];
        const sources = await findEnabledSources(db, companyId, SCAN_TYPES);
        return sources.map((source) => ({ sourceId: source.id, type: source.type, name: source.name }));
      },
      upstream: upstreamOffer,
      forgotPasswordOffered: async (clientId, companyCode) =>
        deps.passwordReset.offered(await signInCompany(clientId, companyCode)),
    });
    passwordResetRoutes(scope, { reset: deps.passwordReset, sealer, signInCompany }, interaction);
    const scanDeps = {
      db,
      sealer,
      publicUrl: deps.config.publicUrl,
      urls: deps.config.scanProviders ?? defaultProviderUrls,
      quotas: deps.quotas,
      accounts: deps.accounts,
      signIn: deps.signIn,
      clientCompany: (clientId: string) => companyOfClient(clientId),
    };
    const scan = scanSignInRoutes(scope, scanDeps, interaction);
    const binding = scanBindingRoutes(scope, { ...scanDeps, signedIn: portal.signedIn });
    bindingsSection = binding.section;
    const upstreamSignIn = upstreamSignInRoutes(
      scope,
      { ...upstreamDeps, offer: upstreamOffer },
      interaction,
    );
    upstreamKindRoutes(
      scope,
      { ...upstreamKindDeps, offer: upstreamOffer, signIn: upstreamSignIn },
      interaction,
    );
    scope.get<{ Params: { sourceId: string }; Querystring: Record<string, string | undefined> }>(
      '/portal/scan/:sourceId/callback',
      (request, reply) => scan.callback(request, reply, binding.finishBinding),
    );
  });
}
