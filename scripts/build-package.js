/**
 * Builds the workspace package in the current folder for Node: src/ compiles into dist/ with the
 * same layout (tsconfig.build.json), and every file of src/ that is not TypeScript (word lists,
 * style sheets, browser scripts) is copied beside the compiled code, because the code finds them
 * relative to its own file. Then whatever dist/ holds of a source that is gone is removed.
 *
 * dist/ is written over, never emptied first: a running server (the operator commands build
 * before they run) keeps finding the files it loads on first use.
 *
 *   node ../../scripts/build-package.js      (the package's "build" script)
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';

const source = 'src';
const target = 'dist';
/** Tests and their support code are not part of a build. */
const skipped = (path) => path === join(source, 'test') || /\.test\.tsx?$/.test(path);
const typescript = /\.tsx?$/;

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });

function copyAssets(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (skipped(path)) continue;
    if (entry.isDirectory()) copyAssets(path);
    else if (entry.isFile() && !typescript.test(entry.name)) {
      const copy = join(target, relative(source, path));
      mkdirSync(join(copy, '..'), { recursive: true });
      copyFileSync(path, copy);
    }
  }
}
copyAssets(source);

/** Whether a file of dist/ comes from a source that is still there (and built). */
function hasSource(built) {
  const path = join(source, relative(target, built));
  const compiled = /^(.*)\.js(\.map)?$/.exec(path);
  // A .js file may also be a copied asset (a browser script).
  const candidates = compiled ? [path, `${compiled[1]}.ts`, `${compiled[1]}.tsx`] : [path];
  return candidates.some((candidate) => existsSync(candidate) && !skipped(candidate));
}

function removeOrphans(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      removeOrphans(path);
      if (readdirSync(path).length === 0) rmdirSync(path);
    } else if (!hasSource(path)) rmSync(path);
  }
}
removeOrphans(target);
