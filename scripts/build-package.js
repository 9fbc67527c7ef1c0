/**
 * Builds the workspace package in the current folder for Node: src/ compiles into dist/ with the
 * same layout (tsconfig.build.json), and every file of src/ that is not TypeScript (word lists,
 * style sheets, browser scripts) is copied beside the compiled code, because the code finds them
 * relative to its own file. dist/ is emptied first, so nothing of a removed source remains.
 *
 *   node ../../scripts/build-package.js      (the package's "build" script)
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';

const source = 'src';
const target = 'dist';
/** Tests and their support code are not part of a build. */
const skipped = (path) => path === join(source, 'test') || /\.test\.tsx?$/.test(path);

rmSync(target, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });

function copyAssets(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (skipped(path)) continue;
    if (entry.isDirectory()) copyAssets(path);
    else if (entry.isFile() && !/\.(ts|tsx)$/.test(entry.name)) {
      const copy = join(target, relative(source, path));
      mkdirSync(join(copy, '..'), { recursive: true });
      copyFileSync(path, copy);
    }
  }
}
copyAssets(source);
