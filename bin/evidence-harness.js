#!/usr/bin/env node
/**
 * The `evidence-harness` executable (package.json "bin"): a launcher for the bundle
 * scripts/bundle-cli.mjs writes to dist/cli/evidence-harness.js.
 *
 * Why a launcher: the package builds at `prepack`, not at `prepare` (an install script that made
 * npm warn in every project installing the tarball), so a fresh clone has no dist/ after
 * `npm ci`. The README's first command, `npm ci && npx evidence-harness mock`, must still work
 * there: in a source checkout, the first run builds dist/ once with `npm run build`. A package
 * installed from the registry or a tarball always carries dist/ (prepack built it) and never
 * reaches the build. Plain JavaScript, committed, so it exists before anything is built.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundle = new URL('../dist/cli/evidence-harness.js', import.meta.url);
const root = fileURLToPath(new URL('..', import.meta.url));

function fail(message) {
  process.stderr.write(`evidence-harness: ${message}\n`);
  process.exit(1);
}

if (!existsSync(bundle)) {
  // A source checkout has the sources and the dev toolchain that builds them; an installed copy has neither.
  const sourceCheckout =
    existsSync(new URL('../src/cli/bin.ts', import.meta.url)) && existsSync(new URL('../node_modules/typescript', import.meta.url));
  if (!sourceCheckout) {
    fail(
      `this copy has no dist/cli/evidence-harness.js and no sources to build it from (${root}). A copy installed from the registry or from a tarball made by 'npm pack' always has it; a copy installed straight from a git URL does not (see "Install in your project" in the README: pack a clone, then install the tarball).`,
    );
  }
  // Progress goes to stderr, so `evidence-harness --version` and `artifact --json` keep a clean stdout.
  process.stderr.write('evidence-harness: first run in a source checkout: building dist/ with `npm run build` (once, about 15 s)…\n');
  // Under npx or npm run, npm_execpath is the npm that started us; otherwise the npm on PATH.
  const npm = process.env.npm_execpath?.endsWith('.js') ? [process.execPath, process.env.npm_execpath] : ['npm'];
  const build = spawnSync(npm[0], [...npm.slice(1), 'run', 'build'], {
    cwd: root,
    stdio: ['ignore', 2, 2],
    shell: process.platform === 'win32' && npm.length === 1,
  });
  if (build.status !== 0 || !existsSync(bundle)) {
    fail(`the build failed (${build.error?.message ?? `exit ${build.status}`}); run 'npm run build' in ${root} and read its errors.`);
  }
}
await import(bundle.href);
