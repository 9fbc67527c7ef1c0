import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * One build serves both consoles: the server hands out dist/index.html for every page under
 * /dev/ and /admin/ and the assets under /console/. The first path segment picks the variant.
 */
export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Entry (React, router, i18n, antd theme) is ~170 KiB gzip; warn well before it doubles.
    chunkSizeWarningLimit: 600,
  },
});
