import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { onFirstUse } from './on-first-use.ts';

describe('a service loaded on first use', () => {
  it('loads at the first call, once, and answers every call', async () => {
    let loads = 0;
    const service = onFirstUse(async () => {
      loads += 1;
      return { double: async (n: number) => n * 2, name: async () => 'loaded' };
    });
    expect(loads).toBe(0);
    const [a, b] = await Promise.all([service.double(2), service.double(5)]);
    expect([a, b, await service.name()]).toEqual([4, 10, 'loaded']);
    expect(loads).toBe(1);
  });

  it('tries the load again after it failed', async () => {
    let attempts = 0;
    const service = onFirstUse(async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('not yet');
      return { ping: async () => 'pong' };
    });
    await expect(service.ping()).rejects.toThrow('not yet');
    await expect(service.ping()).resolves.toBe('pong');
    expect(attempts).toBe(2);
  });

  it('is no thenable, so that an async function may return it', async () => {
    const service = onFirstUse(async () => ({ ping: async () => 'pong' }));
    const returned = await (async () => service)();
    expect(await returned.ping()).toBe('pong');
  });
});

/**
 * The certificate authority and the UKEY keys load their ASN.1 and SM2 libraries when first used:
 * building the application does not load them (each start would pay about 0.2 s of CPU).
 */
it('building the application loads no certificate library', async () => {
  const serverDir = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  const script = `
    const { createRequire } = await import('node:module');
    await import('./src/app.ts');
    const cache = Object.keys(createRequire(import.meta.url).cache);
    const pki = cache.filter((file) => /node_modules\\/(@peculiar|sm-crypto|jsbn)\\//.test(file));
    console.log(JSON.stringify({ modules: cache.length, pki }));`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: serverDir, env: { ...process.env, NODE_OPTIONS: '' } },
  );
  const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { modules: number; pki: string[] };
  expect(result.modules).toBeGreaterThan(10);
  expect(result.pki).toEqual([]);
}, 60_000);
