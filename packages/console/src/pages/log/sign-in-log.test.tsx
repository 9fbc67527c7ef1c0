import { render, screen } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { initI18n, loadPhrases } from '../../i18n/i18n.ts';
import { MethodTag } from './sign-in-log.tsx';

describe('<MethodTag>', () => {
  beforeAll(async () => {
    initI18n('en');
    await loadPhrases(['log']);
  });

  it('names a sign-in with a code by email or SMS, or a passkey, and says nothing of a password', () => {
    const { container } = render(
      <>
        <MethodTag method="email_code" />
        <MethodTag method="sms_code" />
        <MethodTag method="passkey" />
        <MethodTag method="password" />
        <MethodTag method={null} />
        <MethodTag method="carrier_pigeon" />
      </>,
    );
    expect(screen.getAllByTestId('sign-in-method').map((tag) => tag.textContent)).toEqual([
      'Email code',
      'SMS code',
      'Passkey',
    ]);
    expect(container.textContent).toBe('Email codeSMS codePasskey');
  });
});
