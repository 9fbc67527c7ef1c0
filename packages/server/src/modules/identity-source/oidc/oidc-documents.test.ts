import * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOutboundPolicy } from '../../../lib/outbound-address.ts';
import { type RogueUpstream, startRogueUpstream } from '../../../test/rogue-upstream.ts';
import { SourceFailure } from '../source-failure.ts';
import { createUpstreamDocuments, documentLifetime, lifetimeOf } from './oidc-documents.ts';
import { upstreamConfiguration } from './oidc-upstream.ts';

/**
 * The OpenID Connect source keeps its provider's discovery document and JWKS (issue 33): read
 * over HTTP from a provider on 127.0.0.1, through the outbound-address rule, with a clock the
 * test moves instead of waiting.
 */

let provider: RogueUpstream;
let now = 0;
let documents: ReturnType<typeof createUpstreamDocuments>;
const outbound = createOutboundPolicy(['127.0.0.1/32']);

beforeAll(async () => {
  provider = await startRogueUpstream();
});
afterAll(async () => {
  await provider?.close();
});
beforeEach(() => {
  now = 1_000_000_000;
  documents = createUpstreamDocuments({ now: () => now });
  provider.reads = { discovery: 0, jwks: 0 };
  provider.failing = false;
  provider.cacheControl = 'public, max-age=600';
});

const configure = (policy = outbound) =>
  upstreamConfiguration(
    { issuer: provider.issuer, clientId: provider.clientId, clientAuth: 'client_secret_basic' },
    { clientSecret: 'rogue-secret' },
    policy,
    { documents, key: `source-1 ${provider.issuer}` },
  );
const keptKids = (config: client.Configuration) =>
  (client.getJwksCache(config)?.jwks.keys ?? []).map((key) => key.kid);

describe("an OpenID provider's documents, kept per source", () => {
  it('are read once within the lifetime their Cache-Control gives, and again after it', async () => {
    await configure();
    await configure();
    expect(provider.reads).toEqual({ discovery: 1, jwks: 1 });
    now += 599_000;
    expect(keptKids(await configure())).toEqual(['rogue-1']);
    expect(provider.reads).toEqual({ discovery: 1, jwks: 1 });
    now += 2_000;
    await configure();
    expect(provider.reads).toEqual({ discovery: 2, jwks: 2 });
  });

  it('hold a max-age between a minute and a day, an hour without one', () => {
    expect(lifetimeOf('public, max-age=5')).toBe(documentLifetime.minSeconds);
    expect(lifetimeOf('max-age=31536000, immutable')).toBe(documentLifetime.maxSeconds);
    expect(lifetimeOf('no-store')).toBe(documentLifetime.minSeconds);
    expect(lifetimeOf(null)).toBe(3600);
    expect(lifetimeOf('private, max-age=900')).toBe(900);
  });

  it('keep the last good documents when the provider cannot be read, and ask again a minute later', async () => {
    await configure();
    provider.failing = true;
    now += 601_000;
    const config = await configure();
    expect(config.serverMetadata().issuer).toBe(provider.issuer);
    expect(keptKids(config)).toEqual(['rogue-1']);
    expect(provider.reads).toEqual({ discovery: 2, jwks: 2 });
    await configure();
    expect(provider.reads, 'not asked again at once').toEqual({ discovery: 2, jwks: 2 });
    provider.failing = false;
    now += 61_000;
    await configure();
    expect(provider.reads).toEqual({ discovery: 3, jwks: 3 });
  });

  it('fail when never read and the provider is down; a refused address is never reached', async () => {
    provider.failing = true;
    await expect(configure()).rejects.toMatchObject({ reason: 'upstream.discovery_failed' });
    provider.failing = false;
    const refused = await configure(createOutboundPolicy(['10.0.0.0/8'])).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SourceFailure);
    expect((refused as SourceFailure).reason).not.toBe('upstream.discovery_failed');
    expect(provider.reads.discovery).toBe(1);
  });

  it('read the JWKS again at once for a key it lacks, at most every 30 seconds', async () => {
    await configure();
    const read = () =>
      documents.keys(
        `source-1 ${provider.issuer}`,
        async () => {
          const response = await fetch(`${provider.issuer}/jwks`);
          return { value: (await response.json()) as { keys: [] }, cacheControl: null };
        },
        true,
      );
    await provider.rotate();
    expect(((await read()).keys as { kid: string }[]).map((key) => key.kid)).toEqual(['rogue-2']);
    await provider.rotate();
    now += 10_000;
    expect(
      ((await read()).keys as { kid: string }[]).map((key) => key.kid),
      'too soon',
    ).toEqual(['rogue-2']);
    now += 21_000;
    expect(((await read()).keys as { kid: string }[]).map((key) => key.kid)).toEqual(['rogue-3']);
  });
});
