import { describe, expect, it } from 'vitest';
import { en } from './en/index.ts';
import { zh } from './zh/index.ts';

type Tree = { [key: string]: string | Tree };

function flatten(tree: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') out.set(path, value);
    else for (const [k, v] of flatten(value, path)) out.set(k, v);
  }
  return out;
}

const placeholders = (text: string) => [...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();

describe('phrases', () => {
  const english = flatten(en);
  const chinese = flatten(zh);

  it('have the same keys in English and Chinese', () => {
    const onlyEnglish = [...english.keys()].filter((key) => !chinese.has(key));
    const onlyChinese = [...chinese.keys()].filter((key) => !english.has(key));
    expect({ onlyEnglish, onlyChinese }).toEqual({ onlyEnglish: [], onlyChinese: [] });
  });

  it('are never empty', () => {
    const empty = [...english, ...chinese].filter(([, text]) => text.trim() === '').map(([key]) => key);
    expect(empty).toEqual([]);
  });

  it('use the same placeholders in both languages', () => {
    for (const [key, text] of english) {
      expect(placeholders(chinese.get(key) ?? ''), key).toEqual(placeholders(text));
    }
  });

  it('use identifiers as keys, not sentences', () => {
    // Segments are identifiers: camelCase, or a contract value as it is (new_country, otp_sm3).
    for (const key of english.keys()) expect(key).toMatch(/^[a-z][A-Za-z0-9_]*(\.[a-z][A-Za-z0-9_]*)*$/);
  });
});
