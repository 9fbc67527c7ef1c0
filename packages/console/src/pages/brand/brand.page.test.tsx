import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole } from '../org/test-services.tsx';
import { BrandPage } from './brand.page.tsx';

/** Issue 35: the preview is the real sign-in page, drawn by the server; the address to bookmark is shown. */
const detail = {
  logo: null,
  background: null,
  primaryColor: '#c41d7f',
  title: 'Acme People',
  footerText: null,
  footerLink: null,
  defaultLanguage: 'zh',
  companyIcon: null,
  companyName: 'Acme',
  companyCode: 'a1b2c3d4e5',
};
const pageOf = (body: { title?: string | null }) =>
  `<!doctype html><html><body class="branded"><main class="card"><strong>${body.title ?? 'Acme'}</strong><h1>Sign in</h1></main></body></html>`;

function renderPage() {
  const setup = renderWithConsole(<BrandPage />, (path, body) =>
    path === '/api/v1/manage/brand/preview' ? { html: pageOf(body as { title?: string }) } : detail,
  );
  render(setup.ui);
  return setup;
}

describe('<BrandPage>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['brand']);
  });

  it("shows the server's drawing of the sign-in page, and draws it again with the values being typed", async () => {
    const { callApi } = renderPage();
    // The preview is asked for once typing pauses; a busy machine may take a while to get there.
    const frame = await screen.findByTestId('brand-preview', {}, { timeout: 15_000 });
    expect(frame.tagName).toBe('IFRAME');
    expect(frame.getAttribute('sandbox')).toBe('allow-same-origin');
    expect(frame.getAttribute('srcdoc')).toContain('<strong>Acme People</strong>');
    fireEvent.change(screen.getByLabelText('Sign-in page title'), { target: { value: 'Acme Staff' } });
    await waitFor(() =>
      expect(screen.getByTestId('brand-preview').getAttribute('srcdoc')).toContain('Acme Staff'),
    );
    expect(callApi).toHaveBeenLastCalledWith('/api/v1/manage/brand/preview', {
      primaryColor: '#c41d7f',
      title: 'Acme Staff',
      footerText: null,
      footerLink: null,
      lang: 'en',
    });
    // Nothing of the console's own drawing of a sign-in page is left: no "Forgot password?".
    expect(document.body.textContent).not.toMatch(/forgot/i);
  });

  it("shows the company's user centre address to copy", async () => {
    renderPage();
    const address = await screen.findByTestId('portal-address');
    expect(address.textContent).toContain(`${window.location.origin}/portal/c/a1b2c3d4e5/`);
    expect(screen.getByRole('link', { name: `${window.location.origin}/portal/c/a1b2c3d4e5/` })).toBeTruthy();
    expect(address.querySelector('.ant-typography-copy')).toBeTruthy();
  });
});
