import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSealer, loadMasterKey, randomToken } from './crypto.ts';

describe('secrets at rest', () => {
  const sealer = createSealer(Buffer.alloc(32, 7));

  it('seals and opens a secret for its purpose only', () => {
    const sealed = sealer.seal('ldap-bind-password', 'ldap');
    expect(sealed).not.toContain('ldap-bind-password');
    expect(sealer.open(sealed, 'ldap')).toBe('ldap-bind-password');
    expect(() => sealer.open(sealed, 'totp')).toThrow();
    expect(sealer.seal('same', 'x')).not.toBe(sealer.seal('same', 'x'));
  });

  it('detects tampering', () => {
    const sealed = sealer.seal('secret', 'p');
    const [v, iv, body] = sealed.split('.');
    const flipped = Buffer.from(body!, 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(() => sealer.open(`${v}.${iv}.${flipped.toString('base64url')}`, 'p')).toThrow();
  });

  it('refuses to open with another master key', () => {
    const other = createSealer(Buffer.alloc(32, 8));
    expect(() => other.open(sealer.seal('secret', 'p'), 'p')).toThrow();
  });

  it('makes tokens of at least 128 bits', () => {
    expect(Buffer.from(randomToken(), 'base64url').length).toBeGreaterThanOrEqual(16);
  });

  it('creates a key file on first start and reuses it afterwards', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tessera-key-'));
    const first = await loadMasterKey(undefined, dir);
    const second = await loadMasterKey(undefined, dir);
    expect(first.length).toBe(32);
    expect(second.equals(first)).toBe(true);
    expect((await stat(join(dir, 'master.key'))).mode & 0o777).toBe(0o600);
    expect((await readFile(join(dir, 'master.key'), 'utf8')).trim()).toBe(first.toString('base64'));
  });

  it('takes the configured key in hex or base64', async () => {
    expect((await loadMasterKey('ab'.repeat(32), '/nonexistent')).equals(Buffer.alloc(32, 0xab))).toBe(true);
    const b64 = Buffer.alloc(32, 3).toString('base64');
    expect((await loadMasterKey(b64, '/nonexistent')).equals(Buffer.alloc(32, 3))).toBe(true);
  });
});
