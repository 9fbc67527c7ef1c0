import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundPolicy, networkToRequest, parseOutboundNetworks } from './outbound-address.ts';

let base = '';
const receiver = createServer((_request, response) => response.end('ok'));
beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => receiver.close(resolve)));

describe('connections to addresses administrators typed', () => {
  const closed = createOutboundPolicy([]);
  const all = createOutboundPolicy('all');

  it('go to public addresses only, by default', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '100.64.0.1',
      '169.254.169.254',
      '100.100.100.200',
      '0.0.0.0',
      '::1',
      '::',
      'fd00::1',
      'fe80::1',
      // IPv4 written as IPv6: mapped (both notations) and NAT64.
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:192.168.1.5',
      '64:ff9b::a9fe:a9fe',
      'not-an-address',
    ])
      expect(closed.allows(address), address).toBe(false);
    for (const address of ['8.8.8.8', '203.0.113.9', '2606:4700::1111', '::ffff:8.8.8.8'])
      expect(closed.allows(address), address).toBe(true);
  });

  it('reach the networks the operator names; `all` opens private networks but never link-local or metadata', () => {
    const named = createOutboundPolicy(['10.0.0.0/8', '127.0.0.1']);
    expect(named.allows('10.9.9.9')).toBe(true);
    expect(named.allows('127.0.0.1')).toBe(true);
    expect(named.allows('127.0.0.2')).toBe(false);
    expect(named.allows('192.168.1.1')).toBe(false);
    for (const address of ['10.1.2.3', '192.168.1.1', '127.0.0.1', 'fd12::1'])
      expect(all.allows(address), address).toBe(true);
    for (const address of [
      '169.254.169.254',
      'fe80::1',
      '100.100.100.200',
      'fd00:ec2::254',
      '64:ff9b::a9fe:a9fe',
    ])
      expect(all.allows(address), address).toBe(false);
    // A network named explicitly is the operator's decision, whatever it holds.
    expect(createOutboundPolicy(['169.254.10.0/24']).allows('169.254.10.5')).toBe(true);
  });

  it('are refused at connection time, for names and for addresses written as such', async () => {
    await expect(closed.fetch(`${base}/`, { method: 'POST' })).rejects.toThrow(/does not connect/);
    await expect(closed.fetch(`http://localhost:${new URL(base).port}/`)).rejects.toThrow();
    expect(await closed.refusesUrl(`http://localhost:${new URL(base).port}/`)).toBe(true);
    expect(await closed.refusesUrl('http://[::ffff:169.254.169.254]/')).toBe(true);
    const open = createOutboundPolicy(['127.0.0.1/32']);
    expect((await open.fetch(`${base}/`)).status).toBe(200);
    expect(await open.refusesUrl(base)).toBe(false);
  });

  it('are configured by one variable', () => {
    expect(parseOutboundNetworks(undefined)).toEqual([]);
    expect(parseOutboundNetworks(' ALL ')).toBe('all');
    expect(parseOutboundNetworks('10.0.0.0/8, 192.168.1.7, fd00::/8')).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      'fd00::/8',
    ]);
    for (const bad of ['10.0.0.0/33', 'intranet', '10.0.0.0/8/1', '::1/129'])
      expect(() => parseOutboundNetworks(bad), bad).toThrow(/not a network/);
  });
});

describe('what a refusal tells the company administrator to ask for (issue 35)', () => {
  it('names the private range or the loopback address, and adding it opens exactly that address', () => {
    const cases: [string, string][] = [
      ['10.1.2.3', '10.0.0.0/8'],
      ['192.168.1.10', '192.168.0.0/16'],
      ['172.20.0.1', '172.16.0.0/12'],
      ['::ffff:192.168.0.1', '192.168.0.0/16'],
      ['167772161', '10.0.0.0/8'],
      ['fd00::1', 'fc00::/7'],
      ['127.0.0.1', '127.0.0.1/32'],
    ];
    for (const [address, network] of cases) {
      expect({ address, network: networkToRequest(address) }).toEqual({ address, network });
      expect(createOutboundPolicy([]).allows(address)).toBe(false);
      expect({
        address,
        allowed: createOutboundPolicy(parseOutboundNetworks(network)).allows(address),
      }).toEqual({
        address,
        allowed: true,
      });
    }
  });

  it('names nothing for metadata, link-local and unusable addresses', () => {
    for (const address of [
      '169.254.169.254',
      '100.100.100.200',
      '169.254.1.1',
      'fe80::1',
      '0.0.0.0',
      '224.0.0.1',
    ])
      expect({ address, network: networkToRequest(address) }).toEqual({ address, network: undefined });
  });
});
