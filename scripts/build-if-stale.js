/**
 * `npm start`'s build step: runs `npm run build` only when the tree changed since the last
 * complete build, so a restart of an unchanged tree serves in seconds instead of rebuilding.
 *
 * A build is current when its stamp exists, every output is there, and no input (sources,
 * package and compiler settings, the lockfile) was written after the build began. The stamp
 * records when the build began, so a file saved during a build triggers the next one. Servers
 * started together from one folder build once: the others wait for the lock, then find the
 * build current.
 *
 *   node scripts/build-if-stale.js          (TESSERA_REBUILD=1 forces a build)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cache = join(root, 'node_modules', '.cache', 'tessera');
const stampFile = join(cache, 'build-stamp.json');
const lockDir = join(cache, 'build.lock');
const packages = ['contract', 'portal', 'server', 'console'];
/** What each package's build reads besides src/. */
const packageInputs = [
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'vite.config.ts',
  'index.html',
  'public',
];
const outputs = [
  'packages/contract/dist/index.js',
  'packages/portal/dist/index.js',
  'packages/server/dist/main.js',
  'packages/console/dist/index.html',
];
/** A lock older than this was left by a build that died. */
const STALE_LOCK_MS = 15 * 60_000;

/** The newest modification time among `path` and everything under it (tests excluded). */
function newest(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return /\.test\.tsx?$/.test(path) ? 0 : stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

function isCurrent() {
  if (process.env.TESSERA_REBUILD === '1' || !existsSync(stampFile)) return false;
  if (!outputs.every((output) => existsSync(join(root, output)))) return false;
  const { startedAt } = JSON.parse(readFileSync(stampFile, 'utf8'));
  const inputs = [
    'package.json',
    'package-lock.json',
    'scripts/build-package.js',
    ...packages.flatMap((name) => ['src', ...packageInputs].map((input) => `packages/${name}/${input}`)),
  ];
  return inputs.every((input) => newest(join(root, input)) < startedAt);
}

function takeLock() {
  mkdirSync(cache, { recursive: true });
  for (;;) {
    try {
      mkdirSync(lockDir);
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      const age = Date.now() - statSync(lockDir, { throwIfNoEntry: false })?.mtimeMs;
      if (age > STALE_LOCK_MS) rmSync(lockDir, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    }
  }
}

if (isCurrent()) {
  console.log('Build is current: nothing changed since the last build (TESSERA_REBUILD=1 forces one).');
} else {
  takeLock();
  try {
    // Another server may have built while this one waited.
    if (!isCurrent()) {
      rmSync(stampFile, { force: true });
      const startedAt = Date.now();
      const npm = process.env.npm_execpath;
      if (npm) execFileSync(process.execPath, [npm, 'run', 'build'], { cwd: root, stdio: 'inherit' });
      else execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
      writeFileSync(stampFile, JSON.stringify({ startedAt }));
    }
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}
