import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import type { Suite } from '../support/suite.ts';

/** A JWT (an ID token): three base64url parts. */
const JWT = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/**
 * Issue 12: the server's log of the whole run (every request, level info) holds none of the
 * secrets the run used. Registered after every other flow, so it sees all they saw.
 */
export function logSecretFlows(s: Suite) {
  test('the server log of the whole run holds none of the secrets the run used', async () => {
    // Never assert.match on the log: a failure would print the whole log, secrets and all.
    const log = await readFile(s.serverLog, 'utf8');
    assert.ok(log.includes('"msg":"incoming request"'), 'the log records every request');

    const secrets = [...new Set(s.secrets)];
    // The flows saw what matters: ID tokens (logout addresses, the relying party), codes, tokens.
    assert.ok(
      secrets.some((secret) => JWT.test(secret)),
      'an ID token was seen',
    );
    assert.ok(secrets.length >= 20, `the flows collected secrets (${secrets.length})`);
    const tooShort = secrets.filter((secret) => secret.length < 8).length;
    assert.equal(tooShort, 0, 'every secret is long enough for a search to mean something');

    const found = secrets.filter(
      (secret) => log.includes(secret) || log.includes(encodeURIComponent(secret)),
    );
    // Named by their first characters only: the report itself must not repeat them.
    assert.deepEqual(
      found.map((secret) => `${secret.slice(0, 4)}… (${secret.length} characters)`),
      [],
      'secrets found in the server log',
    );
    assert.ok(log.includes('?code=[redacted]'), 'the log records the console callbacks, redacted');
  });
}
