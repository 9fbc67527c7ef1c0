/**
 * What the browser flows share: the server and Chromium of the run, a vendor licence key, new
 * pages, and one signed-in developer-console page that the shell flows use in order.
 * Each area's flows are in e2e/flows/<area>.e2e.ts; e2e/run.ts registers them in order.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { ProviderFixture } from '../../packages/server/src/test/scan-providers.ts';
import { artifactsDir, consolePage, settleBeforePointerActions } from './console.page.ts';
import type { licenseVendor } from './license.vendor.ts';
import type { RunningServer } from './server.process.ts';

export const ADMIN_PASSWORD = 'E2e-admin-pass-1';
export const COMPANY_NAME = 'Acme Identity Ltd';
/** Spec §9: names are cut to 10 characters plus an ellipsis in the top bar. */
export const COMPANY_NAME_SHORT = 'Acme Ident…';
export const LONG_NAME = 'Globex Corporation International';
export const LONG_NAME_SHORT = 'Globex Cor…';
export const SECOND_NAME = 'Initech';
export const NEWCOMER = 'nora.newcomer';
export const NEWCOMER_FIRST_PASSWORD = 'First-pass-2026';
export const NEWCOMER_NEW_PASSWORD = 'Chosen-pass-2027';
export const MFA_USER = 'otto.twostep';
export const MFA_USER_PASSWORD = 'Otto-pass-2026';
export const EXPIRED_USER = 'erin.expired';
export const EXPIRED_USER_PASSWORD = 'Erin-pass-2026';
export const PASSKEY_USER = 'paula.passkey';
export const PASSKEY_USER_PASSWORD = 'Paula-pass-2026';
export const APP_USER = 'wendy.wiki';
export const APP_USER_PASSWORD = 'Wendy-pass-2026';
/**
 * Query parameters of browser requests whose values are secrets (e2e/flows/log-secrets.e2e.ts);
 * `ticket` is a CAS service ticket on its way to the service.
 */
const SECRET_PARAMS = ['code', 'id_token_hint', 'token', 'access_token', 'refresh_token', 'ticket'];
/** A 1×1 PNG. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

type Console = ReturnType<typeof consolePage>;

export interface Suite {
  readonly adminPassword: string;
  /** Set by the runner's `before`. */
  server: RunningServer | undefined;
  browser: Browser | undefined;
  vendor: ReturnType<typeof licenseVendor> | undefined;
  /** Local DingTalk, WeChat and WeCom servers the run's server is pointed at (e2e/flows/identity-sources.e2e.ts). */
  providers: ProviderFixture | undefined;
  /** A folder of the run for files the flows write (removed afterwards). */
  vendorDir: string;
  /** Uncaught page errors, console errors and Content-Security-Policy violations; the last test expects none. */
  pageErrors: string[];
  /**
   * Every secret the run used (passwords, client secrets, console tokens, codes, ID tokens,
   * recovery codes, authenticator keys): flows add what they see; browser requests add their
   * console tokens and the codes and tokens in their addresses. None may be in the server log.
   */
  secrets: string[];
  /** The file the run's servers write their output to. */
  serverLog: string;
  openPage(options?: { lang?: 'en' | 'zh' }): Promise<{ context: BrowserContext; page: Page }>;
  /** The shared signed-in developer-console page (signed in on first use). */
  devSession(): Promise<{ context: BrowserContext; page: Page; ui: Console }>;
  /** A test on the shared page that leaves a screenshot of the page behind when it fails. */
  devFlow(name: string, body: () => Promise<void>): void;
  /** Forgets the shared page (after a flow closed it). */
  endDevSession(): void;
}

