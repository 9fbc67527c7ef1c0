/**
 * The size budget of the console build (used by scripts/check-size.ts): the JavaScript a first
 * visit loads, and what each lazily loaded chunk adds on top of it. Pure, so it is unit tested.
 */

/** One entry of Vite's build manifest (dist/.vite/manifest.json). */
export interface ManifestChunk {
  file: string;
  src?: string;
  name?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}
export type Manifest = Record<string, ManifestChunk>;

export interface Budget {
  /** gzip bytes allowed for the initial JavaScript. */
  initialBytes: number;
  /** gzip bytes allowed for each lazy chunk with the static imports it adds. */
  lazyBytes: number;
}

export const KIB = 1024;
export const consoleBudget: Budget = { initialBytes: 200 * KIB, lazyBytes: 100 * KIB };

export interface Measured {
  name: string;
  files: string[];
  bytes: number;
  limit: number;
  over: boolean;
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
 * Initial JavaScript: the entry with its static imports, plus whatever index.html loads or
 * preloads. Then each dynamic entry (a lazily loaded route): its own file plus the static imports
 * that are not loaded already. "Loaded already" is the initial set and, for a route nested in
 * the `shell` routes (the session root, then the layout, which the router loads for every
 * screen), the chunks of those routes: the shell is measured in order, each against what comes
 * before it, and every other route against the initial set and the whole shell.
 */
export function measureBundle(input: {
  manifest: Manifest;
  html: string;
  base: string;
  /** gzip size of a file in dist. */
  sizeOf(file: string): number;
  /** Chunk names (or manifest keys) of the routes every screen is nested in, outermost first. */
  shell?: readonly string[];
  budget?: Budget;
}): { initial: Measured; lazy: Measured[] } {
  const { manifest, sizeOf, budget = consoleBudget, shell = [] } = input;
  const fileOf = (key: string) => (manifest[key] as ManifestChunk).file;
  const entries = Object.keys(manifest).filter((key) => manifest[key]?.isEntry);
  const initialFiles = new Set<string>(input.html ? htmlScripts(input.html, input.base) : []);
  for (const key of staticClosure(manifest, entries)) initialFiles.add(fileOf(key));
  const total = (files: Iterable<string>) => [...files].reduce((sum, file) => sum + sizeOf(file), 0);
  const measured = (name: string, files: Set<string>, limit: number): Measured => {
    const bytes = total(files);
    return { name, files: [...files].sort(), bytes, limit, over: bytes > limit };
  };
  const adds = (key: string, loaded: ReadonlySet<string>) =>
    new Set([...staticClosure(manifest, [key])].map(fileOf).filter((file) => !loaded.has(file)));

  const loaded = new Set(initialFiles);
  const shellRows: Measured[] = [];
  const shellKeys = shell.map((wanted) => {
    const key = Object.keys(manifest).find((k) => k === wanted || manifest[k]?.name === wanted);
    if (!key) throw new Error(`the shell route ${wanted} is not in the manifest`);
    return key;
  });
  for (const key of shellKeys) {
    const files = adds(key, loaded);
    shellRows.push(
      measured(`${chunkName(key, manifest[key] as ManifestChunk)} (shell)`, files, budget.lazyBytes),
    );
    for (const file of files) loaded.add(file);
  }
  const routes = Object.keys(manifest)
    .filter((key) => manifest[key]?.isDynamicEntry && !shellKeys.includes(key))
    .map((key) =>
      measured(chunkName(key, manifest[key] as ManifestChunk), adds(key, loaded), budget.lazyBytes),
    )
    .sort((a, b) => b.bytes - a.bytes);
  return {
    initial: measured('initial (entry + index.html)', initialFiles, budget.initialBytes),
    lazy: [...shellRows, ...routes],
  };
}

/** A plain-text table of the measurements. */
export function formatReport({ initial, lazy }: { initial: Measured; lazy: Measured[] }): string {
  const kib = (bytes: number) => `${(bytes / KIB).toFixed(1)} KiB`;
  const rows = [initial, ...lazy].map((row) => [
    row.name,
    String(row.files.length),
    kib(row.bytes),
    kib(row.limit),
    row.over ? 'OVER' : 'ok',
  ]);
  const header = ['chunk', 'files', 'gzip', 'limit', ''];
  const widths = header.map((cell, i) =>
    Math.max(cell.length, ...rows.map((row) => (row[i] as string).length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
