import { afterAll, beforeAll } from 'vitest';
import { initI18n } from '../i18n/i18n.ts';

/** English, in a wide window (the layout shows names beside its icons), for the tests of a file. */
export function englishInAWideWindow() {
  const matchMedia = window.matchMedia;
  beforeAll(() => {
    initI18n('en');
    window.matchMedia = (query: string) => ({ ...matchMedia(query), matches: true });
  });
  afterAll(() => {
    window.matchMedia = matchMedia;
  });
}
