/**
 * The vendor's licence command.
 *   npm run license -- keygen --out <folder>
 *       makes the vendor key pair (vendor-private.pem, vendor-public.pem); installations trust
 *       the public key through TESSERA_LICENSE_PUBLIC_KEY (or the built-in key).
 *   npm run license -- issue --key <vendor-private.pem> --code <application code> --customer <name>
 *       --expires <YYYY-MM-DD> [--users N] [--apps N] [--modules mfa,radius,...] [--out <file>]
 *       signs a licence for one installation (its application code is on the licence screen).
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type LicenseModule, type LicensePayload, licenseModules } from '@tessera/contract';
import { issueLicenseFile } from '../modules/license/license-file.ts';

const fail = (message: string): never => {
  console.error(message);
  process.exit(2);
};

async function keygen(out: string | undefined) {
  if (!out) fail('keygen needs --out <folder>');
  const folder = out as string;
  await mkdir(folder, { recursive: true });
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  await writeFile(join(folder, 'vendor-private.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }), {
    mode: 0o600,
    flag: 'wx',
  });
  await writeFile(join(folder, 'vendor-public.pem'), publicKey.export({ type: 'spki', format: 'pem' }), {
    flag: 'wx',
  });
  console.log(
    `Wrote ${join(folder, 'vendor-private.pem')} (keep it secret) and ${join(folder, 'vendor-public.pem')}.`,
  );
}

async function issue(values: Record<string, string | undefined>) {
  for (const required of ['key', 'code', 'customer', 'expires']) {
    if (!values[required]) fail(`issue needs --${required}`);
  }
  const expires = new Date(`${values.expires}T23:59:59Z`);
  if (Number.isNaN(expires.getTime())) fail('--expires must be a date as YYYY-MM-DD');
  const count = (name: string) => {
    const raw = values[name];
    if (raw === undefined) return undefined;
    if (!/^\d+$/.test(raw)) fail(`--${name} must be a whole number`);
    return Number(raw);
  };
  const extra = (values.modules ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  for (const module of extra) {
    if (!licenseModules.includes(module as LicenseModule) || module === 'user' || module === 'app') {
      fail(`--modules takes: ${licenseModules.filter((m) => m !== 'user' && m !== 'app').join(', ')}`);
    }
  }
  const expiresAt = expires.toISOString();
  const payload: LicensePayload = {
    format: 1,
    licenseId: randomUUID(),
    applicationCode: values.code as string,
    customer: values.customer as string,
    issuedAt: new Date().toISOString(),
    modules: [
      { module: 'user', total: count('users') ?? 100, expiresAt },
      { module: 'app', total: count('apps') ?? 10, expiresAt },
      ...extra.map((module) => ({ module: module as LicenseModule, expiresAt })),
    ],
  };
  const file = issueLicenseFile(payload, await readFile(values.key as string, 'utf8'));
  if (values.out) {
    await writeFile(values.out, file);
    console.log(`Licence ${payload.licenseId} for ${payload.customer} written to ${values.out}.`);
  } else {
    process.stdout.write(file);
  }
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    out: { type: 'string' },
    key: { type: 'string' },
    code: { type: 'string' },
    customer: { type: 'string' },
    expires: { type: 'string' },
    users: { type: 'string' },
    apps: { type: 'string' },
    modules: { type: 'string' },
  },
});

const command = positionals[0];
if (command === 'keygen') await keygen(values.out);
else if (command === 'issue') await issue(values);
else
  fail(
    'Usage: npm run license -- keygen --out <folder> | issue --key <pem> --code <code> --customer <name> --expires <YYYY-MM-DD> [--users N] [--apps N] [--modules a,b] [--out <file>]',
  );
