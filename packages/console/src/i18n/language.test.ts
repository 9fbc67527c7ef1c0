import { describe, expect, it } from 'vitest';
import { detectLanguage, languageCookie, languageOfTag, readCookie } from './language.ts';

describe('detectLanguage (spec §9: cookie, then browser, then English)', () => {
  it('takes the lang cookie first', () => {
    expect(detectLanguage('theme=dark; lang=zh', ['en-US'])).toBe('zh');
    expect(detectLanguage('lang=en', ['zh-CN'])).toBe('en');
  });

  it('ignores a cookie value it does not know and uses the browser languages in order', () => {
    expect(detectLanguage('lang=fr', ['fr-FR', 'zh-TW', 'en'])).toBe('zh');
    expect(detectLanguage('', ['en-GB', 'zh-CN'])).toBe('en');
  });

  it('defaults to English', () => {
    expect(detectLanguage('', [])).toBe('en');
    expect(detectLanguage('lang=', ['de-DE', 'ja'])).toBe('en');
  });
});

describe('language helpers', () => {
  it('maps language tags to console languages', () => {
    expect(languageOfTag('zh-Hans-CN')).toBe('zh');
    expect(languageOfTag(' EN-us ')).toBe('en');
    expect(languageOfTag('zhx')).toBeUndefined();
    expect(languageOfTag(undefined)).toBeUndefined();
  });

  it('reads one cookie and survives bad encoding', () => {
    expect(readCookie('a=1; lang=zh; b=2', 'lang')).toBe('zh');
    expect(readCookie('xlang=zh', 'lang')).toBeUndefined();
    expect(readCookie('lang=%E0%A4%A', 'lang')).toBeUndefined();
  });

  it('writes a site-wide cookie that lasts a year, so the sign-in pages follow', () => {
    expect(languageCookie('zh')).toBe('lang=zh; path=/; max-age=31536000; samesite=lax');
  });
});
