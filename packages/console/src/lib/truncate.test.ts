import { COMPANY_NAME_DISPLAY_LENGTH } from '@tessera/contract';
import { describe, expect, it } from 'vitest';
import { truncateName } from './truncate.ts';

describe('truncateName (spec §9: 10 characters plus an ellipsis)', () => {
  it('keeps names up to the limit as they are', () => {
    expect(truncateName('Acme', COMPANY_NAME_DISPLAY_LENGTH)).toBe('Acme');
    expect(truncateName('0123456789', COMPANY_NAME_DISPLAY_LENGTH)).toBe('0123456789');
  });

  it('cuts longer names to 10 characters and adds an ellipsis', () => {
    expect(truncateName('Acme Identity Ltd', COMPANY_NAME_DISPLAY_LENGTH)).toBe('Acme Ident…');
    expect(truncateName('01234567890', COMPANY_NAME_DISPLAY_LENGTH)).toBe('0123456789…');
  });

  it('counts Chinese characters and emoji as one character each', () => {
    expect(truncateName('支付宝身份认证服务平台企业版', COMPANY_NAME_DISPLAY_LENGTH)).toBe(
      '支付宝身份认证服务平…',
    );
    expect(truncateName('😀😀😀😀😀😀😀😀😀😀😀', COMPANY_NAME_DISPLAY_LENGTH)).toBe('😀😀😀😀😀😀😀😀😀😀…');
  });
});
