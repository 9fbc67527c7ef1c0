import { render, screen, waitFor } from '@testing-library/react';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { calls, click } from '../application/test-actions.ts';
import { renderWithConsole } from '../org/test-services.tsx';
import { SamlMetadataRefresh } from './saml-metadata-refresh.tsx';
import type { SamlDetail } from './source-view.ts';

const REFRESH = '/api/v1/manage/identity-source/saml/metadata/refresh';
const DETAIL = '/api/v1/manage/identity-source/detail';
const NEW_PEM = '-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n';

const detail = {
  sourceId: 'src-1',
  type: 'saml',
  settings: { ssoUrl: 'https://idp.example/sso', ssoBinding: 'redirect', signingCertificates: [] },
  metadataRefresh: {
    refreshedAt: '2026-11-28T03:00:00.000Z',
    nextRefreshAt: '2026-11-29T03:00:00.000Z',
    failedAt: null,
    error: null,
  },
} as unknown as SamlDetail & { metadataRefresh: NonNullable<SamlDetail['metadataRefresh']> };

describe('<SamlMetadataRefresh> (issue 33)', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['sources']);
  });

  it('reads the metadata again on demand, shows a failure, and hands the source as it now is to the form', async () => {
    let fail = true;
    const onRead = vi.fn();
    const setup = renderWithConsole(<SamlMetadataRefresh detail={detail} onRead={onRead} />, (path) => {
      if (path === REFRESH)
        return fail
          ? {
              ...detail.metadataRefresh,
              failedAt: '2026-11-29T04:00:00.000Z',
              error: 'The metadata could not be fetched',
            }
          : { ...detail.metadataRefresh, refreshedAt: '2026-11-29T04:05:00.000Z' };
      if (path === DETAIL)
        return { ...detail, settings: { ...detail.settings, signingCertificates: [NEW_PEM] } };
      throw new Error(`unexpected call ${path}`);
    });
    render(setup.ui);
    expect(await screen.findByText(/Metadata last read 2026-11-28/)).toBeTruthy();
    click(screen.getByText('Read again now'));
    expect(await screen.findByText('The metadata could not be fetched')).toBeTruthy();
    expect(calls(setup.callApi, REFRESH)[0]).toEqual({ sourceId: 'src-1' });
    fail = false;
    click(screen.getByText('Read again now'));
    await waitFor(() => expect(screen.queryByTestId('saml-metadata-refresh-error')).toBeNull());
    expect(screen.getByText(/Metadata last read 2026-11-29/)).toBeTruthy();
    expect(onRead).toHaveBeenLastCalledWith(
      expect.objectContaining({ settings: expect.objectContaining({ signingCertificates: [NEW_PEM] }) }),
    );
  });
});
