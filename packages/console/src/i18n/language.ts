import { type Language, languages } from '@tessera/contract/shell-constants';

/** The cookie the console and the server's sign-in pages both read. */
export const LANGUAGE_COOKIE = 'lang';
const ONE_YEAR_SECONDS = 365 * 24 * 3600;

/** The console's languages: the contract's list. */
export const consoleLanguages: readonly Language[] = languages;

/** `zh-CN` → `zh`, `en-GB` → `en`, anything else → undefined. */
export function languageOfTag(tag: string | undefined): Language | undefined {
  const value = tag?.trim().toLowerCase();
  if (!value) return undefined;
  return consoleLanguages.find((lang) => value === lang || value.startsWith(`${lang}-`));
}

export function readCookie(cookieHeader: string, name: string): string | undefined {
  for (const part of cookieHeader.split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) {
      try {
        return decodeURIComponent(part.slice(index + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** Spec §9: the `lang` cookie first, then the browser's languages in order, then English. */
export function detectLanguage(cookieHeader: string, browserLanguages: readonly string[]): Language {
  const fromCookie = languageOfTag(readCookie(cookieHeader, LANGUAGE_COOKIE));
  if (fromCookie) return fromCookie;
  for (const tag of browserLanguages) {
    const lang = languageOfTag(tag);
    if (lang) return lang;
  }
  return 'en';
}

export const languageCookie = (lang: Language): string =>
  `${LANGUAGE_COOKIE}=${lang}; path=/; max-age=${ONE_YEAR_SECONDS}; samesite=lax`;
