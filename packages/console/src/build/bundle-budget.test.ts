import { describe, expect, it } from 'vitest';
import {
  consoleBudget,
  findForbidden,
  formatReport,
  htmlScripts,
  KIB,
  type Manifest,
  measureBundle,
  staticClosure,
} from './bundle-budget.ts';

const manifest: Manifest = {
  'index.html': { file: 'assets/index.js', src: 'index.html', isEntry: true, imports: ['_vendor.js'] },
  '_vendor.js': { file: 'assets/vendor.js' },
  '_shared.js': { file: 'assets/shared.js', imports: ['_vendor.js'] },
  '_root.js': {
    file: 'assets/root.js',
    name: 'root',
    isDynamicEntry: true,
    imports: ['index.html', '_shared.js'],
  },
  'src/layout.tsx': {
    file: 'assets/layout.js',
    src: 'src/layout.tsx',
    isDynamicEntry: true,
    imports: ['_shared.js'],
    css: ['assets/layout.css'],
  },
  'src/a.tsx': {
    file: 'assets/a.js',
    src: 'src/a.tsx',
    isDynamicEntry: true,
    imports: ['_shared.js', '_table.js'],
  },
  'src/b.tsx': { file: 'assets/b.js', src: 'src/b.tsx', isDynamicEntry: true, imports: ['_table.js'] },
  '_table.js': { file: 'assets/table.js', imports: ['_vendor.js'] },
};
const sizes: Record<string, number> = {
  'assets/index.js': 150 * KIB,
  'assets/vendor.js': 30 * KIB,
  'assets/preloaded.js': 5 * KIB,
  'assets/shared.js': 40 * KIB,
  'assets/root.js': 20 * KIB,
  'assets/layout.js': 10 * KIB,
  'assets/layout.css': 2 * KIB,
  'assets/a.js': 15 * KIB,
  'assets/b.js': 1 * KIB,
  'assets/table.js': 90 * KIB,
};
const html = `<!doctype html><html><head>
  <script type="module" crossorigin src="/console/assets/index.js"></script>
  <link rel="modulepreload" crossorigin href="/console/assets/preloaded.js">
  <link rel="icon" href="/console/favicon.svg">
  <script src="https://example.com/analytics.js"></script>
</head></html>`;
const sizeOf = (file: string) => sizes[file] ?? 0;

