import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';

export const artifactsDir = fileURLToPath(new URL('../artifacts/', import.meta.url));
const TOKEN_KEY = 'asp_admin_token';

/**
 * Chooses a tab (antd Tabs) in `scope` and waits until it is the selected one. A click that lands
 * while a dialog still zooms open can miss the tab; it is made again, at most three times.
 */
export async function chooseTab(scope: Page | Locator, name: string, exact = true) {
  const tab = scope.getByRole('tab', { name, exact });
  for (let attempt = 1; ; attempt++) {
    await tab.click();
    const chosen = await tab
      .and(scope.locator('[aria-selected="true"]'))
      .waitFor({ timeout: 5_000 })
      .then(
        () => true,
        () => false,
      );
    if (chosen) return;
    if (attempt === 3) throw new Error(`choosing the tab "${name}" three times did not select it`);
  }
}

/**
 * Waits until the field messages of a form in `scope` have gone (antd animates them out, and the
 * buttons below move up meanwhile: a click aimed before they settle can land beside its button).
 */
export async function fieldMessagesGone(scope: Page | Locator) {
  const messages = scope.locator('.ant-form-item-explain-error');
  while ((await messages.count()) > 0) await messages.first().waitFor({ state: 'detached' });
}

/**
 * Waits until nothing on the page moves: every dialog has finished zooming in and every select
 * list and menu has finished sliding (antd's motion classes, `ant-zoom-appear` and the like, are
 * gone), and no animation or transition that moves or resizes an element is running (the sidebar
 * widening after the window did, a segmented control's thumb, a field message collapsing).
 * Endless animations (spinners) and colours fading under the pointer do not count. Playwright
 * waits for a control to hold still over two frames, but on a busy machine a click aimed at a
 * control that is still moving can land beside it (a radio that stays unchecked, an option of a
 * list not chosen, a dialog not opened).
 */
export async function motionSettled(page: Page, timeout?: number) {
  await page.waitForFunction(
    () => {
      const moving =
        /^(transform|translate|scale|rotate|width|height|min-|max-|top|left|right|bottom|inset|margin|padding|flex)/;
      const motions = [...document.querySelectorAll('.ant-modal, .ant-select-dropdown, .ant-dropdown')];
      if (motions.some((element) => /-(appear|enter|leave)\b/.test(element.className))) return false;
      return document.getAnimations().every((animation) => {
        if (animation.playState !== 'running') return true;
        const effect = animation.effect as KeyframeEffect | null;
        if (effect?.getTiming().iterations === Number.POSITIVE_INFINITY) return true;
        // antd's click wave plays beside its button and moves nothing.
        if (effect?.target instanceof Element && effect.target.closest('.ant-wave')) return true;
        return animation instanceof CSSTransition ? !moving.test(animation.transitionProperty) : false;
      });
    },
    undefined,
    { timeout },
  );
}

const settledMark = Symbol('motion settled before pointer actions');

/**
 * Makes every pointer action of the browser flows (click, check, hover, choosing an option…) wait
 * first, at most 5 s, for the page to stop moving (motionSettled), so that no flow needs to
 * remember it before each click. Playwright has no hook for this: the actions of its Locator
 * class are wrapped, once per process. A page that is still moving after 5 s gets its click anyway.
 */
export function settleBeforePointerActions(page: Page) {
  const actions = Object.getPrototypeOf(page.locator('body')) as Record<PropertyKey, unknown>;
  if (actions[settledMark]) return;
  actions[settledMark] = true;
  for (const name of [
    'click',
    'dblclick',
    'check',
    'uncheck',
    'setChecked',
    'tap',
    'hover',
    'selectOption',
  ]) {
    const action = actions[name] as (this: Locator, ...args: unknown[]) => Promise<unknown>;
    actions[name] = async function (this: Locator, ...args: unknown[]) {
      await motionSettled(this.page(), 5_000).catch(() => {});
      return action.apply(this, args);
    };
  }
}

/**
 * Opens the user centre (`/portal/account`) and submits the password on the provider's sign-in
 * page it leads to. The page is left where the submission lands: the account page, or a step
 * such as "Choose a new password" or the second factor.
 */
export async function signInToPortal(page: Page, baseUrl: string, username: string, password: string) {
  await page.goto(`${baseUrl}/portal/account`);
  await page.locator('#identifier').waitFor();
  await page.locator('#identifier').fill(username);
  await page.locator('#password').fill(password);
  await page.locator('button.primary[type=submit]').click();
}

