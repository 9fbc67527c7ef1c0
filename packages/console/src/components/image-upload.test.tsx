import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { FeedbackHost } from '../app/feedback-host.tsx';
import { initI18n, loadPhrases } from '../i18n/i18n.ts';
import { ImageUpload } from './image-upload.tsx';

function renderUpload(send: (file: Blob) => Promise<unknown>) {
  render(
    <FeedbackHost>
      <ImageUpload
        accept=".png"
        problemOf={(file) => (file.type === 'image/png' ? undefined : 'apps.detail.logoWrongType')}
        send={send}
        uploaded="apps.detail.logoUpdated"
      >
        Upload
      </ImageUpload>
    </FeedbackHost>,
  );
  return document.querySelector('input[type="file"]') as HTMLInputElement;
}

describe('<ImageUpload>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['apps']);
  });

  it('says what is wrong with a refused file and sends nothing', async () => {
    const send = vi.fn(async () => {});
    const input = renderUpload(send);
    fireEvent.change(input, { target: { files: [new File(['x'], 'a.gif', { type: 'image/gif' })] } });
    await screen.findByText('Choose a PNG, JPEG, SVG or WebP image');
    expect(send).not.toHaveBeenCalled();
  });

  it('sends an accepted file and says it is done', async () => {
    const send = vi.fn(async () => {});
    const input = renderUpload(send);
    const file = new File(['x'], 'a.png', { type: 'image/png' });
    fireEvent.change(input, { target: { files: [file] } });
    await waitFor(() => expect(send).toHaveBeenCalledTimes(1));
    expect((send.mock.calls[0] as unknown[])[0]).toBe(file);
    await screen.findByText('Logo updated');
  });
});
