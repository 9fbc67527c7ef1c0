import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

/** Tests run the workspace packages from their TypeScript sources (the `source` export condition). */
const fromSource = {
  resolve: { conditions: ['source', ...defaultClientConditions] },
  ssr: { resolve: { conditions: ['source', ...defaultServerConditions] } },
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
          name: 'server',
          root: 'packages/server',
          include: ['src/**/*.test.ts'],
          globalSetup: ['./src/test/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          pool: 'forks',
        },
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
          testTimeout: 20_000,
        },
      },
    ],
    maxWorkers: 2,
  },
});
