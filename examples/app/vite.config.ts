/**
 * Builds the example app. Besides the page it emits MSW's service worker script from the
 * installed msw (and serves it in `vite dev`), so the copy always matches msw's version and
 * none is committed. In your own app, `npx msw init public --save` does the same job once.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const workerFile = 'mockServiceWorker.js';

function mswServiceWorker(): Plugin {
  const source = () => readFileSync(createRequire(import.meta.url).resolve(`msw/${workerFile}`), 'utf8');
  return {
    name: 'evidence-harness-example:msw-service-worker',
    configureServer(server) {
      server.middlewares.use(`/${workerFile}`, (_request, response) => {
        response.setHeader('content-type', 'text/javascript');
        response.end(source());
      });
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: workerFile, source: source() });
    },
  };
}

export default defineConfig({
  root: dirname(fileURLToPath(import.meta.url)),
  plugins: [mswServiceWorker()],
  build: {
    emptyOutDir: true,
    // The mock engine's chunk (zod, jose, msw) is large, and loaded only with ?mock=msw.
    chunkSizeWarningLimit: 1024,
  },
});
