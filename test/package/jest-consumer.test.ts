/**
 * The README's Jest setup in a consumer project: a scratch CommonJS project (no "type") gets
 * Jest 30, msw and the packed tarball from the registry, the README's package.json script, and
 * the README's MSW example as the README says to write it for Jest (the vitest import dropped,
 * the types stripped, saved as msw.test.mjs); `npm test` must pass its three tests.
 *
 * The tarball is packed from this checkout's dist/ without running prepack (npm test has just
 * built it; building here would rewrite dist/ under the tests running beside this one).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { npmEnvironment, root, run, scratchFolder, skipPackageTests } from './scratch.js';

const readme = readFileSync(join(root, 'README.md'), 'utf8');
/** The README's package.json lines for Jest: the block after the `readme-test: jest` marker. */
const jestSetup = readme.slice(readme.indexOf('<!-- readme-test: jest')).split('```json\n')[1]?.split('\n```')[0] ?? '';
const example = readFileSync(join(root, 'test', 'readme', 'msw-node.test.ts'), 'utf8');
const mswExample = example.slice(example.indexOf('// readme:start msw-node'), example.indexOf('// readme:end'));
const devVersion = (name: string) => JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;

/** The vitest example as the README says to write it for Jest: no vitest import, no types. */
function forJest(source: string): string {
  const withoutImport = source.replace(/^import [^;]+ from 'vitest';\n/m, '');
  expect(withoutImport).not.toContain('vitest');
  return ts.transpileModule(withoutImport, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
  }).outputText;
}

describe.skipIf(skipPackageTests)('a Jest 30 project set up as the README says', { timeout: 300_000 }, () => {
  const scratch = scratchFolder('eh-jest-');
  const env = npmEnvironment();
  afterAll(() => scratch.remove());

  it('runs the README’s MSW example and passes', async () => {
    const setup = JSON.parse(jestSetup) as { scripts: Record<string, string> };
    expect(setup.scripts.test).toBe('NODE_OPTIONS=--experimental-vm-modules jest');
    const { stdout: packed } = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', scratch.path], { cwd: root, env });
    const tarball = join(scratch.path, packed.trim().split('\n').at(-1)!);
    const app = join(scratch.path, 'app');
    await run('mkdir', [app], { cwd: scratch.path, env });
    writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'jest-app', private: true, ...setup }, null, 2)}\n`);
    await run('npm', ['i', '-D', '--prefer-offline', '--no-audit', '--no-fund', 'jest@30', `msw@${devVersion('msw')}`, tarball], {
      cwd: app,
      env,
    });
    writeFileSync(join(app, 'msw.test.mjs'), forJest(mswExample));
    const result = await run('npm', ['test'], { cwd: app, env });
    expect(result.stderr).toMatch(/Tests: {7}3 passed, 3 total/);
  });
});
