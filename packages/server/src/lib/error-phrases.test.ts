import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isErrorReason, serverPhrases } from '@tessera/contract';
import { describe, expect, it } from 'vitest';
import { translateError } from './i18n.ts';

/**
 * Issue 35 item 21: a refusal showed its placeholders raw ("{algorithm} supports these key
 * strengths: {allowed}"). Every server phrase with placeholders names the same ones in both
 * languages, and every place that raises or translates such a reason passes a value for each.
 */

const placeholdersOf = (template: string) =>
  new Set([...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string));
const unfilled = /\{\w+\}/;
const packagesDir = fileURLToPath(new URL('../../..', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** The text of a call's arguments, from just after its opening parenthesis to the matching one. */
function argumentsAt(source: string, start: number): string {
  let depth = 1;
  let quote: string | undefined;
  for (let i = start; i < source.length; i++) {
    const char = source[i] as string;
    if (quote) {
      if (char === '\\') i++;
      else if (char === quote) quote = undefined;
    } else if (char === "'" || char === '"' || char === '`') quote = char;
    else if ('([{'.includes(char)) depth++;
    else if (')]}'.includes(char) && --depth === 0) return source.slice(start, i);
  }
  throw new Error(`unbalanced call at ${start}`);
}

interface Site {
  where: string;
  reason: string;
  /** The text of the arguments after the reason. */
  rest: string;
}

/** Calls that name a reason literally: `new AppError('reason', …)` and `translateError(lang, 'reason', …)`. */
function literalSites(): Site[] {
  const sites: Site[] = [];
  const call = /new AppError\(\s*'([\w.]+)'|translateError\(\s*[\w.]+,\s*'([\w.]+)'/g;
  for (const file of sourceFiles(join(packagesDir, 'server/src'))) {
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(call)) {
      const reason = (match[1] ?? match[2]) as string;
      const after = (match.index as number) + match[0].length;
      const line = source.slice(0, match.index).split('\n').length;
      sites.push({
        where: `${file.slice(packagesDir.length)}:${line}`,
        reason,
        rest: argumentsAt(source, after),
      });
    }
  }
  return sites;
}

/** Phrases whose braces are text, not placeholders: the LDAP template's own `{username}` marker. */
const literalBraces = new Set(['ldap.user_dn_template_invalid']);
const errorPhrases = serverPhrases.en.errors as Record<string, string>;
const withPlaceholders = Object.keys(errorPhrases).filter(
  (key) => !literalBraces.has(key) && placeholdersOf(errorPhrases[key] as string).size,
);

describe('server phrases with placeholders (issue 35 item 21)', () => {
  it('name the same placeholders in English and Chinese', () => {
    const differing: string[] = [];
    for (const [section, phrases] of Object.entries(serverPhrases.en)) {
      const zh = (serverPhrases.zh as unknown as Record<string, Record<string, string>>)[section] ?? {};
      for (const [key, template] of Object.entries(phrases as Record<string, string>)) {
        const en = [...placeholdersOf(template)].sort().join();
        const other = [...placeholdersOf(zh[key] ?? '')].sort().join();
        if (en !== other) differing.push(`${section}.${key}: en {${en}} zh {${other}}`);
      }
    }
    expect(differing).toEqual([]);
  });

  it('get a value for every placeholder wherever the server raises them, and read whole in both languages', () => {
    const sites = literalSites().filter((site) => withPlaceholders.includes(site.reason));
    // The walk finds the calls (the CA's strength refusal among them).
    expect(sites.map((site) => site.reason)).toContain('ca.strength_invalid');
    const missing: string[] = [];
    for (const site of sites) {
      const needed = [...placeholdersOf(errorPhrases[site.reason] as string)];
      // Given as `name: value` or shorthand `name` in an object literal; an object built beforehand
      // (a variable, a spread) is taken as given.
      const params = site.rest.replace(/^\s*,\s*/, '');
      const built = params !== '' && !params.startsWith('{');
      const given = needed.filter(
        (name) => built || new RegExp(`(\\{|,)\\s*(${name}\\b|\\.\\.\\.)`).test(params),
      );
      const absent = needed.filter((name) => !given.includes(name));
      if (absent.length) missing.push(`${site.where} ${site.reason}: no ${absent.join(', ')}`);
      const values = Object.fromEntries(given.map((name) => [name, 'x']));
      for (const lang of ['en', 'zh'] as const) {
        const message = translateError(lang, site.reason as never, values);
        if (!absent.length && unfilled.test(message)) missing.push(`${site.where} ${lang}: ${message}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('are never the refusal of a contract schema, which has no values to fill them with', () => {
    const schemaSites: string[] = [];
    for (const file of sourceFiles(join(packagesDir, 'contract/src'))) {
      if (/[\\/](phrases[\\/]|errors\.ts$)/.test(file)) continue;
      const source = readFileSync(file, 'utf8');
      for (const match of source.matchAll(/'([a-z_]+\.[\w.]+)'/g)) {
        const key = match[1] as string;
        if (isErrorReason(key) && withPlaceholders.includes(key))
          schemaSites.push(`${file.slice(packagesDir.length)}: ${key}`);
      }
    }
    expect(schemaSites).toEqual([]);
  });

  it('the CA refusal of a strength names the algorithm and its strengths in both languages', () => {
    for (const lang of ['en', 'zh'] as const) {
      const message = translateError(lang, 'ca.strength_invalid', {
        algorithm: 'ECC',
        allowed: 'P-256, P-384',
      });
      expect(message).toContain('ECC');
      expect(message).not.toMatch(unfilled);
    }
  });
});
