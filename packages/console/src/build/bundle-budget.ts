/**
 * The size budget of the console build (used by scripts/check-size.ts). Pure, so it is unit
 * tested.
 *
 * First load: everything the browser must download before the first screen shows, each file
 * once: the entry and what index.html loads or preloads, then the routes the router loads for
 * the landing page (the session root, the layout, the landing screen), each with the static
 * imports it needs, and the stylesheets of all of them. That is the first load in the bundled
 * language; a visitor in another language also loads that language's shell chunk before the
 * first render, so each other language has its own first load, checked against the same budget.
 * Every other lazily loaded chunk (the other screens, antd's App for messages and dialogs) is
 * charged for what it adds on top of the first load.
 */

/**
 * The routes the router loads for the landing page (/ leads to the dashboard), outermost first:
 * the session root, the layout, the dashboard screen (see src/app/routes.tsx).
 */
export const firstLoadRoutes = [
  'src/app/console-root.tsx',
  'src/layout/console.layout.tsx',
  'src/pages/dashboard/dashboard.page.tsx',
] as const;
/** What a visitor in another language loads before the first render (src/main.tsx, i18n/i18n.ts). */
export const otherLanguageShells = { zh: ['src/i18n/zh/bundle.ts'] } as const;

/** One entry of Vite's build manifest (dist/.vite/manifest.json). */
export interface ManifestChunk {
  file: string;
  src?: string;
  name?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  /** The stylesheets the chunk brings (loaded with it, so charged with it). */
  css?: string[];
}
export type Manifest = Record<string, ManifestChunk>;

export interface Budget {
  /** gzip bytes allowed for the first load. */
  firstLoadBytes: number;
  /** gzip bytes allowed for each lazy chunk with the static imports it adds to the first load. */
  lazyBytes: number;
  /**
   * Lazy chunks (by source path) with a budget of their own instead of `lazyBytes`: parts loaded
   * after a screen has painted, whose library alone is larger than a screen's budget.
   */
  ownLazyBytes?: Readonly<Record<string, number>>;
}

export const KIB = 1024;
/** The requirement: at most 200 KiB gzip before the first screen, at most 100 KiB per lazy screen. */
export const consoleBudget: Budget = {
  firstLoadBytes: 200 * KIB,
  lazyBytes: 100 * KIB,
  ownLazyBytes: {
    // The dashboard's charts, loaded after the dashboard has painted its figures: ECharts' core
    // and canvas renderer alone are about 130 KiB gzip (tree-shaken to line, bar, pie and map).
    'src/pages/dashboard/chart.panels.tsx': 240 * KIB,
  },
};

export interface Measured {
  name: string;
  files: string[];
  bytes: number;
  /** The budget of the row; absent for the parts of the first load (their sum has one). */
  limit?: number;
  over: boolean;
}

export interface Measurement {
  /** The parts of the first load, in loading order, each with the files it adds. */
  firstLoad: Measured[];
  /** The whole first load (in the bundled language), against its budget. */
  total: Measured;
  /**
   * The first load in each other language: what that language's visitor loads in addition
   * before the first render, and the whole, against the first-load budget.
   */
  languages: Array<{ added: Measured; total: Measured }>;
  /** Every other lazily loaded chunk, with what it adds to the first load; largest first. */
  lazy: Measured[];
}

/**
 * The JavaScript files index.html loads or preloads (module scripts and modulepreload links),
 * as paths inside dist (the `base` prefix removed).
 */
