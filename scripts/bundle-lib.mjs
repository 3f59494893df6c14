#!/usr/bin/env node
/**
 * Bundles the package's library entry points (package.json "exports") from tsc's output with
 * rolldown: every entry, this package's code and zod, into dist/lib/, one file per entry and
 * shared chunks for what several entries import. Run by `npm run build` after tsc; the types
 * stay tsc's (.d.ts beside the sources in dist/). Not minified, no source maps, no doc comments.
 *
 * Why: the cost of the first import (issue 35, docs/performance.md "Import cost"). Unbundled,
 * `evidence-harness/msw/node` made Node resolve, read and compile about 180 modules of its own
 * and zod's before a test's first request (95 of them zod's, 64 of those its locales, which
 * every zod entry point imports and the package never uses; zod declares itself free of side
 * effects, so they are tree-shaken here). Every test file vitest isolates pays that again.
 *
 * All entries are built together, so each class exists once: `ControlError`, `ScenarioError`,
 * `StoreUnavailableError` are told apart with instanceof (src/engine/control-api.ts), and an
 * engine made with `evidence-harness/engine` is served by `evidence-harness/msw/node` or
 * `evidence-harness/server`, so the two must not hold separate copies of the engine.
 *
 * Other packages stay external, as in scripts/bundle-cli.mjs (msw is a peer dependency; jose,
 * yaml, re2js load lazily where they are needed), and a module loaded with import() becomes a
 * chunk loaded when asked.
 *
 *   node scripts/bundle-lib.mjs        write dist/lib/
 */
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';
import { externalButZod } from './bundle-options.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'dist', 'lib');

/** Entry name (dist/lib/NAME.js, named in package.json "exports") → tsc's output. */
export const libraryEntries = {
  index: 'dist/src/index.js',
  contract: 'dist/src/contract/index.js',
  engine: 'dist/src/engine/index.js',
  server: 'dist/src/server/index.js',
  msw: 'dist/mocks/index.js',
  'msw-node': 'dist/mocks/node.js',
  'msw-browser': 'dist/mocks/browser.js',
  client: 'dist/src/client/index.js',
  conformance: 'dist/src/conformance/index.js',
  evolution: 'dist/src/evolution/index.js',
  playwright: 'dist/src/playwright/index.js',
};

rmSync(outDir, { recursive: true, force: true });
await build({
  input: Object.fromEntries(Object.entries(libraryEntries).map(([name, path]) => [name, join(root, path)])),
  // 'neutral': the browser entry's chunks must not get Node shims; Node's own modules are
  // external like every other package.
  platform: 'neutral',
  external: externalButZod,
  logLevel: 'warn',
  // The mock server loads the Redis store with import() so the CLI's `mock` without --store never
  // reads it; `evidence-harness/server` also exports it, so here it cannot be a chunk of its own.
  checks: { ineffectiveDynamicImport: false },
  output: {
    dir: outDir,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
    sourcemap: false,
    // Without the doc comments (the .d.ts files keep them for editors): Node reads, decodes
    // and compiles every byte at import, which every test file pays (docs/performance.md,
    // "Import cost"). Pure annotations stay, for the bundlers of those who bundle this package.
    comments: { legal: true, annotation: true, jsdoc: false },
    // mocks/csp-safe-zod.ts must run after zod loads and before any engine module (a page under
    // a strict CSP, test/examples/spec-in-browser.test.ts): left inside the browser entry, its
    // statement would run after every chunk the entry imports. In chunks of their own, zod and
    // it are the browser entry's first import, as in the sources.
    codeSplitting: {
      groups: [
        { name: 'zod', test: /[\\/]node_modules[\\/]zod[\\/]/ },
        { name: 'csp-safe-zod', test: /[\\/]mocks[\\/]csp-safe-zod\.js$/ },
      ],
    },
  },
});