export function createSuite(): Suite {
  let dev: { context: BrowserContext; page: Page; ui: Console } | undefined;
  const suite: Suite = {
    adminPassword: ADMIN_PASSWORD,
    server: undefined,
    browser: undefined,
    vendor: undefined,
    providers: undefined,
    vendorDir: '',
    pageErrors: [],
    secrets: [
      ADMIN_PASSWORD,
      NEWCOMER_FIRST_PASSWORD,
      NEWCOMER_NEW_PASSWORD,
      MFA_USER_PASSWORD,
      EXPIRED_USER_PASSWORD,
      PASSKEY_USER_PASSWORD,
      APP_USER_PASSWORD,
    ],
    serverLog: '',
    async openPage(options = {}) {
      assert.ok(suite.browser && suite.server);
      const context = await suite.browser.newContext({
        viewport: { width: 1280, height: 800 },
        locale: 'en-US',
      });
      if (options.lang) {
        await context.addCookies([{ name: 'lang', value: options.lang, url: suite.server.baseUrl }]);
      }
      // The browser says "Refused to …" on the console as well; the event names the directive.
      await context.addInitScript(() =>
        document.addEventListener('securitypolicyviolation', (event) =>
          console.error(`Content-Security-Policy violation: ${event.effectiveDirective} ${event.blockedURI}`),
        ),
      );
      const page = await context.newPage();
      settleBeforePointerActions(page);
      page.on('pageerror', (error) => suite.pageErrors.push(`${page.url()}: ${error.message}`));
      page.on('request', (request) => {
        const seen = [request.headers().access_token];
        const url = new URL(request.url());
        for (const name of SECRET_PARAMS) {
          const value = url.searchParams.get(name) ?? undefined;
          // `ticket` is a secret when it is a CAS ticket; the test SAML SP's own app names its sessions so too.
          if (name !== 'ticket' || /^(ST|PT)-/.test(value ?? '')) seen.push(value);
        }
        for (const secret of seen) if (secret && !suite.secrets.includes(secret)) suite.secrets.push(secret);
      });
      page.on('console', (message) => {
        // A refused call (the 401 test) is logged by the browser itself; anything else is a bug.
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
          suite.pageErrors.push(`${page.url()}: console: ${message.text()}`);
        }
      });
      return { context, page };
    },
    async devSession() {
      assert.ok(suite.server);
      if (!dev) {
        const { context, page } = await suite.openPage();
        const ui = consolePage(page, suite.server.baseUrl);
        await ui.signIn('/dev/dashboard', ADMIN_PASSWORD);
        dev = { context, page, ui };
      }
      return dev;
    },
    devFlow(name, body) {
      test(name, async () => {
        try {
          await body();
        } catch (error) {
          const slug = name.replace(/[^a-z0-9]+/gi, '-').slice(0, 40);
          await dev?.page
            .screenshot({ path: `${artifactsDir}failure-${slug}.png`, fullPage: true })
            .catch(() => {});
          // CI keeps only the test output: what the page showed goes into the error's message.
          const shown = await dev?.page.evaluate<string>(describePage).catch(() => undefined);
          if (shown && error instanceof Error) error.message += `\nThe page at the failure:\n${shown}`;
          throw error;
        }
      });
    },
    endDevSession() {
      dev = undefined;
    },
  };
  return suite;
}

/**
 * What the page shows, in words: its address, every dialog with its buttons (loading, disabled
 * and hidden ones marked), the field messages, the toasts and the focus. Page script as text:
 * the test runner's compiler would wrap named functions in a helper the page does not have.
 */
const describePage = `(() => {
  const text = (element) => (element.textContent ?? '').replace(/\\s+/g, ' ').trim().slice(0, 160);
  const visible = (element) => element.offsetParent !== null;
  const lines = ['address: ' + location.pathname + location.search];
  for (const dialog of document.querySelectorAll('[role=dialog]')) {
    const wrap = dialog.closest('.ant-modal-wrap') ?? dialog;
    const buttons = [...dialog.querySelectorAll('button')].map((button) => {
      const marks = [
        button.className.includes('loading') ? 'loading' : '',
        button.disabled ? 'disabled' : '',
        visible(button) ? '' : 'hidden',
        ...[...button.querySelectorAll('[aria-label]')].map((part) => 'holds "' + part.getAttribute('aria-label') + '"'),
      ].filter(Boolean);
      return '"' + text(button) + '"' + (marks.length ? ' (' + marks.join(', ') + ')' : '');
    });
    lines.push(
      'dialog' + (visible(dialog) ? '' : ' (hidden)') + ' [' + dialog.className + ' | ' + wrap.className +
        (wrap.getAttribute('aria-hidden') ? ' aria-hidden' : '') + ']: ' + text(dialog),
      '  buttons: ' + buttons.join(', '),
    );
  }
  const messages = [...document.querySelectorAll('.ant-form-item-explain-error, .ant-message-notice')];
  if (messages.length) lines.push('messages: ' + messages.map(text).join(' | '));
  const focused = document.activeElement;
  if (focused && focused !== document.body) lines.push('focus: <' + focused.tagName.toLowerCase() + '> ' + text(focused));
  return lines.join('\\n');
})()`;
