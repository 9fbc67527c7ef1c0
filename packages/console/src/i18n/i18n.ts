import type { Language } from '@tessera/contract';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import { en, type Phrases } from './en/index.ts';
import { detectLanguage, languageCookie } from './language.ts';
import { zh } from './zh/index.ts';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: Phrases };
  }
}

/** Every console language, each with the full phrase set (a missing one fails the type check). */
const resources = {
  en: { translation: en },
  zh: { translation: zh },
} satisfies Record<Language, { translation: Phrases }>;

/** Starts i18next in the detected language; the phrases are bundled, so this is synchronous. */
export function initI18n(lang: Language = detectLanguage(document.cookie, navigator.languages ?? [])) {
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  void i18next.use(initReactI18next).init({
    resources,
    lng: lang,
    fallbackLng: 'en',
    interpolation: { escapeValue: false },
    initAsync: false,
    returnNull: false,
  });
  return i18next;
}

export const currentLanguage = (): Language => (i18next.language === 'zh' ? 'zh' : 'en');

/** Switches the console and remembers the choice in the cookie the sign-in pages read too. */
export async function switchLanguage(lang: Language) {
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API needs a secure context, and the console also runs over plain HTTP on internal addresses.
  document.cookie = languageCookie(lang);
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  await i18next.changeLanguage(lang);
}
