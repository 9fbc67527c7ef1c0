/**
 * Checks the console build against its size budget (run after `vite build`; `npm test` runs it
 * as `npm run test:size`):
 *   node --conditions=source --import tsx packages/console/scripts/check-size.ts [--files] [--dist DIR]
 * First load (everything the browser downloads before the first screen, the dashboard, shows:
 * the entry and what index.html loads or preloads, the session root, the layout and the
 * dashboard screen, each file once) at most 200 KiB gzip, in English and in every other language
 * (whose visitor also loads that language's shell phrases before the first render); every other lazily loaded chunk, with
 * the static imports it adds to the first load, at most 100 KiB gzip. No chunk may contain zod
 * (the console takes only types from the contract). Prints a table and exits with 1 when
 * something is wrong.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import {
  findForbidden,
  firstLoadRoutes as firstLoad,
  formatReport,
  type Manifest,
  measureBundle,
  otherLanguageShells as otherLanguages,
} from '../src/build/bundle-budget.ts';

const distArg = process.argv.indexOf('--dist');
const dist =
  distArg > 0 && process.argv[distArg + 1]
    ? resolve(process.argv[distArg + 1] as string)
    : fileURLToPath(new URL('../dist/', import.meta.url));
const manifestPath = join(dist, '.vite/manifest.json');
if (!existsSync(manifestPath)) {
  console.error(`${manifestPath} is missing: run "npm run build" first`);
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const sizes = new Map<string, number>();
const sizeOf = (file: string) => {
  let size = sizes.get(file);
  if (size === undefined) {
    size = gzipSync(readFileSync(join(dist, file))).length;
    sizes.set(file, size);
  }
  return size;
};

/** Fetched by the session root when the browser is idle after the first paint. */
const prefetched = [
  'src/app/antd-prefetch.ts',
  'src/app/antd-prefetch-display.ts',
  'src/app/antd-prefetch-choices.ts',
];
const result = measureBundle({
  manifest,
  html,
  base: '/console/',
  sizeOf,
  firstLoad,
  prefetched,
  firstLoadLanguage: 'en',
  otherLanguages,
});
console.log(formatReport(result));
if (process.argv.includes('--files')) {
  for (const row of [
    ...result.firstLoad,
    ...result.languages.map((language) => language.added),
    ...result.lazy,
  ]) {
    console.log(`\n${row.name}`);
    for (const file of row.files)
      console.log(`  ${(sizeOf(file) / 1024).toFixed(1).padStart(6)} KiB  ${file}`);
  }
}

const problems: string[] = [];
const over = [result.total, ...result.languages.map((language) => language.total), ...result.lazy].filter(
  (row) => row.over,
);
if (over.length) problems.push(`Over budget: ${over.map((row) => row.name).join(', ')}`);
const scripts = readdirSync(join(dist, 'assets'))
  .filter((file) => file.endsWith('.js'))
  .map((file) => `assets/${file}`);
for (const { file, name } of findForbidden(scripts, (file) => readFileSync(join(dist, file), 'utf8'))) {
  problems.push(
    `${file} contains ${name}: import only types from @tessera/contract (and values from @tessera/contract/constants)`,
  );
}
if (problems.length) {
  console.error(`\n${problems.join('\n')}`);
  process.exit(1);
}
