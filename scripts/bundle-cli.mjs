#!/usr/bin/env node
/**
 * Bundles the `evidence-harness` executable (package.json "bin") from tsc's output with
 * rolldown: dist/src/cli/bin.js and everything it imports from this package, plus zod, into
 * dist/cli/. Run by `npm run build` after tsc. No source maps: the package does not ship src/,
 * and the bundle is not minified, so its stack traces read as they are.
 *
 * Why: start-up. Node 20 resolves, reads and compiles every ES module one by one, and has no
 * compile cache. Unbundled, `evidence-harness mock` loads about 130 modules before it listens;
 * 99 of them are zod's, 64 of those its locales, which every zod entry point imports and the mock
 * never uses (tree-shaken here: zod declares itself free of side effects). docs/performance.md
 * measures both forms side by side.
 *
 * Every other package stays external, loaded from node_modules as it would be unbundled: the
 * subcommands that need them (conformance's swagger-parser and ajv, yaml for a YAML scenario,
 * jose for verification) load them lazily, so they cost the mock's start-up nothing, and keeping
 * them external keeps their updates and licences where npm can see them. The lazily loaded
 * subcommands become chunks of their own.
 *
 *   node scripts/bundle-cli.mjs        write dist/cli/
 */
import { chmodSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';
import { externalButZod } from './bundle-options.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'dist', 'cli');

rmSync(outDir, { recursive: true, force: true });
await build({
  input: { 'evidence-harness': join(root, 'dist', 'src', 'cli', 'bin.js') },
  platform: 'node',
  external: externalButZod,
  logLevel: 'warn',
  output: {
    dir: outDir,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
    sourcemap: false,
  },
});
// rolldown writes files 644; a shell running ./dist/cli/evidence-harness.js needs it executable.
// (package.json `bin` is bin/evidence-harness.js, a committed launcher that imports this file.)
chmodSync(join(outDir, 'evidence-harness.js'), 0o755);
