import {
  appLimits,
  companyIconTypes,
  recommendedTokenLifetimes,
  redirectUriProblem,
} from '@tessera/contract/constants';
import type { FormRule } from 'antd';
import type { TFunction } from 'i18next';

/**
 * The rules of the application calls (contract calls/app.ts, spec §5 and §9), checked in the
 * forms before a call with the same limits and wording as the server; the server checks again.
 */

/** The name of an application: given, and at most `appLimits.nameMax` characters. */
export const appNameRules = (t: TFunction): FormRule[] => [
  { required: true, whitespace: true, message: t('apps.create.nameRequired') },
  { max: appLimits.nameMax, message: t('apps.create.nameTooLong', { max: appLimits.nameMax }) },
];

const logoTypes: readonly string[] = companyIconTypes;
export const logoAccept = ['.png', '.jpg', '.jpeg', '.svg', '.webp', ...logoTypes].join(',');

/** Why a chosen logo cannot be sent (a phrase key), checked before the upload. */
export function logoProblem(file: { type: string; size: number }) {
  if (!logoTypes.includes(file.type)) return 'apps.detail.logoWrongType';
  if (file.size > appLimits.logoBytes) return 'apps.detail.logoTooLarge';
  return undefined;
}

/** A complete http(s) address without user info (a home page, a form's login page, an app's base). */
export function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password;
  } catch {
    return false;
  }
}

/**
 * The message for one login callback (or logout) address of a list: why the server would refuse
 * it (`redirectUriProblem`, the `app.redirect_uri_*` reasons), or a duplicate; undefined when fine.
 */
export function redirectUriMessage(
  t: TFunction,
  value: string,
  others: readonly string[],
): string | undefined {
  const problem = redirectUriProblem(value);
  if (problem) return t(`apps.redirectUri.${problem}`);
  if (others.includes(value)) return t('apps.redirectUri.duplicate');
  return undefined;
}

/** An antd rule for the entry `index` of the list field `listName`. */
export const redirectUriRule =
  (t: TFunction, listName: string, index: number): FormRule =>
  ({ getFieldValue }) => ({
    validator: async (_rule, value: unknown) => {
      const list = (getFieldValue(listName) as unknown[] | undefined) ?? [];
      const earlier = list.slice(0, index).filter((item): item is string => typeof item === 'string');
      const message = redirectUriMessage(t, typeof value === 'string' ? value : '', earlier);
      if (message) throw new Error(message);
    },
  });

/**
 * An app's back- or front-channel logout URI: empty, or an address under the rules of callback
 * URLs that a server or a browser frame can reach (http or https).
 */
export const logoutUriRule =
  (t: TFunction): FormRule =>
  () => ({
    validator: async (_rule, value: unknown) => {
      const uri = typeof value === 'string' ? value.trim() : '';
      if (!uri) return;
      const problem = redirectUriProblem(uri) ?? (/^https?:/i.test(uri) ? null : 'scheme');
      if (problem) throw new Error(t(`apps.redirectUri.${problem}`));
    },
  });

export const lifetimeKeys = ['authorizationCode', 'idToken', 'accessToken', 'refreshToken'] as const;
export type LifetimeKey = (typeof lifetimeKeys)[number];

/** The largest value of each lifetime, seconds (the smallest is `appLimits.lifetimeMin`). */
export const lifetimeMax: Record<LifetimeKey, number> = {
  authorizationCode: appLimits.authorizationCodeMax,
  idToken: appLimits.tokenMax,
  accessToken: appLimits.tokenMax,
  refreshToken: appLimits.refreshTokenMax,
};

/** Spec §9's recommended lifetimes: 60 / 1209600 / 1209600 / 2592000 seconds. */
export const recommendedLifetimes: Record<LifetimeKey, number> = { ...recommendedTokenLifetimes };

/** Why a lifetime is refused (spec §5: each is required, the access token's above all), or undefined. */
export function lifetimeMessage(t: TFunction, key: LifetimeKey, value: unknown): string | undefined {
  if (value === null || value === undefined || value === '') return t('apps.protocol.lifetimeRequired');
  const max = lifetimeMax[key];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < appLimits.lifetimeMin || value > max)
    return t('apps.protocol.lifetimeRange', { min: appLimits.lifetimeMin, max });
  return undefined;
}

export const lifetimeRule =
  (t: TFunction, key: LifetimeKey): FormRule =>
  () => ({
    validator: async (_rule, value: unknown) => {
      const message = lifetimeMessage(t, key, value);
      if (message) throw new Error(message);
    },
  });
