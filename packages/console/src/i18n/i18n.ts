import type { Language } from '@tessera/contract/shell-constants';
import type { Locale } from 'antd/es/locale';
import enUS from 'antd/es/locale/en_US';
import i18next, { type Resource } from 'i18next';
import { initReactI18next } from 'react-i18next';
import type { Phrases } from './en/index.ts';
import { enShell, type ShellPhrases } from './en/shell.ts';
import { detectLanguage, languageCookie } from './language.ts';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: Phrases };
  }
}

/** A console language's shell: its shell phrases (see en/shell.ts) and antd's locale. */
export interface LanguageBundle {
  phrases: ShellPhrases;
  antdLocale: Locale;
}

/**
 * English's shell is bundled (English is also the fallback); every other language's shell is its
 * own chunk, loaded before it is shown, so the first load carries one language only. The other
 * namespaces come with their screens (`withPhrases`).
 */
const languageLoaders: Record<Exclude<Language, 'en'>, () => Promise<LanguageBundle>> = {
  zh: async () => (await import('./zh/bundle.ts')).bundle,
};
const loaded: Partial<Record<Language, LanguageBundle>> = { en: { phrases: enShell, antdLocale: enUS } };
const resources: Resource = { en: { translation: { ...enShell } } };

/** Adds phrases of a language (to i18next once it runs, before that to its start resources). */
function addPhrases(lang: Language, phrases: Partial<Phrases>) {
  if (i18next.isInitialized) i18next.addResourceBundle(lang, 'translation', phrases, true, true);
  resources[lang] = { translation: { ...(resources[lang]?.translation as object | undefined), ...phrases } };
}

/** Loads a language's shell phrases and antd's locale (at once for English). */
export async function loadLanguage(lang: Language): Promise<void> {
  if (loaded[lang]) return;
  const bundle = await languageLoaders[lang as Exclude<Language, 'en'>]();
  loaded[lang] = bundle;
  addPhrases(lang, bundle.phrases);
}

/** The namespaces that are not in the shell: each is loaded with the screens that use it. */
export type ScreenNamespace = Exclude<keyof Phrases, keyof ShellPhrases>;

/** One chunk per screen namespace and language (a namespace missing here fails the type check). */
const namespaceLoaders: { [L in Language]: { [N in ScreenNamespace]: () => Promise<Phrases[N]> } } = {
  en: {
    about: async () => (await import('./en/about.ts')).about,
    apps: async () => (await import('./en/apps.ts')).apps,
    devices: async () => (await import('./en/devices.ts')).devices,
    brand: async () => (await import('./en/brand.ts')).brand,
    ca: async () => (await import('./en/ca.ts')).ca,
    dashboardPanels: async () => (await import('./en/dashboard-panels.ts')).dashboardPanels,
    license: async () => (await import('./en/license.ts')).license,
    log: async () => (await import('./en/log.ts')).log,
    org: async () => (await import('./en/org.ts')).org,
    permission: async () => (await import('./en/permission.ts')).permission,
    radius: async () => (await import('./en/radius.ts')).radius,
    safety: async () => (await import('./en/safety.ts')).safety,
    settings: async () => (await import('./en/settings.ts')).settings,
    setup: async () => (await import('./en/setup.ts')).setup,
    sources: async () => (await import('./en/sources.ts')).sources,
  },
  zh: {
    about: async () => (await import('./zh/about.ts')).about,
    apps: async () => (await import('./zh/apps.ts')).apps,
    devices: async () => (await import('./zh/devices.ts')).devices,
    brand: async () => (await import('./zh/brand.ts')).brand,
    ca: async () => (await import('./zh/ca.ts')).ca,
    dashboardPanels: async () => (await import('./zh/dashboard-panels.ts')).dashboardPanels,
    license: async () => (await import('./zh/license.ts')).license,
    log: async () => (await import('./zh/log.ts')).log,
    org: async () => (await import('./zh/org.ts')).org,
    permission: async () => (await import('./zh/permission.ts')).permission,
    radius: async () => (await import('./zh/radius.ts')).radius,
    safety: async () => (await import('./zh/safety.ts')).safety,
    settings: async () => (await import('./zh/settings.ts')).settings,
    setup: async () => (await import('./zh/setup.ts')).setup,
    sources: async () => (await import('./zh/sources.ts')).sources,
  },
};
/** Screen namespaces asked for so far: a language switch loads them all in the new language. */
const wantedNamespaces = new Set<ScreenNamespace>();
const namespaceLoads = new Map<string, Promise<void>>();
/** The language a running `switchLanguage` moves to: screens opened meanwhile load it too. */
let switchingTo: Language | undefined;

function loadNamespace(lang: Language, ns: ScreenNamespace): Promise<void> {
  const key = `${lang}:${ns}`;
  let load = namespaceLoads.get(key);
  if (!load) {
    load = namespaceLoaders[lang][ns]().then((phrases) => addPhrases(lang, { [ns]: phrases }));
    // A failed load (network) is tried again the next time.
    load.catch(() => namespaceLoads.delete(key));
    namespaceLoads.set(key, load);
  }
  return load;
}

/** Loads screen namespaces in the shown language (and in the one being switched to). */
export async function loadPhrases(namespaces: readonly ScreenNamespace[]): Promise<void> {
  for (const ns of namespaces) wantedNamespaces.add(ns);
  const langs = new Set<Language>([currentLanguage()]);
  if (switchingTo) langs.add(switchingTo);
  await Promise.all([...langs].flatMap((lang) => namespaces.map((ns) => loadNamespace(lang, ns))));
}

/**
 * A screen loader that also loads the screen's phrase namespaces, so the screen (and the modals
 * and parts it loads later) finds its phrases at hand:
 * `screen: withPhrases('org', () => import('./users.page.tsx').then((m) => m.UsersPage))`.
 */
export const withPhrases =
  <T>(namespaces: ScreenNamespace | readonly ScreenNamespace[], load: () => Promise<T>) =>
  async (): Promise<T> => {
    const [screen] = await Promise.all([
      load(),
      loadPhrases(typeof namespaces === 'string' ? [namespaces] : namespaces),
    ]);
    return screen;
  };

/** antd's locale for a language (English until the language is loaded). */
export const antdLocaleOf = (lang: string): Locale =>
  (loaded[lang as Language] ?? (loaded.en as LanguageBundle)).antdLocale;

export const detectedLanguage = (): Language => detectLanguage(document.cookie, navigator.languages ?? []);

/**
 * Starts i18next in a language; call `loadLanguage` first for any language but English (the
 * phrases of loaded languages are at hand, so this is synchronous).
 */
export function initI18n(lang: Language = detectedLanguage()) {
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
  switchingTo = lang;
  try {
    // The new language's shell and every screen namespace loaded so far, before anything shows it.
    await Promise.all([loadLanguage(lang), ...[...wantedNamespaces].map((ns) => loadNamespace(lang, ns))]);
    // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API needs a secure context, and the console also runs over plain HTTP on internal addresses.
    document.cookie = languageCookie(lang);
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
    await i18next.changeLanguage(lang);
  } finally {
    if (switchingTo === lang) switchingTo = undefined;
  }
}