describe('bundle budget', () => {
  it('reads the module scripts and preloads of index.html, without the base', () => {
    expect(htmlScripts(html, '/console/')).toEqual(['assets/index.js', 'assets/preloaded.js']);
  });

  it('follows static imports transitively, once each', () => {
    expect([...staticClosure(manifest, ['src/a.tsx'])].sort()).toEqual(
      ['_shared.js', '_table.js', '_vendor.js', 'src/a.tsx'].sort(),
    );
  });

  it('counts the entry, its imports and what index.html preloads first', () => {
    const { firstLoad, total } = measureBundle({ manifest, html, base: '/console/', sizeOf });
    expect(firstLoad).toHaveLength(1);
    expect(firstLoad[0]).toMatchObject({
      name: 'entry + index.html',
      files: ['assets/index.js', 'assets/preloaded.js', 'assets/vendor.js'],
      bytes: 185 * KIB,
    });
    expect(total).toMatchObject({ bytes: 185 * KIB, limit: consoleBudget.firstLoadBytes, over: false });
  });

  it('adds the landing routes in order, each file once, with their stylesheets, and checks the sum', () => {
    const { firstLoad, total, lazy } = measureBundle({
      manifest,
      html,
      base: '/console/',
      sizeOf,
      firstLoad: ['root', 'src/layout.tsx', 'src/b.tsx'],
    });
    expect(firstLoad.map((row) => [row.name, row.files, row.bytes / KIB])).toEqual([
      ['entry + index.html', ['assets/index.js', 'assets/preloaded.js', 'assets/vendor.js'], 185],
      ['root', ['assets/root.js', 'assets/shared.js'], 60],
      ['src/layout.tsx', ['assets/layout.css', 'assets/layout.js'], 12],
      ['src/b.tsx', ['assets/b.js', 'assets/table.js'], 91],
    ]);
    expect(firstLoad.every((row) => row.limit === undefined && !row.over)).toBe(true);
    expect(total).toMatchObject({ bytes: 348 * KIB, over: true });
    expect(total.files).toHaveLength(9);
    // The rest is charged for what it adds to all of that.
    expect(lazy.map((row) => [row.name, row.bytes / KIB])).toEqual([['src/a.tsx', 15]]);
  });

  it('charges every other lazy chunk for what it adds to the first load, largest first', () => {
    const { lazy } = measureBundle({ manifest, html, base: '/console/', sizeOf });
    expect(lazy.map((row) => [row.name, row.bytes / KIB, row.over])).toEqual([
      ['src/a.tsx', 145, true],
      ['src/b.tsx', 91, false],
      ['root', 60, false],
      ['src/layout.tsx', 52, false],
    ]);
    expect(lazy.find((row) => row.name === 'src/b.tsx')?.files).toEqual(['assets/b.js', 'assets/table.js']);
  });

  it('names a route that is not in the build', () => {
    expect(() => measureBundle({ manifest, html, base: '/console/', sizeOf, firstLoad: ['nope'] })).toThrow(
      /nope/,
    );
  });

  it('prints the first load, its total against the budget, then the lazy chunks', () => {
    const report = formatReport(
      measureBundle({ manifest, html, base: '/console/', sizeOf, firstLoad: ['root'] }),
    ).split('\n');
    expect(report).toHaveLength(2 + 2 + 1 + 1 + 3);
    expect(report[2]).toMatch(/^ {2}entry \+ index\.html\s+3\s+185\.0 KiB$/);
    expect(report[4]).toMatch(/^first load \(total\)\s+5\s+245\.0 KiB\s+200\.0 KiB\s+OVER$/);
    expect(report[6]).toMatch(/^src\/a\.tsx\s+2\s+105\.0 KiB\s+100\.0 KiB\s+OVER$/);
  });

  it('measures the first load in every other language: its shell chunk on top, against the same budget', () => {
    const withChinese: Manifest = {
      ...manifest,
      'src/zh.ts': {
        file: 'assets/zh.js',
        src: 'src/zh.ts',
        isDynamicEntry: true,
        imports: ['_vendor.js', '_zh-locale.js'],
      },
      '_zh-locale.js': { file: 'assets/zh-locale.js' },
    };
    const chinese: Record<string, number> = { 'assets/zh.js': 3 * KIB, 'assets/zh-locale.js': 14 * KIB };
    const result = measureBundle({
      manifest: withChinese,
      html,
      base: '/console/',
      sizeOf: (file) => chinese[file] ?? sizeOf(file),
      firstLoadLanguage: 'en',
      otherLanguages: { zh: ['src/zh.ts'] },
    });
    expect(result.total).toMatchObject({ name: 'first load (en)', bytes: 185 * KIB, over: false });
    // The vendor chunk is in the first load already: only the Chinese files are added.
    expect(
      result.languages.map(({ added, total }) => [added.name, added.files, added.bytes / KIB, total.name]),
    ).toEqual([['+ src/zh.ts (zh)', ['assets/zh-locale.js', 'assets/zh.js'], 17, 'first load (zh)']]);
    expect(result.languages[0]?.total).toMatchObject({
      bytes: 202 * KIB,
      limit: consoleBudget.firstLoadBytes,
      over: true,
    });
    expect(result.languages[0]?.total.files).toHaveLength(5);
    // Not a lazy chunk any more.
    expect(result.lazy.map((row) => row.name)).not.toContain('src/zh.ts');

    const report = formatReport(result).split('\n');
    expect(report.slice(2, 6).map((line) => line.replace(/(\S)\s+/g, '$1 '))).toEqual([
      '  entry + index.html 3 185.0 KiB',
      'first load (en) 3 185.0 KiB 200.0 KiB ok',
      '  + src/zh.ts (zh) 2 17.0 KiB',
      'first load (zh) 5 202.0 KiB 200.0 KiB OVER',
    ]);
    expect(report[6]).toMatch(/^-+/);
  });

  it('finds zod in a bundled file by the class names it registers', () => {
    const files: Record<string, string> = {
      'assets/zod.js': 'const a=r("$ZodType",(e,t)=>{});',
      'assets/app.js': 'const z = "plain $Zod text";',
    };
    expect(findForbidden(Object.keys(files), (file) => files[file] ?? '')).toEqual([
      { file: 'assets/zod.js', name: 'zod' },
    ]);
  });
});
