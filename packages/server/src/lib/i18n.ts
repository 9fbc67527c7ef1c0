import {
  fieldNameIn,
  interpolate,
  type Language,
  type ServerPhrases,
  serverPhrases,
} from '@tessera/contract';

const fromTag = (tag: string | undefined): Language | undefined => {
  const value = tag?.trim().toLowerCase();
  if (!value) return undefined;
  if (value.startsWith('zh')) return 'zh';
  if (value.startsWith('en')) return 'en';
  return undefined;
};

/** The first language of an OIDC `ui_locales` parameter (space-separated tags) that the pages speak. */
export function languageOfUiLocales(uiLocales: unknown): Language | undefined {
  if (typeof uiLocales !== 'string') return undefined;
  for (const tag of uiLocales.split(' ').slice(0, 10)) {
    const lang = fromTag(tag);
    if (lang) return lang;
  }
  return undefined;
}

/**
 * `lang` cookie first (the person's own choice), then the application's `ui_locales` (OIDC
 * Core §3.1.2.1), then Accept-Language, then English.
 */
export function pickLanguage(
  cookieLang: string | undefined,
  acceptLanguage: string | undefined,
  uiLocales?: unknown,
): Language {
  const fromCookie = fromTag(cookieLang) ?? languageOfUiLocales(uiLocales);
  if (fromCookie) return fromCookie;
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.find((p) => p.trim().startsWith('q='));
      return { tag, q: q ? Number(q.trim().slice(2)) || 0 : 1 };
    })
    .sort((a, b) => b.q - a.q);
  for (const { tag } of ranked) {
    const lang = fromTag(tag);
    if (lang) return lang;
  }
  return 'en';
}

export function translateError(
  lang: Language,
  reason: keyof ServerPhrases['errors'],
  params?: Record<string, string | number>,
): string {
  return interpolate(serverPhrases[lang].errors[reason], params);
}

export function translateValidation(
  lang: Language,
  key: keyof ServerPhrases['validation'],
  params: Record<string, string | number>,
): string {
  // Unknown keys are named as the caller sent them; every other field in the caller's language.
  const field = key === 'unrecognized_keys' ? params.field : fieldNameIn(lang, String(params.field ?? ''));
  return interpolate(serverPhrases[lang].validation[key], { ...params, field: field ?? '' });
}

/** Reads one cookie from a raw Cookie header (used where Fastify's parser has not run). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name)
      return decodeURIComponent(part.slice(index + 1).trim());
  }
  return undefined;
}
