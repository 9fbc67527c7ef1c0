import { describe, expect, it } from 'vitest';
import {
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

  it('counts the entry, its imports and what index.html preloads as the initial load', () => {
    const { initial } = measureBundle({ manifest, html, base: '/console/', sizeOf });
    expect(initial.files).toEqual(['assets/index.js', 'assets/preloaded.js', 'assets/vendor.js']);
    expect(initial.bytes).toBe(185 * KIB);
    expect(initial.over).toBe(false);
  });

  it('charges each lazy chunk for what it adds to the initial load', () => {
    const { lazy } = measureBundle({ manifest, html, base: '/console/', sizeOf });
    const byName = Object.fromEntries(lazy.map((row) => [row.name, row]));
    expect(byName['src/a.tsx']).toMatchObject({ bytes: 145 * KIB, over: true });
    expect(byName['src/b.tsx']?.files).toEqual(['assets/b.js', 'assets/table.js']);
    expect(byName.root?.bytes).toBe(60 * KIB);
  });

  it('charges screens nested in the shell only for what they add to it', () => {
    const { lazy } = measureBundle({
      manifest,
      html,
      base: '/console/',
      sizeOf,
      shell: ['root', 'src/layout.tsx'],
    });
    expect(lazy.map((row) => [row.name, row.bytes / KIB])).toEqual([
      ['root (shell)', 60],
      ['src/layout.tsx (shell)', 10],
      ['src/a.tsx', 105],
      ['src/b.tsx', 91],
    ]);
    expect(lazy.filter((row) => row.over).map((row) => row.name)).toEqual(['src/a.tsx']);
    expect(() => measureBundle({ manifest, html, base: '/console/', sizeOf, shell: ['nope'] })).toThrow(
      /nope/,
    );
  });

  it('prints one row per chunk with OVER where the budget is exceeded', () => {
    const report = formatReport(measureBundle({ manifest, html, base: '/console/', sizeOf }));
    expect(report.split('\n')).toHaveLength(2 + 1 + 4);
    expect(report).toMatch(/src\/a\.tsx\s+3\s+145\.0 KiB\s+100\.0 KiB\s+OVER/);
    expect(report).toMatch(/initial \(entry \+ index\.html\)\s+3\s+185\.0 KiB\s+200\.0 KiB\s+ok/);
  });
});
