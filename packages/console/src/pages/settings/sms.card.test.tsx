import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole, typeInto } from '../org/test-services.tsx';
import { SmsCard } from './sms.card.tsx';

/** Issue 29: a company sets its own SMS sign name and template under the platform's provider. */
const conf = {
  platformConfigured: true,
  provider: 'aliyun',
  signName: null,
  templateId: null,
  platformSignName: 'Tessera',
  platformTemplateId: 'SMS_1',
};

function renderCard(initial: typeof conf | Record<string, unknown>) {
  const setup = renderWithConsole(<SmsCard />, (path, body) =>
    path === '/api/v1/manage/company/sms/update' ? { ...initial, ...(body as object) } : initial,
  );
  render(setup.ui);
  return setup;
}

describe('<SmsCard>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['settings']);
  });
  afterEach(async () => {
    initI18n('en');
    await loadPhrases(['settings']);
  });

  it("shows the platform's sign name and saves the company's own", async () => {
    const setup = renderCard(conf);
    const card = await screen.findByTestId('sms-card', {}, { timeout: 15_000 });
    expect(await within(card).findByText('Empty: the platform’s (Tessera)')).toBeTruthy();
    typeInto('Sign name', 'Acme Rockets');
    typeInto('Code template', 'SMS_2');
    fireEvent.click(within(card).getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(setup.callApi).toHaveBeenCalledWith('/api/v1/manage/company/sms/update', {
        signName: 'Acme Rockets',
        templateId: 'SMS_2',
      }),
    );
  }, 60_000);

  it('says when the platform has no provider, in Chinese too', async () => {
    initI18n('zh');
    await loadPhrases(['settings']);
    renderCard({
      ...conf,
      platformConfigured: false,
      provider: null,
      platformSignName: '',
      platformTemplateId: '',
    });
    const card = await screen.findByTestId('sms-card', {}, { timeout: 15_000 });
    expect(
      await within(card).findByText('平台尚未配置短信服务商：在平台管理员配置之前，不会发送任何短信。'),
    ).toBeTruthy();
    expect(within(card).getByText('短信签名')).toBeTruthy();
  }, 60_000);
});
