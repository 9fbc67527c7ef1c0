import type { Language } from '../constants.ts';
import { en, type ServerPhrases } from './en.ts';
import { zhFieldNames } from './field-names.ts';
import { zh } from './zh.ts';

export const serverPhrases: Record<Language, ServerPhrases> = { en, zh };
export type { ServerPhrases };
export { zhFieldNames };

/** Replaces `{name}` placeholders with the given values. */
export function interpolate(template: string, values: Record<string, string | number> = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in values ? String(values[name]) : whole,
  );
}

/**
 * A request field as a validation message names it in `lang`: English keeps the API's own name;
 * Chinese names the field's last named part ("lifetimes.accessToken" -> 访问令牌), or the path
 * as sent when it has no name yet.
 */
export function fieldNameIn(lang: Language, path: string): string {
  if (lang === 'en') return path;
  const named = path.split('.').filter((part) => !/^\d+$/.test(part));
  return zhFieldNames[named.at(-1) ?? ''] ?? path;
}
