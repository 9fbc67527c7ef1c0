import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { withDirectory } from '../modules/identity-source/ldap/ldap-client.ts';
import { fetchMetadata } from '../modules/saml/saml-fetch.ts';
import {
  assertTargetAllowed,
  createSyslogAddressPolicy,
  targetAddress,
} from '../modules/syslog/syslog-target.ts';
import { createOutboundPolicy, parseOutboundNetworks } from './outbound-address.ts';

/**
 * Issue 28: every spelling of a loopback, link-local or cloud metadata address (IPv4 as inet_aton
 * reads it: integer, octal, hex, short; IPv6 short or full, upper or lower case, in brackets, with
 * a zone id; IPv4 carried in IPv6: mapped, compatible, translated, NAT64, 6to4, dotted or hex; DNS
 * names that resolve to any of them) is refused by every connection that goes to an address a
 * company administrator typed, with the installation's default settings: LDAP identity sources,
 * SAML metadata fetch, the Exchange address (saving it, and the agent's connections), OIDC
 * back-channel logout, and syslog. Receivers on the loopback addresses count what reaches them:
 * nothing may.
 */

/** Names of the test's own DNS zone, answered with the address (in the spelling) they stand for. */
const zone = vi.hoisted(() => new Map<string, string>());
vi.mock('node:dns', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:dns')>();
  const lookup = ((host: string, options: object, callback: (...args: unknown[]) => void) => {
    const answer = zone.get(host);
    if (answer === undefined) return actual.lookup(host, options, callback as never);
    const entry: LookupAddress = { address: answer, family: answer.includes(':') ? 6 : 4 };
    return (options as { all?: boolean }).all
      ? callback(null, [entry])
      : callback(null, entry.address, entry.family);
  }) as typeof actual.lookup;
  return { ...actual, default: { ...(actual as { default?: object }).default, lookup }, lookup };
});

const byte = fc.integer({ min: 0, max: 255 });
/** IPv4 addresses that must never be reached: loopback, link-local, the metadata services. */
const refusedIpv4 = fc.oneof(
  fc.tuple(fc.constant(127), byte, byte, byte),
  fc.tuple(fc.constant(169), fc.constant(254), byte, byte),
  fc.constantFrom([169, 254, 169, 254], [100, 100, 100, 200], [168, 63, 129, 16], [169, 254, 170, 2]),
);

/** A number in decimal, octal or hex, as inet_aton reads it. */
const radix = (value: number) =>
  fc
    .constantFrom('dec', 'oct', 'hex', 'HEX')
    .map((kind) =>
      kind === 'dec'
        ? String(value)
        : kind === 'oct'
          ? `0${value.toString(8)}`
          : kind === 'hex'
            ? `0x${value.toString(16)}`
            : `0X${value.toString(16).toUpperCase()}`,
    );

/** IPv4 in 1 to 4 parts (the last part fills the remaining bytes), each in any radix. */
const ipv4Spelling = (bytes: readonly number[]) =>
  fc.integer({ min: 1, max: 4 }).chain((parts) => {
    const leading = bytes.slice(0, parts - 1);
    const last = bytes.slice(parts - 1).reduce((sum, value) => sum * 256 + value, 0);
    return fc.tuple(...leading.map(radix), radix(last)).map((spelled) => spelled.join('.'));
  });

const hex16 = (high: number, low: number) => (high * 256 + low).toString(16);

/** IPv4 carried in IPv6, in every prefix and notation. */
const carriedSpelling = (bytes: readonly number[]) => {
  const [a = 0, b = 0, c = 0, d = 0] = bytes;
  return fc
    .tuple(
      fc.constantFrom(
        '::ffff:',
        '0:0:0:0:0:ffff:',
        '0000::ffff:',
        '::ffff:0:',
        '::',
        '0:0:0:0:0:0:',
        '64:ff9b::',
      ),
      fc.constantFrom(`${a}.${b}.${c}.${d}`, `${hex16(a, b)}:${hex16(c, d)}`),
    )
    .map(([prefix, tail]) => prefix + tail)
    .chain((address) => fc.constantFrom(address, `2002:${hex16(a, b)}:${hex16(c, d)}::1`));
};

/** IPv6 loopback, link-local and metadata addresses, short or full. */
const nativeIpv6 = fc.oneof(
  fc.constantFrom('::1', '0:0:0:0:0:0:0:1', '0::1', '::0:1', '0000:0000:0000:0000:0000:0000:0000:0001'),
  fc.constantFrom('fd00:ec2::254', 'fd00:ec2:0:0:0:0:0:254'),
  fc
    .tuple(fc.integer({ min: 0xfe80, max: 0xfebf }), fc.integer({ min: 0, max: 0xffff }))
    .map(([head, tail]) => `${head.toString(16)}::${tail.toString(16)}`),
);

const ipv6Spelling = fc
  .oneof(refusedIpv4.chain(carriedSpelling), nativeIpv6)
  .chain((address) => fc.constantFrom(address, address.toUpperCase()));

let named = 0;
/** A name of the test zone that resolves to the address (as a resolver would give it). */
const nameFor = (address: string) => {
  const name = `target-${++named}.spelling.test`;
  zone.set(name, address);
  return name;
};

