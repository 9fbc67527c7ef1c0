/**
 * `npm run ukey -- <command>`: the Tessera UKEY helper. It stands in for a key vendor's
 * middleware so that UKEY and soft-lock factors can be used without hardware; the protocol is
 * what a vendor plugin implements: sign the UTF-8 bytes of the challenge the sign-in page shows
 * (RSA-PSS with SHA-256 and a 32-byte salt, ECDSA with the curve's hash, or SM2 with SM3 and the
 * default id 1234567812345678; DER signatures) and paste the base64 signature.
 *
 *   keygen --algorithm rsa|ecc|sm2 [--strength 2048|3072|4096|P-256|P-384|P-521|SMP256] --out FILE
 *       a key pair in a software container: the private key goes to FILE (mode 0600); prints
 *       the public key and the container id (the soft lock id) to register
 *   show --key FILE [--password P]
 *       the public key, container id and certificate (if any) of a key file
 *   sign --key FILE [--password P] [CHALLENGE]
 *       the signature of CHALLENGE (or of the first line of standard input), base64
 *
 * FILE is PEM (PKCS#8, PKCS#1, SEC1, encrypted PKCS#8) or the PKCS#12 file the company's CA
 * issued with its one-time password.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { keyAlgorithms } from '@tessera/contract';
import { PkiError } from '../lib/pki/keys.ts';
import { newKey, openKeyFile } from '../lib/pki/signing-helper.ts';

const USAGE = `Usage:
  npm run ukey -- keygen --algorithm rsa|ecc|sm2 [--strength S] --out FILE
  npm run ukey -- show --key FILE [--password P]
  npm run ukey -- sign --key FILE [--password P] [CHALLENGE]`;

async function readChallenge(given: string | undefined) {
  if (given) return given;
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text.split(/\r?\n/)[0]?.trim() ?? '';
}

async function main() {
  const [command, ...rest] = process.argv.slice(2);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      algorithm: { type: 'string' },
      strength: { type: 'string' },
      out: { type: 'string' },
      key: { type: 'string' },
      password: { type: 'string', default: '' },
    },
  });
  if (command === 'keygen') {
    const algorithm = keyAlgorithms.find((a) => a === values.algorithm);
    if (!algorithm || !values.out) throw new UsageError();
    const key = await newKey(algorithm, values.strength);
    await writeFile(values.out, key.privateKeyPem, { mode: 0o600, flag: 'wx' });
    console.log(`Key: ${key.info.algorithm.toUpperCase()} ${key.info.strength}, written to ${values.out}`);
    console.log(`Container id (soft lock id): ${key.containerId}`);
    process.stdout.write(key.publicKeyPem);
    return;
  }
  if (command !== 'show' && command !== 'sign') throw new UsageError();
  if (!values.key) throw new UsageError();
  const key = await openKeyFile(await readFile(values.key), values.password);
  if (command === 'show') {
    console.log(`Key: ${key.info.algorithm.toUpperCase()} ${key.info.strength}`);
    console.log(`Container id (soft lock id): ${key.containerId}`);
    process.stdout.write(key.publicKeyPem);
    if (key.certificatePem) process.stdout.write(key.certificatePem);
    return;
  }
  const challenge = await readChallenge(positionals[0]);
  if (!challenge) throw new UsageError();
  console.log(key.sign(challenge));
}

class UsageError extends Error {}

main().catch((error) => {
  if (error instanceof UsageError) console.error(USAGE);
  else if (error instanceof PkiError)
    console.error(
      error.problem === 'password'
        ? 'The key file needs its password (--password).'
        : `The key file cannot be used (${error.problem}).`,
    );
  else if ((error as NodeJS.ErrnoException).code === 'EEXIST')
    console.error('The output file exists already; choose another name.');
  else console.error(error instanceof Error ? error.message : error);
  process.exit(error instanceof UsageError ? 2 : 1);
});
