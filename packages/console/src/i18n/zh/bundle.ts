import antdLocale from 'antd/es/locale/zh_CN';
import type { LanguageBundle } from '../i18n.ts';
import { zhShell } from './shell.ts';

/**
 * The Chinese shell: its own chunk, loaded only when Chinese is chosen or detected. The phrases
 * of other screens come with them (see `withPhrases` in ../i18n.ts).
 */
export const bundle: LanguageBundle = { phrases: zhShell, antdLocale };
