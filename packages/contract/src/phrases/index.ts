import type { Language } from '../constants.ts';
import { en, type ServerPhrases } from './en.ts';
import { zh } from './zh.ts';

export const serverPhrases: Record<Language, ServerPhrases> = { en, zh };
export type { ServerPhrases };

/** Replaces `{name}` placeholders with the given values. */
export function interpolate(template: string, values: Record<string, string | number> = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in values ? String(values[name]) : whole,
  );
}
