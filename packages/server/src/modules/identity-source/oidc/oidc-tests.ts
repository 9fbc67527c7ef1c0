import { type identitySource as calls, interpolate, type Language, serverPhrases } from '@tessera/contract';
import type { z } from 'zod';
import { translateError } from '../../../lib/i18n.ts';
import type { OutboundPolicy } from '../../../lib/outbound-address.ts';
import type { IdentitySourceService } from '../identity-source.service.ts';
import { SourceFailure } from '../source-failure.ts';
import { readUpstreamKeys, upstreamConfiguration } from './oidc-upstream.ts';

type TestInput = z.output<typeof calls.testOidcSource.request>;

/**
 * "Test" of the OpenID Connect screen: the issuer's discovery document (its issuer must be the
 * one typed) and its signing keys, read as a sign-in would read them (the outbound rule
 * applies). Counted in the company's connection tests.
 */
export function createOidcTests(deps: {
  sources: Pick<IdentitySourceService, 'spendTest'>;
  outbound: OutboundPolicy;
}) {
  async function testSource(companyId: string, lang: Language, input: TestInput) {
    await deps.sources.spendTest(companyId);
    try {
      // Discovery needs no client credentials: a placeholder client stands in.
      const config = await upstreamConfiguration(
        { issuer: input.issuer, clientId: 'tessera-test', clientAuth: 'client_secret_basic' },
        { clientSecret: 'unused' },
        deps.outbound,
      );
      const keys = await readUpstreamKeys(config, deps.outbound);
      const metadata = config.serverMetadata();
      const details = {
        issuer: metadata.issuer,
        authorizationEndpoint: metadata.authorization_endpoint ?? '',
        tokenEndpoint: metadata.token_endpoint ?? '',
        userinfoEndpoint: metadata.userinfo_endpoint ?? null,
        endSessionEndpoint: metadata.end_session_endpoint ?? null,
        backchannelLogoutSupported: metadata.backchannel_logout_supported === true,
        keys: keys.length,
        algorithms: metadata.id_token_signing_alg_values_supported ?? [],
      };
      const message = interpolate(serverPhrases[lang].sourceTests.upstreamOk, {
        issuer: details.issuer,
        keys: String(details.keys),
      });
      return { ok: true, reason: null, message, details };
    } catch (error) {
      if (!(error instanceof SourceFailure)) throw error;
      return {
        ok: false,
        reason: error.reason,
        message: translateError(lang, error.reason, error.params),
        details: null,
      };
    }
  }
  return { testSource };
}

export type OidcTests = ReturnType<typeof createOidcTests>;
