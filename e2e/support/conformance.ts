import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import type { ConformanceRp, Library, Outcome } from './conformance-rp.ts';
import { artifactsDir } from './console.page.ts';

/**
 * The OIDC conformance suite's bookkeeping: each test names the OpenID Foundation profile it
 * follows (Basic OP, Config OP, Form Post OP, RP-Initiated / Back-Channel / Front-Channel
 * Logout OP, and Tessera's own: consent, authentication context, catalogue apps), and the results
 * of a run are written to e2e/artifacts/oidc-conformance.md (the table in the README).
 */

export type Profile =
  | 'Basic OP'
  | 'Config OP'
  | 'Form Post OP'
  | 'RP-Initiated Logout OP'
  | 'Back-Channel Logout OP'
  | 'Front-Channel Logout OP'
  | 'Consent'
  | 'Authentication context'
  | 'Catalogue app';

const results: { profile: Profile; name: string; libraries: string; passed: boolean }[] = [];

/** A conformance test: recorded in the results table as passed or failed. */
export function conformance(
  profile: Profile,
  name: string,
  body: () => Promise<void>,
  libraries = 'openid-client, oauth4webapi',
) {
  test(`${profile}: ${name}`, async () => {
    try {
      await body();
      results.push({ profile, name, libraries, passed: true });
    } catch (error) {
      results.push({ profile, name, libraries, passed: false });
      throw error;
    }
  });
}

/** Writes the results table of this run (markdown). */
export async function writeConformanceResults() {
  if (!results.length) return;
  await mkdir(artifactsDir, { recursive: true });
  const lines = [
    '| profile | test | driven by | result |',
    '| --- | --- | --- | --- |',
    ...results.map((r) => `| ${r.profile} | ${r.name} | ${r.libraries} | ${r.passed ? 'pass' : 'FAIL'} |`),
  ];
  await writeFile(`${artifactsDir}oidc-conformance.md`, `${lines.join('\n')}\n`);
}

export const LIBRARY_NAMES: Record<Library, string> = { oc: 'openid-client', o4: 'oauth4webapi' };

/** Waits for the relying party's result page and answers its outcome (never a failed one). */
export async function outcomeOn(page: Page, rp: ConformanceRp, expectError = false): Promise<Outcome> {
  await page.waitForURL((url) => url.toString().startsWith(`${rp.base}/cb/`));
  const text = await page.locator('#outcome').innerText();
  const shown = JSON.parse(text) as Outcome;
  const outcome = rp.outcomes.get(shown.state) ?? shown;
  if (!expectError)
    assert.equal(outcome.error, undefined, `${LIBRARY_NAMES[outcome.library]}: ${outcome.error}`);
  return outcome;
}

/** Fills the sign-in page (waits for it first). */
export async function signInOnPage(page: Page, username: string, password: string) {
  await page.locator('#identifier').waitFor();
  await page.locator('#identifier').fill(username);
  await page.locator('#password').fill(password);
  await page.locator('button.primary[type=submit]').click();
}

/** Allows on the consent page. */
export async function allowConsent(page: Page) {
  await page.locator('button[name="decision"][value="allow"]').click();
}
