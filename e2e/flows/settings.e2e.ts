import assert from 'node:assert/strict';
import { fieldMessagesGone, motionSettled } from '../support/console.page.ts';
import { PNG, SECOND_NAME, type Suite } from '../support/suite.ts';

/** Company settings (name, key, logo, administrators), the licence and about screens. */
export function settingsFlows(s: Suite) {
  const { devSession, devFlow } = s;

  devFlow('company settings: rename, key, logo, administrators', async () => {
    assert.ok(s.server);
    const { page, ui } = await devSession();
    await page.getByRole('button', { name: 'Current company' }).click();
    await motionSettled(page);
    await page.getByRole('menu').last().getByRole('menuitem', { name: SECOND_NAME }).click();
    await page.waitForFunction(
      (name) => document.querySelector('[data-testid=current-company]')?.textContent === name,
      SECOND_NAME,
    );
    await page.goto(`${s.server.baseUrl}/dev/setting/basic-set`);
    const nameInput = page.getByLabel('Company name');
    await nameInput.waitFor();
    assert.equal(await nameInput.inputValue(), SECOND_NAME);
    await ui.expectTitle('Company settings - Tessera');

    const save = page.getByTestId('company-info').getByRole('button', { name: 'Save' });
    await nameInput.fill('   ');
    await save.click();
    await page.getByText('Please enter the company name').waitFor();
    await nameInput.fill('  Initech Renamed Worldwide  ');
    await fieldMessagesGone(page);
    await save.click();
    await ui.expectMessage('Company settings saved');
    assert.equal(await ui.currentCompany(), 'Initech Re…');
    assert.equal(await nameInput.inputValue(), 'Initech Renamed Worldwide');

    // The key: masked, revealed, regenerated after a confirmation.
    const key = page.getByTestId('company-key');
    assert.match(await key.innerText(), /^•+$/);
    await page.getByRole('button', { name: 'Show the key' }).click();
    const before = (await key.innerText()).trim();
    assert.match(before, /^[A-Za-z0-9_-]{20,}$/);
    s.secrets.push(before);
    await page.getByRole('button', { name: 'Regenerate' }).click();
    const confirm = page.getByRole('dialog').filter({ hasText: 'Regenerate the company key?' });
    await motionSettled(page);
    await confirm.getByRole('button', { name: 'Regenerate' }).click();
    // The new key itself is the outcome to wait for (a toast can come and go under load).
    await page.waitForFunction((old) => {
      const text = document.querySelector('[data-testid=company-key]')?.textContent?.trim();
      return text && text !== old && !text.startsWith('•');
    }, before);
    s.secrets.push((await key.innerText()).trim());

    // Logo: checked in the browser, then by the s.server (whose message is shown).
    const logoInput = page.locator('input[type=file]');
    await logoInput.setInputFiles({
      name: 'big.png',
      mimeType: 'image/png',
      buffer: Buffer.alloc(1024 * 1024 + 1),
    });
    await ui.expectMessage('The image is larger than 1 MiB');
    await logoInput.setInputFiles({
      name: 'fake.png',
      mimeType: 'image/png',
      buffer: Buffer.from('not a picture'),
    });
    await ui.expectMessage(/This file type is not allowed/);
    await logoInput.setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: PNG });
    await ui.expectMessage('Logo updated');
    await page.locator('header img').first().waitFor();

    // Administrators: the owner cannot be removed; add one (passwords must match), then remove.
    const table = page.getByTestId('administrators');
    await table.getByRole('cell', { name: 'admin', exact: true }).waitFor();
    assert.equal(await table.getByRole('button', { name: 'Remove' }).count(), 0);
    await page.getByRole('button', { name: 'Add administrator' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add administrator' });
    // A new person (the dialog starts with a person of the company, picked by search).
    await dialog.getByText('Create a new person', { exact: true }).click();
    await dialog.getByLabel('Username').fill('e2e.helper');
    await dialog.getByLabel('Email').fill('helper@example.com');
    s.secrets.push('Helper-pass-1');
    await dialog.getByLabel('Password', { exact: true }).fill('Helper-pass-1');
    await dialog.getByLabel('Confirm password').fill('Helper-pass-2');
    await dialog.getByRole('button', { name: 'Add administrator' }).click();
    await dialog.getByText('Entered Passwords Differ').waitFor();
    await dialog.getByLabel('Confirm password').fill('Helper-pass-1');
    await dialog.getByRole('button', { name: 'Add administrator' }).click();
    await ui.expectMessage('e2e.helper was added');
    // Closed for good: while it closes, the dialog hands the focus back to its button, where an
    // Enter pressed in the search box below would open it again.
    await dialog.waitFor({ state: 'hidden' });
    await table.getByRole('cell', { name: 'e2e.helper', exact: true }).waitFor();
    await ui.expectNoRawPhraseKeys();

    await page.getByRole('searchbox', { name: 'Username, email or phone' }).fill('helper');
    await page.getByRole('searchbox', { name: 'Username, email or phone' }).press('Enter');
    await table.getByRole('cell', { name: 'admin', exact: true }).waitFor({ state: 'detached' });
    await table.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('tooltip').getByRole('button', { name: 'Remove' }).click();
    await ui.expectMessage('e2e.helper was removed');
    await table.getByRole('cell', { name: 'e2e.helper', exact: true }).waitFor({ state: 'detached' });
  });

  devFlow('licence: import a valid file, then a tampered one is refused', async () => {
    assert.ok(s.server && s.vendor);
    const { page, ui } = await devSession();
    await page.goto(`${s.server.baseUrl}/dev/setting/license`);
    const code = (await page.getByTestId('application-code').locator('code').innerText()).trim();
    assert.ok(code.length > 8, 'the application code is shown');
    await page.getByText('No licence imported yet').waitFor();
    const table = page.getByTestId('license-table');
    await table.getByRole('cell', { name: 'Not Active' }).first().waitFor();

    const file = await s.vendor.issue(code, 'valid.lic');
    await page.getByTestId('license-file').setInputFiles(file);
    await ui.expectMessage('Licence imported');
    await page.getByText('E2E Co').waitFor();
    const users = table.getByRole('row').filter({ hasText: 'Users' });
    await users.getByRole('cell', { name: 'Normal' }).waitFor();
    assert.match(await users.innerText(), /500/);
    assert.match(await users.innerText(), /2099-12-31/);
    await ui.expectNoRawPhraseKeys();

    const tampered = await s.vendor.tamper(file, 'tampered.lic');
    await page.getByTestId('license-file').setInputFiles(tampered);
    await ui.expectMessage(/^The licence signature is not valid/);
    await users.getByRole('cell', { name: 'Normal' }).waitFor();

    // The top bar's version popover shows the version and the expiry of the licence.
    await page.reload();
    await page.getByTestId('version').waitFor();
    await page.getByRole('button', { name: 'Version information' }).click();
    const summary = page.getByTestId('licence-summary');
    await summary.getByText(/Expires 2099-12-31/).waitFor();
    await ui.screenshot('version-popover.en', [1280]);
    await page.keyboard.press('Escape');
  });

  devFlow('about: version and build, licence summary, searchable third-party licences', async () => {
    assert.ok(s.server);
    const { page, ui } = await devSession();
    await page.goto(`${s.server.baseUrl}/dev/setting/about`);
    const system = page.getByTestId('about-system');
    await system.getByText('0.1.0').waitFor();
    await page.getByTestId('about-licence').getByText('E2E Co').waitFor();
    const table = page.getByTestId('third-party-table');
    await table.getByRole('row').nth(10).waitFor();
    assert.equal(await table.getByRole('row').count(), 11, 'ten packages a page');
    await page.getByRole('searchbox', { name: 'Package or licence' }).fill('axios');
    await table.getByRole('cell', { name: 'axios', exact: true }).waitFor();
    assert.equal(await table.getByRole('row').count(), 2, 'the header and the one match');
    await page.getByRole('searchbox', { name: 'Package or licence' }).fill('');
    await ui.expectNoRawPhraseKeys();
  });
}
