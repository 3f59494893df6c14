/**
 * The README's first command, run literally on a fresh clone: `npx evidence-harness mock`
 * answers /health, and so it does after `npm run build` (a rebuild used to leave npx's link on
 * a file without its executable bit).
 *
 * What stands in for the clone: the work tree's tracked and untracked files copied to a temp
 * folder (the edits under test, not the last commit), with no dist/. `npm ci` is replaced by a
 * link to this checkout's node_modules: the test below proves package.json has no install-time
 * script, so on a clone `npm ci` only puts the same packages in place and builds nothing, which
 * is the situation the first npx must survive. npx itself runs for real, with an empty npm cache
 * of its own: it links the copy into that cache (offline, about 2 s) as it would on a
 * newcomer's machine, and the bin it runs is the one package.json names.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyWorkTree, health, linkNodeModules, npmEnvironment, root, run, scratchFolder, skipPackageTests, startMock } from './scratch.js';

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const quickStart = readme.slice(readme.indexOf('## Quick start')).split('```sh\n')[1]?.split('\n```')[0] ?? '';
/** The README's first command, without the `npm ci && ` that the linked node_modules stands for. */
const firstCommand = /^npm ci && (npx evidence-harness mock)\s/m.exec(quickStart)?.[1] ?? '';

describe.skipIf(skipPackageTests)('a fresh clone', { timeout: 300_000 }, () => {
  const scratch = scratchFolder('eh-fresh-clone-');
  const clone = join(scratch.path, 'evidence-harness');
  const env = npmEnvironment({ npm_config_cache: join(scratch.path, 'npm-cache') });

  beforeAll(async () => {
    await copyWorkTree(clone);
    linkNodeModules(clone);
  });
  afterAll(() => scratch.remove());

  it('has no install-time script, so npm ci on a clone installs packages and builds nothing', () => {
    const scripts = JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8')).scripts as Record<string, string>;
    for (const hook of ['preinstall', 'install', 'postinstall', 'preprepare', 'prepare', 'postprepare']) {
      expect(scripts[hook], `scripts.${hook}`).toBeUndefined();
    }
    expect(scripts.prepack).toBe('npm run build');
    expect(existsSync(join(clone, 'dist'))).toBe(false);
  });

  it('answers /health after `npx evidence-harness mock`, which builds dist/ on its first run', async () => {
    expect(firstCommand).toBe('npx evidence-harness mock');
    const [npx, ...args] = firstCommand.split(' ');
    const mock = await startMock(npx!, [...args, '--port', '0', '--quiet'], { cwd: clone, env, timeoutMs: 120_000 });
    try {
      expect(await health(mock.url)).toBe('{"status":"ok"}');
      expect(mock.stderr()).toContain('evidence-harness: first run in a source checkout: building dist/ with `npm run build`');
    } finally {
      await mock.stop();
    }
    expect(existsSync(join(clone, 'dist', 'cli', 'evidence-harness.js'))).toBe(true);
  });

  it('answers /health after `npm run build`, then `npx evidence-harness mock` again', async () => {
    await run('npm', ['run', 'build'], { cwd: clone, env });
    const [npx, ...args] = firstCommand.split(' ');
    const mock = await startMock(npx!, [...args, '--port', '0', '--quiet'], { cwd: clone, env });
    try {
      expect(await health(mock.url)).toBe('{"status":"ok"}');
      expect(mock.stderr()).not.toContain('building dist/');
    } finally {
      await mock.stop();
    }
  });
});
