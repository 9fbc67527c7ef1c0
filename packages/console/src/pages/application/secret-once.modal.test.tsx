import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { SecretOnceModal } from './secret-once.modal.tsx';

describe('<SecretOnceModal>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['apps']);
  });

  it('shows the secret with the warning that it is shown only this once, and copies it', async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const onClose = vi.fn();
    render(
      <SecretOnceModal title="Client secret" clientId="client-1" secret="s3cr3t-value" onClose={onClose} />,
    );
    expect((await screen.findByTestId('secret-once')).textContent).toBe('s3cr3t-value');
    expect(
      screen.getByText('This is the only time the secret is shown. Copy it now and keep it safe.'),
    ).toBeTruthy();
    expect(screen.getByText('client-1')).toBeTruthy();
    fireEvent.click(screen.getByText('Copy').closest('button') as HTMLButtonElement);
    await waitFor(() => expect(writeText).toHaveBeenCalledWith('s3cr3t-value'));
    await screen.findByText('Copied');
    expect(onClose).not.toHaveBeenCalled();
  });

  it('does not close on Escape or a click outside, only by its button', async () => {
    const onClose = vi.fn();
    render(<SecretOnceModal title="Client secret" secret="s3cr3t-value" onClose={onClose} />);
    const secret = await screen.findByTestId('secret-once');
    fireEvent.keyDown(secret, { key: 'Escape', code: 'Escape', keyCode: 27 });
    const mask = document.querySelector('.ant-modal-mask, .ant-modal-wrap');
    if (mask) fireEvent.click(mask);
    expect(onClose).not.toHaveBeenCalled();
    expect(screen.queryByLabelText('Close')).toBeNull();
    fireEvent.click(screen.getByText('I have saved it').closest('button') as HTMLButtonElement);
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});