/** What a company administrator types as a host, in any of the spellings. */
const host = fc.oneof(
  refusedIpv4.chain(ipv4Spelling).map((address) => ({ host: address, url: address })),
  ipv6Spelling.map((address) => ({ host: address, url: `[${address}]` })),
  ipv6Spelling.map((address) => ({ host: `[${address}]`, url: `[${address}]` })),
  // Zone ids: only a host field can carry one (a URL has no place for it).
  fc
    .tuple(nativeIpv6, fc.constantFrom('%eth0', '%lo', '%1'))
    .map(([address, id]) => ({ host: address + id, url: undefined })),
  fc
    .oneof(
      refusedIpv4.map((bytes) => bytes.join('.')),
      ipv6Spelling.filter((address) => !address.includes('%')),
    )
    .map((address) => {
      const name = nameFor(address);
      return { host: name, url: name };
    }),
  fc.constant({ host: 'localhost', url: 'localhost' }),
);

/** Loopback receivers on one port: TCP on 127.0.0.1 and ::1, UDP on 127.0.0.1; they count arrivals. */
let port = 0;
let arrivals = 0;
const servers: Server[] = [];
let udp: UdpSocket;
beforeAll(async () => {
  const first = createServer((socket) => {
    arrivals++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => first.listen(0, '127.0.0.1', resolve));
  port = (first.address() as { port: number }).port;
  servers.push(first);
  const v6 = createServer((socket) => {
    arrivals++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => {
    v6.once('error', () => resolve());
    v6.listen(port, '::1', resolve);
  });
  servers.push(v6);
  udp = createSocket('udp4');
  udp.on('message', () => arrivals++);
  await new Promise<void>((resolve) => udp.bind(port, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  await new Promise<void>((resolve) => udp.close(() => resolve()));
});

const reasonOf = (error: unknown) => (error as { reason?: string }).reason;
const causeCode = (error: unknown): string | undefined =>
  (error as { code?: string }).code ?? causeCode((error as { cause?: unknown }).cause ?? {});

describe('every spelling of a refused address, at every outbound connection (default settings)', () => {
  // The defaults: TESSERA_OUTBOUND_ALLOWED_NETWORKS unset, TESSERA_SYSLOG_ALLOW_LOCAL_TARGETS=false.
  const outbound = createOutboundPolicy(parseOutboundNetworks(undefined));
  const syslog = createSyslogAddressPolicy(false);
  const runs = { numRuns: 300 };

  it('syslog refuses the target at saving and at connection', async () => {
    await fc.assert(
      fc.asyncProperty(host, async ({ host: typed }) => {
        const saved = await assertTargetAllowed(syslog, typed).catch(reasonOf);
        const dialled = await targetAddress(syslog, typed).catch(causeCode);
        expect({ typed, saved, dialled }).toEqual({
          typed,
          saved: 'syslog.host_not_allowed',
          dialled: 'EADDRREFUSED',
        });
      }),
      runs,
    );
  });

  /** The two refusals: one names what to ask the platform administrator for, one is for addresses never reached. */
  const OUTBOUND_REFUSAL = /^outbound\.address_(refused|never)$/;

  it('an LDAP identity source refuses to connect', async () => {
    await fc.assert(
      fc.asyncProperty(
        host.filter((entry) => entry.url !== undefined),
        async ({ url }) => {
          const refused = await withDirectory(
            {
              url: `ldap://${url}:${port}`,
              startTls: false,
              verifyCertificate: true,
              caCertificate: null,
              bindDn: null,
              bindPassword: null,
            },
            async () => 'connected',
            { outbound, timeoutMs: 5_000 },
          ).catch(reasonOf);
          expect({ url, refused }).toEqual({ url, refused: expect.stringMatching(OUTBOUND_REFUSAL) });
        },
      ),
      runs,
    );
  });

  it('the SAML metadata fetch refuses to connect', async () => {
    await fc.assert(
      fc.asyncProperty(
        host.filter((entry) => entry.url !== undefined),
        async ({ url }) => {
          const refused = await fetchMetadata(`http://${url}:${port}/metadata`, outbound).catch(reasonOf);
          expect({ url, refused }).toEqual({ url, refused: expect.stringMatching(OUTBOUND_REFUSAL) });
        },
      ),
      runs,
    );
  });

  it('the Exchange address is refused at saving, and back-channel logout and the agent never connect', async () => {
    await fc.assert(
      fc.asyncProperty(
        host.filter((entry) => entry.url !== undefined),
        async ({ url }) => {
          const address = `http://${url}:${port}/`;
          // exchange-settings.service.ts refuses to save what refusesUrl names.
          expect({ address, refused: await outbound.refusesUrl(address) }).toEqual({
            address,
            refused: true,
          });
          // The provider's back-channel logout and the agent connect through the policy's lookup.
          const sent = await outbound.fetch(address, { method: 'POST' }).then(
            () => 'sent',
            (error) => causeCode(error) ?? String(error),
          );
          expect({ address, sent }).toEqual({ address, sent: 'EADDRREFUSED' });
        },
      ),
      runs,
    );
  });

  it('nothing reached the loopback receivers', () => {
    expect(arrivals).toBe(0);
  });
});
