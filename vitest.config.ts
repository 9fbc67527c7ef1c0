import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { defaultClientConditions, defaultServerConditions } from 'vite';
import { configDefaults, defineConfig } from 'vitest/config';

/** Tests run the workspace packages from their TypeScript sources (the `source` export condition). */
const fromSource = {
  resolve: { conditions: ['source', ...defaultClientConditions] },
  ssr: { resolve: { conditions: ['source', ...defaultServerConditions] } },
};

/** Server test files that replace modules (vi.mock): they need a module registry of their own. */
const mockingServerTests = readdirSync('packages/server/src', { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .filter((file) => readFileSync(join('packages/server/src', file), 'utf8').includes('vi.mock('))
  .map((file) => `src/${file.split(sep).join('/')}`);

const serverTests = {
  root: 'packages/server',
  globalSetup: ['./src/test/global-setup.ts'],
  testTimeout: 60_000,
  hookTimeout: 60_000,
  pool: 'forks' as const,
};

export default defineConfig({
  test: {
    projects: [
      {
        ...fromSource,
        test: {
          name: 'contract',
          root: 'packages/contract',
          include: ['src/**/*.test.ts'],
        },
      },
      {
        ...fromSource,
        test: {
          ...serverTests,
          name: 'server',
          include: ['src/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...mockingServerTests],
          // The files of a worker share one module registry: the server's modules are imported
          // once per worker, not once per file (a fifth of the server tests' CPU). Each file still
          // starts its own server and database; files that mock modules run isolated (below).
          isolate: false,
        },
      },
      {
        ...fromSource,
        test: { ...serverTests, name: 'server-isolated', include: mockingServerTests },
      },
      {
        // jsdom tests resolve as the browser does; the server-side conditions (with `module`)
        // would make Node require antd's dependencies as ES modules.
        resolve: fromSource.resolve,
        test: {
          name: 'console',
          root: 'packages/console',
          include: ['src/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          setupFiles: ['./src/test/setup.ts'],
          // The first render of a screen imports antd cold, which takes seconds on a busy machine.
          testTimeout: 40_000,
        },
      },
    ],
    maxWorkers: 2,
  },
});
