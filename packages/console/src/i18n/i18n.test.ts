import i18next from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import { en } from './en/index.ts';
import { enShell } from './en/shell.ts';
import { initI18n, loadPhrases, switchLanguage, withPhrases } from './i18n.ts';
import { zh } from './zh/index.ts';

describe('phrases loaded with their screens', () => {
  beforeAll(() => {
    initI18n('en');
  });

  it('starts with the shell only', () => {
    expect(i18next.t('layout.menu')).toBe(en.layout.menu);
    expect(i18next.exists('org.users.title')).toBe(false);
    expect(Object.keys(enShell)).not.toContain('org');
  });

  it('loads a screen and its namespaces together', async () => {
    const load = withPhrases('org', async () => 'the screen');
    expect(await load()).toBe('the screen');
    expect(i18next.t('org.users.title')).toBe(en.org.users.title);
    expect(i18next.exists('settings.basicTitle')).toBe(false);
  });

  it('switches language only once the shell and every loaded namespace are there', async () => {
    const seen: string[] = [];
    const onChange = () => seen.push(i18next.t('org.users.title'), i18next.t('layout.menu'));
    i18next.on('languageChanged', onChange);
    await switchLanguage('zh');
    i18next.off('languageChanged', onChange);
    expect(seen).toEqual([zh.org.users.title, zh.layout.menu]);
    expect(document.cookie).toContain('zh');
  });

  it('loads the namespaces of later screens in the current language', async () => {
    await loadPhrases(['settings']);
    expect(i18next.t('settings.basicTitle')).toBe(zh.settings.basicTitle);
  });

  it('loads a screen opened during a switch in both languages', async () => {
    const switching = switchLanguage('en');
    await withPhrases(['about', 'license'], async () => null)();
    await switching;
    expect(i18next.language).toBe('en');
    expect(i18next.t('about.version')).toBe(en.about.version);
    expect(i18next.getResource('zh', 'translation', 'about')).toEqual(zh.about);
    expect(i18next.getResource('zh', 'translation', 'license')).toEqual(zh.license);
    expect(i18next.getResource('en', 'translation', 'license')).toEqual(en.license);
    expect(i18next.getResource('en', 'translation', 'settings')).toEqual(en.settings);
  });
});
