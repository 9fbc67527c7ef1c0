import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import {
  type ExchangeStandIn,
  startExchangeStandIn,
} from '../../packages/server/src/test/exchange-stand-in.ts';
import { activeSync, iPhone, syncBody } from '../../packages/server/src/test/phone.ts';
import { signInToPortal } from '../support/console.page.ts';
import type { Suite } from '../support/suite.ts';

const PHONE_USER = 'petra.phone';
const PHONE_USER_PASSWORD = 'Petra-pass-2026';
const SERVICE = { username: 'svc-activesync', password: 'Svc-e2e-Pass-7' };

/**
 * Issue 18: the Exchange agent set up in the console, a phone registered with the token,
 * approved in the device list, its password seen once in the user centre, then syncing
 * through the agent to an Exchange ActiveSync stand-in; the screens in both languages.
 */
export function exchangeFlows(s: Suite) {
  const { openPage, devSession, devFlow } = s;
  let exchange: ExchangeStandIn;
  before(async () => {
    exchange = await startExchangeStandIn({ service: SERVICE, mailboxes: [PHONE_USER], pingHoldMs: 1000 });
    s.secrets.push(SERVICE.password, PHONE_USER_PASSWORD);
  });
  after(() => exchange?.close());

  devFlow(
    'a phone registers, is approved, gets its password in the user centre and syncs through the agent',
    async () => {
      assert.ok(s.server);
      const baseUrl = s.server.baseUrl;
      const { page, ui } = await devSession();
      await page.goto(`${baseUrl}/dev/safety-management/exchange`);
      const form = page.getByTestId('exchange-settings');
      await form.getByTestId('exchange-enabled').click();
      await form.getByLabel('Exchange address').fill(exchange.url);
      await form.getByLabel('Service account', { exact: true }).fill(SERVICE.username);
      await form.getByLabel('Service account password').fill(SERVICE.password);
      await page.getByRole('button', { name: 'Save' }).click();
      await ui.expectMessage('Safety settings saved');
      await form.getByText('Stored; leave empty to keep it').waitFor();
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('exchange.en');

      await page.goto(`${baseUrl}/dev/safety-management/device`);
      await page.getByRole('button', { name: 'Show' }).click();
      const token = (await page.getByTestId('registration-token').innerText()).trim();
      assert.match(token, /^[A-Z2-9]{4}(-[A-Z2-9]{4}){3}$/);
      s.secrets.push(token);
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('device-safety.en');

      await ui.createUser(PHONE_USER, PHONE_USER_PASSWORD);
      const first = await activeSync(baseUrl, iPhone(), {
        user: PHONE_USER,
        password: token,
        body: syncBody(),
      });
      assert.equal(first.status, 401, 'a new phone waits for approval');

      await page.goto(`${baseUrl}/dev/safety-management/deviceManage`);
      const row = page.getByTestId('device-list').getByRole('row').filter({ hasText: 'petra.phone' });
      await row.getByText('To be activated').waitFor();
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('device-manage.en');
      await row.getByRole('button', { name: 'Approve' }).click();
      await ui.expectMessage('Approved: its person sees the password in the user centre');
      await row.getByText('Active', { exact: true }).waitFor();

      const { context, page: portal } = await openPage();
      let password: string | null;
      try {
        await signInToPortal(portal, baseUrl, PHONE_USER, PHONE_USER_PASSWORD);
        await portal.waitForURL(`${baseUrl}/portal/account`);
        await portal.locator('#devices').getByRole('button', { name: 'Show the new password' }).click();
        password = await portal.locator('code[data-device-password]').getAttribute('data-device-password');
        assert.ok(password, 'the user centre shows the device password once');
        s.secrets.push(password);
      } finally {
        await context.close();
      }
      const synced = await activeSync(baseUrl, iPhone(), { user: PHONE_USER, password, body: syncBody() });
      assert.equal(synced.status, 200);
      assert.equal(exchange.requests.at(-1)?.user, PHONE_USER);

      await row.getByRole('link').first().click();
      await page.getByTestId('device-events').getByText('Let through').waitFor();
      await page.getByTestId('device-detail').getByText('Online', { exact: true }).waitFor();
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('device-detail.en');
    },
  );

  devFlow('the device screens in Chinese', async () => {
    assert.ok(s.server);
    const baseUrl = s.server.baseUrl;
    const { context, page, ui } = await devSession();
    // The same company and session, in Chinese (the language cookie comes first, spec §9).
    const language = (value: 'en' | 'zh') => context.addCookies([{ name: 'lang', value, url: baseUrl }]);
    await language('zh');
    try {
      for (const [path, ready, name] of [
        ['exchange', '服务账号密码', 'exchange'],
        ['device', '设备注册令牌', 'device-safety'],
        ['deviceManage', PHONE_USER, 'device-manage'],
      ] as const) {
        await page.goto(`${baseUrl}/dev/safety-management/${path}`);
        await page.getByText(ready).first().waitFor();
        await ui.expectNoRawPhraseKeys();
        await ui.screenshot(`${name}.zh`);
      }
      await page.getByTestId('device-list').getByRole('link').first().click();
      await page.getByTestId('device-events').getByText('放行').first().waitFor();
      await ui.expectNoRawPhraseKeys();
      await ui.screenshot('device-detail.zh');
    } finally {
      await language('en');
      await page.goto(`${baseUrl}/dev/dashboard`);
    }
  });
}
