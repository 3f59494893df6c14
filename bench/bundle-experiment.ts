/**
 * @module bench/bundle-experiment
 * An experiment, not what ships: the CLI bundled into a few files with rolldown (present as
 * vite's bundler), to show how much of the mock's start-up is module loading — Node 20 has no
 * compile cache, and the engine's ~130 ES modules (99 of them zod's, 64 of those its locales)
 * are each resolved, read and compiled on every start. Skipped when rolldown is not installed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/openapi/package-root.js';

interface Rolldown {
  build(options: { input: string; platform: 'node'; output: { dir: string; format: 'esm' }; logLevel: 'silent' }): Promise<unknown>;
}

export interface Bundle {
  /** The bundled CLI entry: run as `node ENTRY mock --port N --quiet`. */
  readonly entry: string;
  remove(): void;
}

export async function bundleCli(): Promise<Bundle | undefined> {
  // A variable specifier: rolldown is not a dependency of this package, only found if present.
  const specifier = 'rolldown';
  let rolldown: Rolldown;
  try {
    rolldown = (await import(specifier)) as Rolldown;
  } catch {
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'eh-bench-bundle-'));
  try {
    await rolldown.build({
      input: join(packageRoot(), 'dist/src/cli/bin.js'),
      platform: 'node',
      output: { dir, format: 'esm' },
      logLevel: 'silent',
    });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  return { entry: join(dir, 'bin.js'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}
