import { COMPANY_NAME_MAX_LENGTH } from '@tessera/contract/constants';
import type { FormRule } from 'antd';
import type { TFunction } from 'i18next';

/**
 * Spec §5 company name: required, at most 50 characters, both after trimming (the contract's
 * `companyName` rule, which the server applies again).
 */
export const companyNameRules = (t: TFunction): FormRule[] => [
  { required: true, whitespace: true, message: t('company.nameRequired') },
  {
    max: COMPANY_NAME_MAX_LENGTH,
    transform: (value?: string) => value?.trim(),
    message: t('company.nameTooLong', { max: COMPANY_NAME_MAX_LENGTH }),
  },
];
