import { USERNAME_PATTERN, userLimits } from '@tessera/contract/constants';
import type { FormRule } from 'antd';
import type { TFunction } from 'i18next';

/** The phone rule of the user calls: digits with an optional leading +; spaces and hyphens are dropped. */
export const normalisePhone = (value: string) => value.trim().replace(/[\s-]/g, '');
const PHONE_PATTERN = /^\+?[0-9]{5,20}$/;

/** Spec §5: the user name is required and cannot contain special characters. */
export const usernameRules = (t: TFunction): FormRule[] => [
  { required: true, whitespace: true, message: t('org.form.usernameRequired') },
  {
    validator: async (_rule, value?: string) => {
      const name = value?.trim() ?? '';
      if (name === '') return;
      if (name.length > userLimits.usernameMax)
        throw new Error(t('org.form.tooLong', { max: userLimits.usernameMax }));
      if (!USERNAME_PATTERN.test(name)) throw new Error(t('org.form.usernameInvalid'));
    },
  },
];

export const emailRules = (t: TFunction): FormRule[] => [
  { type: 'email', transform: (value?: string) => value?.trim(), message: t('org.form.emailInvalid') },
  { max: userLimits.emailMax, message: t('org.form.tooLong', { max: userLimits.emailMax }) },
];

export const phoneRules = (t: TFunction): FormRule[] => [
  {
    validator: async (_rule, value?: string) => {
      const phone = normalisePhone(value ?? '');
      if (phone !== '' && !PHONE_PATTERN.test(phone)) throw new Error(t('org.form.phoneInvalid'));
    },
  },
];

export const textRules = (t: TFunction, max: number): FormRule[] => [
  { max, transform: (value?: string) => value?.trim(), message: t('org.form.tooLong', { max }) },
];

/** Spec §5: a password is required. The company's password rules are checked by the server. */
export const passwordRules = (t: TFunction): FormRule[] => [
  { required: true, message: t('org.form.passwordRequired') },
  { max: userLimits.passwordMax, message: t('org.form.tooLong', { max: userLimits.passwordMax }) },
];

/** Spec §5: the two passwords must match ('Entered Passwords Differ'). */
export const confirmPasswordRules = (t: TFunction, passwordField = 'password'): FormRule[] => [
  { required: true, message: t('org.form.confirmRequired') },
  ({ getFieldValue }) => ({
    validator: async (_rule, value?: string) => {
      if (value && value !== getFieldValue(passwordField)) throw new Error(t('org.form.passwordsDiffer'));
    },
  }),
];

/** An optional text field as the user calls take it: trimmed, and empty means "not set". */
export const optional = (value: string | undefined) => {
  const trimmed = value?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
};
