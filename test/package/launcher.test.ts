/**
 * The bin's launcher (bin/evidence-harness.js) where dist/ is missing and cannot be built: a copy
 * installed straight from a git URL, which npm packs without building (README, "Install in your
 * project"). It must say what is wrong and what to do, not fail on an import.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { root, scratchFolder } from './scratch.js';

const scratch = scratchFolder('eh-launcher-');
afterAll(() => scratch.remove());

it('explains a copy with no dist/ and no sources (installed from a git URL), exit 1', async () => {
  const installed = join(scratch.path, 'node_modules', 'evidence-harness');
  mkdirSync(join(installed, 'bin'), { recursive: true });
  copyFileSync(join(root, 'bin', 'evidence-harness.js'), join(installed, 'bin', 'evidence-harness.js'));
  writeFileSync(join(installed, 'package.json'), JSON.stringify({ name: 'evidence-harness', type: 'module' }));
  const failure = await promisify(execFile)(process.execPath, [join(installed, 'bin', 'evidence-harness.js'), 'mock']).then(
    () => undefined,
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  expect(failure?.code).toBe(1);
  expect(failure?.stdout).toBe('');
  expect(failure?.stderr).toBe(
    `evidence-harness: this copy has no dist/cli/evidence-harness.js and no sources to build it from (${installed}/). A copy installed from the registry or from a tarball made by 'npm pack' always has it; a copy installed straight from a git URL does not (see "Install in your project" in the README: pack a clone, then install the tarball).\n`,
  );
});
