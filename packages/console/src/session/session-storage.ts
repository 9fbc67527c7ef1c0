import { type ConsoleVariant, storageKeys } from '@tessera/contract/shell-constants';
import type { ApiResponse } from '../api/http-client.ts';

export type CompanyListItem = NonNullable<ApiResponse<'/api/v1/manage/company/my/list'>['list']>[number];
/** The server's answer with a console token (sign-in and refresh). */
export type TokenAnswer = ApiResponse<'/api/v1/dev/oidc/token'>;
/**
 * Times (ms since the epoch) of the stored token: written `at`; stops working at `idleAt` unless
 * refreshed or used; its session ends at `absoluteAt` whatever happens.
 */
export interface TokenExpiry {
  at: number;
  idleAt: number;
  absoluteAt: number;
}

/**
 * Which console variant the stored token belongs to. Both consoles share one origin and the
 * spec's single token key, so a developer-console token must not be taken for a platform one.
 */
export const TOKEN_VARIANT_KEY = storageKeys.tokenVariant;

/** The browser storage the console keeps its session in (spec §3). */
export function createSessionStorage(local: Storage) {
  return {
    readToken(variant: ConsoleVariant): string | null {
      const token = local.getItem(storageKeys.token);
      if (!token) return null;
      const owner = local.getItem(TOKEN_VARIANT_KEY);
      return owner === null || owner === variant ? token : null;
    },
    writeToken({ token, username, expiresIn, sessionExpiresIn }: TokenAnswer, variant: ConsoleVariant) {
      local.setItem(storageKeys.token, token);
      local.setItem(TOKEN_VARIANT_KEY, variant);
      local.setItem(storageKeys.name, username);
      const at = Date.now();
      const expiry: TokenExpiry = {
        at,
        idleAt: at + expiresIn * 1000,
        absoluteAt: at + sessionExpiresIn * 1000,
      };
      // Last: the other tabs take the new token on this key's storage event (keepalive.ts).
      local.setItem(storageKeys.tokenExpiry, JSON.stringify(expiry));
    },
    readUsername(): string {
      return local.getItem(storageKeys.name) ?? '';
    },
    readCompany(): { companyId: string | null; name: string | null } {
      return {
        companyId: local.getItem(storageKeys.companyId),
        name: local.getItem(storageKeys.companyName),
      };
    },
    writeCompany(item: CompanyListItem) {
      local.setItem(storageKeys.companyId, item.companyId);
      local.setItem(storageKeys.companyName, item.name);
      local.setItem(storageKeys.companyOwner, item.isOwner ? '1' : '0');
      if (item.icon) local.setItem(storageKeys.companyIcon, item.icon);
      else local.removeItem(storageKeys.companyIcon);
    },
    /** Token, name and company keys; the language cookie stays. */
    clear() {
      for (const key of Object.values(storageKeys)) local.removeItem(key);
      local.removeItem(TOKEN_VARIANT_KEY);
    },
  };
}

export type SessionStorageApi = ReturnType<typeof createSessionStorage>;
