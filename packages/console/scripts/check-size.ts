/**
 * Checks the console build against its size budget (run after `vite build`):
 *   node --import tsx packages/console/scripts/check-size.ts
 * Initial JavaScript (the entry and everything index.html loads or preloads) at most 200 KiB
 * gzip; each lazily loaded route chunk, with the static imports it adds, at most 100 KiB gzip.
 * Screens are nested in the session root and the layout (the shell), which the router loads for
 * every screen: a screen is charged for what it adds to the initial set and the shell.
 * Prints a table and exits with 1 when something is over.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { formatReport, type Manifest, measureBundle } from '../src/build/bundle-budget.ts';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const manifestPath = join(dist, '.vite/manifest.json');
if (!existsSync(manifestPath)) {
  console.error(`${manifestPath} is missing: run "npm run build -w @tessera/console" first`);
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

/** The session root, antd's App and the layout: loaded for every screen, in this order. */
const shell = ['console-root', 'feedback-app', 'console.layout'];
const result = measureBundle({ manifest, html, base: '/console/', sizeOf, shell });
console.log(formatReport(result));
if (process.argv.includes('--files')) {
  for (const row of [result.initial, ...result.lazy]) {
    console.log(`\n${row.name}`);
    for (const file of row.files)
      console.log(`  ${(sizeOf(file) / 1024).toFixed(1).padStart(6)} KiB  ${file}`);
  }
}
const over = [result.initial, ...result.lazy].filter((row) => row.over);
if (over.length) {
  console.error(`\nOver budget: ${over.map((row) => row.name).join(', ')}`);
  process.exit(1);
}