export function htmlScripts(html: string, base: string): string[] {
  const out = new Set<string>();
  const tags = html.match(/<(?:script|link)\b[^>]*>/gi) ?? [];
  for (const tag of tags) {
    const isScript = /^<script/i.test(tag) && /\btype=["']?module["']?/i.test(tag);
    const isPreload = /^<link/i.test(tag) && /\brel=["']?modulepreload["']?/i.test(tag);
    const url = tag.match(/\b(?:src|href)=["']?([^"'\s>]+)/i)?.[1];
    if (!(isScript || isPreload) || !url || /^[a-z]+:\/\//i.test(url)) continue;
    const path = url.startsWith(base) ? url.slice(base.length) : url.replace(/^\//, '');
    out.add(path);
  }
  return [...out];
}

/** The manifest keys `keys` load statically: themselves and their `imports`, transitively. */
export function staticClosure(manifest: Manifest, keys: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...keys];
  while (queue.length) {
    const key = queue.pop() as string;
    if (seen.has(key) || !manifest[key]) continue;
    seen.add(key);
    queue.push(...(manifest[key].imports ?? []));
  }
  return seen;
}

const chunkName = (key: string, chunk: ManifestChunk) => chunk.src ?? chunk.name ?? key;

/**
 * The manifest key of a chunk given by key, source path or name. A module that other chunks
 * import too is keyed by its chunk file and has no `src`; it is found by its name (the source
 * file's name without the extension).
 */
function findChunk(manifest: Manifest, wanted: string): string {
  const name = wanted.replace(/^.*\//, '').replace(/\.[^.]+$/, '');
  const keys = Object.keys(manifest);
  const key =
    keys.find((k) => k === wanted || manifest[k]?.src === wanted) ??
    keys.find((k) => manifest[k]?.isDynamicEntry && manifest[k]?.name === name);
  if (!key) throw new Error(`the chunk ${wanted} is not in the manifest`);
  return key;
}

/**
 * Measures a build. `firstLoad` names the routes loaded before the first screen shows (chunk
 * names, source paths or manifest keys), outermost first and ending with the landing screen;
 * each is charged for the files it adds to what comes before it, and the total is checked
 * against the budget. Every other dynamic entry is charged for what it adds to the whole first
 * load.
 */
export function measureBundle(input: {
  manifest: Manifest;
  html: string;
  base: string;
  /** gzip size of a file in dist. */
  sizeOf(file: string): number;
  firstLoad?: readonly string[];
  /**
   * Chunks fetched when the browser is idle after the first paint: each is charged as a lazy
   * chunk, and the other lazy chunks only for what they add to the first load and these.
   */
  prefetched?: readonly string[];
  /** The language the first load carries (names its total: "first load (en)"). */
  firstLoadLanguage?: string;
  /**
   * For each other language, the chunks its visitor loads before the first render (its shell
   * phrases): charged with the first load, not as lazy chunks.
   */
  otherLanguages?: Readonly<Record<string, readonly string[]>>;
  budget?: Budget;
}): Measurement {
  const {
    manifest,
    sizeOf,
    budget = consoleBudget,
    firstLoad = [],
    prefetched = [],
    firstLoadLanguage,
    otherLanguages = {},
  } = input;
  const filesOf = (key: string) => {
    const chunk = manifest[key] as ManifestChunk;
    return [chunk.file, ...(chunk.css ?? [])];
  };
  const sum = (files: Iterable<string>) => [...files].reduce((sum, file) => sum + sizeOf(file), 0);
  const measured = (name: string, files: Set<string>, limit?: number): Measured => {
    const bytes = sum(files);
    return { name, files: [...files].sort(), bytes, limit, over: limit !== undefined && bytes > limit };
  };
  const adds = (keys: readonly string[], loaded: ReadonlySet<string>) =>
    new Set([...staticClosure(manifest, keys)].flatMap(filesOf).filter((file) => !loaded.has(file)));

  const entries = Object.keys(manifest).filter((key) => manifest[key]?.isEntry);
  const initial = adds(entries, new Set());
  for (const file of input.html ? htmlScripts(input.html, input.base) : []) initial.add(file);
  const loaded = new Set(initial);
  const parts = [measured('entry + index.html', initial)];
  const routeKeys = firstLoad.map((wanted) => findChunk(manifest, wanted));
  for (const key of routeKeys) {
    const files = adds([key], loaded);
    parts.push(measured(chunkName(key, manifest[key] as ManifestChunk), files));
    for (const file of files) loaded.add(file);
  }
  const total = measured(`first load (${firstLoadLanguage ?? 'total'})`, loaded, budget.firstLoadBytes);
  const languageKeys: string[] = [];
  const languages = Object.entries(otherLanguages).map(([language, chunks]) => {
    const keys = chunks.map((wanted) => findChunk(manifest, wanted));
    languageKeys.push(...keys);
    const added = adds(keys, loaded);
    const name = keys.map((key) => chunkName(key, manifest[key] as ManifestChunk)).join(', ');
    return {
      added: measured(`+ ${name} (${language})`, added),
      total: measured(`first load (${language})`, new Set([...loaded, ...added]), budget.firstLoadBytes),
    };
  });
  const prefetchKeys = prefetched.map((wanted) => findChunk(manifest, wanted));
  const prefetchRows: Measured[] = [];
  for (const key of prefetchKeys) {
    const files = adds([key], loaded);
    prefetchRows.push(
      measured(
        `${chunkName(key, manifest[key] as ManifestChunk)} (prefetched when idle)`,
        files,
        budget.lazyBytes,
      ),
    );
    for (const file of files) loaded.add(file);
  }
  const lazy = Object.keys(manifest)
    .filter(
      (key) =>
        manifest[key]?.isDynamicEntry &&
        !routeKeys.includes(key) &&
        !prefetchKeys.includes(key) &&
        !languageKeys.includes(key),
    )
    .map((key) =>
      measured(
        chunkName(key, manifest[key] as ManifestChunk),
        adds([key], loaded),
        budget.ownLazyBytes?.[key] ?? budget.lazyBytes,
      ),
    )
    .sort((a, b) => b.bytes - a.bytes);
  return { firstLoad: parts, total, languages, lazy: [...prefetchRows, ...lazy] };
}

/** A plain-text table of the measurements. */
export function formatReport({ firstLoad, total, languages = [], lazy }: Measurement): string {
  const kib = (bytes: number) => `${(bytes / KIB).toFixed(1)} KiB`;
  const row = (item: Measured, name = item.name) => [
    name,
    String(item.files.length),
    kib(item.bytes),
    item.limit === undefined ? '' : kib(item.limit),
    item.limit === undefined ? '' : item.over ? 'OVER' : 'ok',
  ];
  const head = [
    ...firstLoad.map((item) => row(item, `  ${item.name}`)),
    row(total),
    ...languages.flatMap((language) => [
      row(language.added, `  ${language.added.name}`),
      row(language.total),
    ]),
  ];
  const rows = [...head, ...lazy.map((item) => row(item))];
  const header = ['chunk', 'files', 'gzip', 'limit', ''];
  const widths = header.map((cell, i) =>
    Math.max(cell.length, ...rows.map((cells) => (cells[i] as string).length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const rule = line(widths.map((w) => '-'.repeat(w)));
  return [line(header), rule, ...head.map(line), rule, ...rows.slice(head.length).map(line)].join('\n');
}

/** Code that must never reach the browser, recognised by text its bundled form keeps. */
export interface ForbiddenCode {
  name: string;
  pattern: RegExp;
}

/** zod's schema classes are registered under names such as "$ZodType", which minifying keeps. */
export const forbiddenInConsole: readonly ForbiddenCode[] = [
  { name: 'zod', pattern: /["']\$Zod[A-Z]\w*["']/ },
];

/** The JavaScript files that contain forbidden code, with what they contain. */
export function findForbidden(
  files: readonly string[],
  read: (file: string) => string,
  rules: readonly ForbiddenCode[] = forbiddenInConsole,
): Array<{ file: string; name: string }> {
  const out: Array<{ file: string; name: string }> = [];
  for (const file of files) {
    const code = read(file);
    for (const rule of rules) if (rule.pattern.test(code)) out.push({ file, name: rule.name });
  }
  return out;
}
