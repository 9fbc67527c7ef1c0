import type { Language } from '@tessera/contract';
import { en, type PortalPhrases } from './en.ts';
import { zh } from './zh.ts';

export const portalPhrases: Record<Language, PortalPhrases> = { en, zh };
export type { PortalPhrases };
