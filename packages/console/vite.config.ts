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
    // scripts/check-size.ts reads the manifest to measure the initial and the lazy JavaScript.
    manifest: true,
    // The budget is checked by scripts/check-size.ts (gzip); this only silences Vite's raw-size note.
    chunkSizeWarningLimit: 600,
  },
});
