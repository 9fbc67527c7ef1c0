import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { renderWithConsole, typeInto } from '../org/test-services.tsx';
import { SmsProviderCard } from './sms-provider.card.tsx';

/** Issue 29: the platform administrator sets the SMS provider and sends a test message. */
const none = {
  provider: null,
  accessKeyId: '',
  secretSet: false,
  region: '',
  appId: '',
  signName: '',
  templateId: '',
  templateMinutes: false,
  baseUrl: null,
  updatedAt: null,
};
const aliyun = {
  ...none,
  provider: 'aliyun',
  accessKeyId: 'LTAI5tKey',
  secretSet: true,
  region: 'cn-hangzhou',
  signName: 'Tessera',
  templateId: 'SMS_1',
  updatedAt: '2026-11-27T00:00:00.000Z',
};

function renderCard(initial: typeof none | typeof aliyun) {
  let stored: Record<string, unknown> = initial;
  const setup = renderWithConsole(<SmsProviderCard />, (path, body) => {
    if (path === '/api/v1/manage/platform/sms/update') {
      stored = { ...aliyun, ...(body as object), secretSet: true };
      return stored;
    }
    if (path === '/api/v1/manage/platform/sms/test') return { messageId: '900^0' };
    return stored;
  });
  render(setup.ui);
  return setup;
}

describe('<SmsProviderCard>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['setup']);
  });
  afterEach(async () => {
    initI18n('en');
    await loadPhrases(['setup']);
  });

  it('sets up Alibaba Cloud SMS with its secret, then sends a test message', async () => {
    const setup = renderCard(none);
    const card = await screen.findByTestId('sms-provider-card', {}, { timeout: 15_000 });
    await within(card).findByText('Off');
    fireEvent.click(within(card).getByText('Alibaba Cloud SMS'));
    await screen.findByLabelText('AccessKey ID');
    typeInto('AccessKey ID', 'LTAI5tKey');
    typeInto('AccessKey secret', 'the-secret');
    typeInto('Sign name', 'Tessera');
    typeInto('Code template', 'SMS_1');
    fireEvent.click(within(card).getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(setup.callApi).toHaveBeenCalledWith('/api/v1/manage/platform/sms/update', {
        provider: 'aliyun',
        accessKeyId: 'LTAI5tKey',
        accessKeySecret: 'the-secret',
        region: '',
        appId: '',
        signName: 'Tessera',
        templateId: 'SMS_1',
        templateMinutes: false,
        baseUrl: '',
      }),
    );
    const phone = await screen.findByLabelText('Phone number');
    fireEvent.change(phone, { target: { value: '13800138000' } });
    fireEvent.click(within(card).getByRole('button', { name: 'Send' }));
    expect((await screen.findByTestId('sms-test-sent')).textContent).toContain('900^0');
    expect(setup.callApi).toHaveBeenCalledWith('/api/v1/manage/platform/sms/test', { phone: '13800138000' });
  }, 60_000);

  it('keeps a stored secret when it is left empty, and asks Tencent for its app id', async () => {
    const setup = renderCard(aliyun);
    const card = await screen.findByTestId('sms-provider-card', {}, { timeout: 15_000 });
    expect(
      await within(card).findByText('A secret is stored (never shown): leave empty to keep it.'),
    ).toBeTruthy();
    fireEvent.click(within(card).getByText('Tencent Cloud SMS'));
    await screen.findByLabelText('SDK AppID');
    fireEvent.click(within(card).getByRole('button', { name: 'Save' }));
    // Another provider's account needs its own secret and app id: nothing is sent.
    expect(await within(card).findAllByText('Please fill in this setting')).toHaveLength(2);
    expect(setup.callApi).not.toHaveBeenCalledWith('/api/v1/manage/platform/sms/update', expect.anything());
  }, 60_000);

  it('speaks Chinese', async () => {
    initI18n('zh');
    await loadPhrases(['setup']);
    renderCard(aliyun);
    const card = await screen.findByTestId('sms-provider-card', {}, { timeout: 15_000 });
    expect(within(card).getByText('短信服务商')).toBeTruthy();
    expect(await within(card).findByText('阿里云短信')).toBeTruthy();
    expect(within(card).getByText('发送测试短信')).toBeTruthy();
    expect(within(card).getByText('已保存密钥（不会显示）：留空则保持不变。')).toBeTruthy();
  }, 60_000);
});
