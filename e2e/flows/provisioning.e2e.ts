import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { startScimPeer } from '../../packages/server/src/test/scim-peer.ts';
import { consolePage } from '../support/console.page.ts';
import { startServer } from '../support/server.process.ts';
import type { Suite } from '../support/suite.ts';

const SHOTS = 'provisioning/';
const PEOPLE = [
  { username: 'amy.prov', email: 'amy@wiki.example', name: 'Amy Lin' },
  { username: 'ben.prov', email: 'ben@wiki.example', name: 'Ben Okafor' },
  { username: 'cai.prov', email: 'cai@wiki.example', name: 'Cai Wen' },
] as const;

/**
 * Provisioning by SCIM (issue 31) in the console, against a real SCIM service provider (SCIMMY)
 * on 127.0.0.1: the administrator saves an application's SCIM target, tests the connection,
 * previews and runs; the people given the application are created there, and one whose access
 * ends is deactivated. Screenshots of the tab in both languages at 1280 and 900 px under
 * e2e/artifacts/provisioning/. Its own server (the peer listens on loopback).
 */
export function provisioningFlows(s: Suite) {
  test('Provisioning: an application’s SCIM target saved, tested, previewed and run against SCIMMY, in English and Chinese', async () => {
    const peer = await startScimPeer();
    const dataDir = await mkdtemp(join(tmpdir(), 'tessera-e2e-provisioning-'));
    const server = await startServer(
      s.adminPassword,
      { TESSERA_OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8' },
      { dataDir, logFile: s.serverLog },
    );
    const { context, page } = await s.openPage();
    const ui = consolePage(page, server.baseUrl);
    try {
      await ui.signIn('/dev/', s.adminPassword, /create-company/);
      await page.getByLabel('Company name').fill('Provisioning Co');
      await page.getByRole('button', { name: 'Create company' }).click();
      await page.waitForURL(`${server.baseUrl}/dev/dashboard`);
      const companyId = await ui.companyId();
      const ids: string[] = [];
      for (const person of PEOPLE)
        ids.push(
          await ui.createUser(person.username, 'Sunny-Day-42', { email: person.email, name: person.name }),
        );
      const created = await ui.api<{ app: { appId: string } }>(
        '/api/v1/manage/app/create',
        { name: 'Team Wiki' },
        companyId,
      );
      const appId = created.data.app.appId;
      const setUp = [
        [
          '/api/v1/manage/app/update',
          { appId, redirectUris: ['https://wiki.example/cb'], defaultAccess: 'prohibit_all' },
        ],
        ['/api/v1/manage/app/status', { appId, status: 'opened' }],
        ['/api/v1/manage/app/assignment/add', { appId, userIds: ids }],
      ] as const;
      for (const [path, body] of setUp) assert.equal((await ui.api(path, body, companyId)).code, 200, path);

      await page.goto(`${server.baseUrl}/dev/application/detail?appId=${appId}&tab=provisioning`);
      const form = page.getByTestId('provisioning-form');
      await form.getByLabel('SCIM base URL').fill(peer.baseUrl);
      await form.getByLabel('Bearer token').fill(peer.token);
      await form.getByLabel('Department (enterprise extension)').check();
      await form.getByRole('button', { name: 'Save' }).click();
      await form.getByText('Set: stored encrypted and never shown').waitFor();
      await form.getByRole('button', { name: 'Test connection' }).click();
      await page.getByTestId('provisioning-test-result').getByText('Connected').waitFor();

      const runs = page.getByTestId('provisioning-runs');
      await runs.getByRole('button', { name: 'Run now' }).click();
      await runs.getByText('Succeeded').waitFor();
      assert.deepEqual(
        [...peer.users.values()].map((user) => user.userName).sort(),
        PEOPLE.map((person) => person.username),
      );
      // Ben's access ends: the preview says he will be deactivated; a second run does it.
      const removed = await ui.api(
        '/api/v1/manage/app/assignment/del',
        { appId, userIds: [ids[1]] },
        companyId,
      );
      assert.equal(removed.code, 200);
      await runs.getByRole('button', { name: 'Run now' }).click();
      await runs.getByText('deactivated 1').waitFor();
      const ben = [...peer.users.values()].find((user) => user.userName === PEOPLE[1].username);
      assert.equal(ben?.active, false);
      // Amy's address changes: what the preview shows in the screenshots.
      const changed = await ui.api(
        '/api/v1/manage/user/update',
        { userId: ids[0], email: 'amy.l@wiki.example' },
        companyId,
      );
      assert.equal(changed.code, 200);

      await screenshots(page, ui, server.baseUrl);
    } finally {
      await context.close();
      await server.stop();
      await peer.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
}

async function screenshots(page: Page, ui: ReturnType<typeof consolePage>, baseUrl: string) {
  const words = {
    en: { test: 'Test connection', preview: 'Preview', connected: 'Connected', update: 'Update' },
    zh: { test: '测试连接', preview: '预览', connected: '连接成功', update: '更新' },
  } as const;
  for (const lang of ['zh', 'en'] as const) {
    await page.context().addCookies([{ name: 'lang', value: lang, url: baseUrl }]);
    await page.reload();
    const form = page.getByTestId('provisioning-form');
    await form.getByRole('button', { name: words[lang].test }).click();
    await page.getByTestId('provisioning-test-result').getByText(words[lang].connected).waitFor();
    const preview = page.getByTestId('provisioning-preview');
    await preview.getByRole('button', { name: words[lang].preview }).click();
    await preview.getByTestId('provisioning-preview-list').getByText(words[lang].update).waitFor();
    await ui.expectNoRawPhraseKeys();
    await ui.screenshot(`${SHOTS}provisioning.${lang}`);
  }
}
