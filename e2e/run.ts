/**
 * Browser tests of the console against a real server and Chromium (npm run test:e2e).
 * Starts the server on a free port with a fresh database and a vendor licence key made for the
 * run, runs each area's flows (e2e/flows) in order (later flows use the companies earlier ones
 * create) and always stops the server.
 *
 * Some flows only: node's `--test-name-pattern` (a regular expression on test names, given to
 * node before the file; Node 20 refuses it in NODE_OPTIONS). Keep the test that creates the first
 * company, which the later flows use, and the last test, e.g. for the SAML flows:
 *   bash scripts/with-chromium.sh bash scripts/with-slapd.sh bash scripts/with-radclient.sh \
 *     node --conditions=source --import tsx \
 *     --test-name-pattern='create a company|SAML|uncaught errors' e2e/run.ts
 * The first-week flows start their own server from an empty database, so they need no other:
 *   --test-name-pattern='first week|uncaught errors'
 * The CAS flow needs Apache httpd with mod_auth_cas too (without it, it is skipped):
 *   bash scripts/with-chromium.sh bash scripts/with-slapd.sh bash scripts/with-radclient.sh \
 *     bash scripts/with-apache-cas.sh node --conditions=source --import tsx \
 *     --test-name-pattern='create a company|CAS|uncaught errors' e2e/run.ts
 * The LDAP flow likewise needs Apache httpd with mod_authnz_ldap (bash scripts/with-apache-ldap.sh).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startProviderFixture } from '../packages/server/src/test/scan-providers.ts';
import { appFlows } from './flows/apps.e2e.ts';
import { casFlows } from './flows/cas.e2e.ts';
import { codeFlows } from './flows/codes.e2e.ts';
import { exchangeFlows } from './flows/exchange.e2e.ts';
import { firstWeekFlows } from './flows/first-week.e2e.ts';
import { identitySourceFlows } from './flows/identity-sources.e2e.ts';
import { ldapServerFlows } from './flows/ldap-server.e2e.ts';
import { logSecretFlows } from './flows/log-secrets.e2e.ts';
import { logFlows } from './flows/logs.e2e.ts';
import { oidcCatalogueFlows } from './flows/oidc-catalogue.e2e.ts';
import { oidcCoreFlows } from './flows/oidc-core.e2e.ts';
import { oidcLogoutFlows } from './flows/oidc-logout.e2e.ts';
import { orgFlows } from './flows/org.e2e.ts';
import { permissionFlows } from './flows/permissions.e2e.ts';
import { provisioningFlows } from './flows/provisioning.e2e.ts';
import { quotaFlows } from './flows/quotas.e2e.ts';
import { radiusCaFlows } from './flows/radius-ca.e2e.ts';
import { safetyFlows } from './flows/safety.e2e.ts';
import { samlFlows } from './flows/saml.e2e.ts';
import { samlRedirectFlows } from './flows/saml-redirects.e2e.ts';
import { screenFlows } from './flows/screens.e2e.ts';
import { shellFlows } from './flows/shell.e2e.ts';
import { smsFlows } from './flows/sms.e2e.ts';
import { ukeyFlows } from './flows/ukey.e2e.ts';
import { upstreamFlows } from './flows/upstream.e2e.ts';
import { launchChromium } from './support/browser.ts';
import { licenseVendor } from './support/license.vendor.ts';
import { oidcSuite } from './support/oidc-suite.ts';
import { freePort, startServer } from './support/server.process.ts';
import { createSuite } from './support/suite.ts';

describe('Tessera console in Chromium', { timeout: 1_500_000 }, () => {
  const s = createSuite();

  before(async () => {
    s.vendorDir = await mkdtemp(join(tmpdir(), 'tessera-e2e-vendor-'));
    s.serverLog = join(s.vendorDir, 'server.log');
    s.vendor = licenseVendor(s.vendorDir);
    const publicKey = await s.vendor.keygen();
    s.providers = await startProviderFixture();
    [s.server, s.browser] = await Promise.all([
      // The organisation flows import 200 users into one company: above the default quota. The
      // relying parties of the OIDC flows receive back-channel logout tokens on loopback.
      startServer(
        s.adminPassword,
        {
          TESSERA_LICENSE_PUBLIC_KEY: publicKey,
          TESSERA_COMPANY_USER_QUOTA: '1000',
          // The application flows of every area add their apps to the same first company.
          TESSERA_COMPANY_APP_QUOTA: '100',
          // The Exchange stand-in, the relying parties' logout receivers, SAML metadata and slapd
          // listen on the loopback address.
          TESSERA_OUTBOUND_ALLOWED_NETWORKS: '127.0.0.1/32',
          // The LDAP server, for the LDAP flow's Apache httpd (mod_authnz_ldap).
          TESSERA_LDAP_PORT: String(await freePort()),
          ...s.providers.env,
        },
        { logFile: s.serverLog },
      ),
      launchChromium(),
    ]);
  });

  after(async () => {
    await s.browser?.close().catch(() => {});
    await s.server?.stop();
    await s.providers?.close();
    await rm(s.vendorDir, { recursive: true, force: true });
  });

  shellFlows(s);
  quotaFlows(s);
  orgFlows(s);
  safetyFlows(s);
  codeFlows(s);
  smsFlows(s);
  provisioningFlows(s);
  radiusCaFlows(s);
  ukeyFlows(s);
  appFlows(s);
  exchangeFlows(s);
  logFlows(s);
  const oidc = oidcSuite(s);
  oidcCoreFlows(oidc);
  oidcCatalogueFlows(oidc);
  oidcLogoutFlows(oidc);
  oidc.finish();
  identitySourceFlows(s);
  permissionFlows(s);
  samlFlows(s);
  upstreamFlows(s);
  samlRedirectFlows(s);
  casFlows(s);
  ldapServerFlows(s);
  screenFlows(s);
  logSecretFlows(s);
  // An installation of its own, from an empty database (its own server).
  firstWeekFlows(s);

  test('no uncaught errors or console errors in the pages', () => {
    assert.deepEqual(s.pageErrors, []);
  });
});