/** Page helpers for the server's sign-in pages and the console (Keycloak admin-ui style). */
export function consolePage(page: Page, baseUrl: string) {
  return {
    async expectSignInPage() {
      await page.waitForURL(/\/interaction\//);
      await page.locator('#identifier').waitFor();
    },
    /** Opens a console page, signs in on the server's page and waits for `landing`. */
    async signIn(path: string, password: string, landing: string | RegExp = path) {
      await page.goto(`${baseUrl}${path}`);
      await this.expectSignInPage();
      await this.submitSignIn('admin', password);
      await page.waitForURL(typeof landing === 'string' ? `${baseUrl}${landing}` : landing);
    },
    async submitSignIn(identifier: string, password: string) {
      await page.locator('#identifier').fill(identifier);
      await page.locator('#password').fill(password);
      await page.locator('button.primary[type=submit]').click();
    },
    async expectSignInError() {
      await page.locator('.alert').waitFor();
      assert.ok(
        ((await page.locator('.alert').textContent()) ?? '').trim().length > 0,
        'the error is not empty',
      );
    },
    async token(): Promise<string> {
      const token = await page.evaluate((key) => window.localStorage.getItem(key), TOKEN_KEY);
      assert.ok(token, 'a token is stored under asp_admin_token');
      return token;
    },
    /**
     * Opens the user menu, chooses Log Out and waits for the server's sign-out page to post itself
     * (the console's ID token names the session: nothing to confirm, no button). A choice
     * made while the screen behind is still drawing (the dashboard's charts right after sign-in)
     * can miss the menu as it is redrawn, as a person's click would: chosen again, at most three
     * times, until the console calls its logout.
     */
    async logOut(menuLabel = 'Account menu', itemText = 'Log Out') {
      // The sign-out page's own post (form-launch.js), handled at once like `calling` below.
      const selfPosted = page
        .waitForResponse(
          (r) => r.url().includes('/oidc/session/end/confirm') && r.request().method() === 'POST',
          { timeout: 30_000 },
        )
        .then(
          () => null,
          (error: unknown) => error,
        );
      await page.getByRole('button', { name: menuLabel }).click();
      for (let attempt = 1; ; attempt++) {
        // Handled at once: a rejection nobody awaits yet would fail the test by itself.
        const calling = page
          .waitForRequest((r) => r.url().includes('/login/logout'), { timeout: 10_000 })
          .then(
            () => true,
            () => false,
          );
        const item = page.getByRole('menuitem', { name: itemText });
        await motionSettled(page);
        await item.click();
        if (await calling) break;
        if (attempt === 3) throw new Error('choosing Log Out three times did not call the logout');
        // The choice missed: the menu may have closed with it.
        if (!(await item.isVisible())) await page.getByRole('button', { name: menuLabel }).click();
      }
      const missed = await selfPosted;
      if (missed) {
        // Where the browser is instead, for the test's report.
        const text = (
          await page
            .locator('body')
            .innerText()
            .catch(() => '')
        ).slice(0, 300);
        throw new Error(`the sign-out page did not post itself: at ${page.url()}: ${text}`, {
          cause: missed,
        });
      }
    },
    /** The envelope code of the company list call made with `token`. */
    async companyListCode(token: string): Promise<number> {
      const response = await fetch(`${baseUrl}/api/v1/manage/company/my/list`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', access_token: token },
        body: '{}',
      });
      const body = (await response.json()) as { code: number };
      return body.code;
    },
    /** Full-page screenshots at each width, as e2e/artifacts/<name>.<width>.png. */
    async screenshot(name: string, widths: readonly number[] = [1280, 900]) {
      await mkdir(artifactsDir, { recursive: true });
      for (const width of widths) {
        await page.setViewportSize({ width, height: 800 });
        // Let the layout settle: the sidebar and its menu animate when the width crosses 992 px.
        await page.waitForTimeout(400);
        await page.screenshot({ path: `${artifactsDir}${name}.${width}.png`, fullPage: true });
      }
      await page.setViewportSize({ width: 1280, height: 800 });
    },
    /** The labels of the sidebar's top-level entries and of the open sub-menus' entries. */
    async menuLabels(): Promise<string[]> {
      const items = page.getByTestId('sidebar').locator('[role=menuitem]');
      await items.first().waitFor();
      return (await items.allInnerTexts()).map((text) => text.trim()).filter(Boolean);
    },
    async expectTitle(title: string) {
      await page.waitForFunction((expected) => document.title === expected, title);
    },
    /** Waits until the sidebar has finished moving to `width` pixels. */
    async waitSidebarWidth(width: number) {
      await page.waitForFunction(
        (w) =>
          Math.round(document.querySelector('[data-testid=sidebar]')?.getBoundingClientRect().width ?? 0) ===
          w,
        width,
      );
    },
    async sidebarWidth(): Promise<number> {
      const box = await page.getByTestId('sidebar').boundingBox();
      assert.ok(box, 'the sidebar is on screen');
      return Math.round(box.width);
    },
    /** The top bar's company switcher text. */
    /** The dashboard's welcome line names the current company. */
    async expectDashboardCompany(name: string) {
      await page
        .getByTestId('company-name')
        .and(page.getByText(name, { exact: true }))
        .waitFor();
    },
    async currentCompany(): Promise<string | null> {
      return page.getByTestId('current-company').textContent();
    },
    /** Calls the API as the signed-in person (token from storage); returns the envelope. */
    async api<T>(
      path: string,
      body: unknown = {},
      companyId?: string,
    ): Promise<{ code: number; msg: string; data: T }> {
      const token = await this.token();
      const response = await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          access_token: token,
          ...(companyId ? { company_id: companyId } : {}),
        },
        body: JSON.stringify(body),
      });
      return (await response.json()) as { code: number; msg: string; data: T };
    },
    /** The id of the company the console acts in. */
    async companyId(): Promise<string | undefined> {
      return (await page.evaluate(() => localStorage.getItem('asp_admin_company_id'))) ?? undefined;
    },
    /** Creates a user of the current company who signs in with `password` (no forced change); answers the user id. */
    async createUser(username: string, password: string, extra: Record<string, unknown> = {}) {
      // Right after signing in, the console may not have chosen its company yet.
      await page.waitForFunction(() => localStorage.getItem('asp_admin_company_id'));
      const created = await this.api<{ userId: string }>(
        '/api/v1/manage/user/create',
        { username, password, confirmPassword: password, mustChangePassword: false, ...extra },
        await this.companyId(),
      );
      assert.equal(created.code, 200, created.msg);
      return created.data.userId;
    },
    /** On an application's Access tab: only assigned users may use it, and `username` is assigned. */
    async assignOnlyUser(username: string) {
      await page.getByRole('radio', { name: /Only assigned users/ }).click();
      await this.expectMessage('Saved');
      await page.getByRole('button', { name: 'Assign users' }).click();
      const assign = page.getByRole('dialog');
      await motionSettled(page);
      await assign.getByRole('combobox').fill(username);
      // The list is replaced when the search's answer arrives: a click on the option of the list
      // before it can be lost, so the choice is checked (the option shows as selected) and made
      // again, at most three times.
      const list = page.locator('.ant-select-dropdown:visible');
      const selected = list.locator('.ant-select-item-option-selected', { hasText: username }).first();
      for (let attempt = 1; ; attempt++) {
        await motionSettled(page);
        // A second click on a chosen option would take it back.
        if ((await selected.count()) > 0) break;
        await list.locator('.ant-select-item-option', { hasText: username }).first().click();
        const chosen = await selected.waitFor({ timeout: 3_000 }).then(
          () => true,
          () => false,
        );
        if (chosen) break;
        if (attempt === 3) throw new Error(`choosing ${username} three times did not select it`);
      }
      await assign.getByRole('button', { name: 'Assign', exact: true }).click();
      await page.getByTestId('assignments').getByText(username).first().waitFor();
    },
    /** Waits for an antd message (toast) with this text. */
    async expectMessage(text: string | RegExp) {
      await page.locator('.ant-message-notice').filter({ hasText: text }).first().waitFor();
    },
    /** Phrase keys such as `company.nameLabel` must never reach the screen. */
    async expectNoRawPhraseKeys() {
      const text = (await page.locator('body').textContent()) ?? '';
      const raw = text.match(
        /\b(?:about|brand|common|company|dashboard|devices|http|layout|license|log|org|permission|route|safety|session|settings|status)\.[a-z][A-Za-z.]+\b/g,
      );
      assert.equal(raw, null, `untranslated phrase keys on ${page.url()}: ${raw?.join(', ')}`);
    },
  };
}

/**
 * The console's calls in a company that must answer 200 (the set-up of a flow): each answers its
 * data; any other answer fails the flow, naming the call and its message.
 */
export const callsThatMustSucceed =
  (ui: Pick<ReturnType<typeof consolePage>, 'api'>, companyId: string | undefined) =>
  async <T = unknown>(path: string, body: unknown): Promise<T> => {
    const answer = await ui.api<T>(path, body, companyId);
    assert.equal(answer.code, 200, `${path}: ${answer.msg}`);
    return answer.data;
  };
