/**
 * The package as a consumer gets it: the README's "Install in your project" commands run in a
 * scratch project, then every subpath export is imported (and type-checked), an MSW test runs
 * with vitest there, and the installed bin serves /health, as does a global install.
 *
 * The tarball is the one the README's commands make: a `git clone` (of a file:// repository
 * holding the work tree, so the edits under test are what is packed) and `npm pack`, whose
 * prepack builds dist/. `npm ci` in that clone is replaced by a link to this checkout's
 * node_modules (fresh-clone.test.ts proves npm ci would build nothing; the packages are the same).
 * The consumer's installs are real, from npm's cache where it can (`--prefer-offline`).
 *
 * MSW is installed at the floor of the peer range package.json declares (the rest of the suite
 * runs the newest, from devDependencies), so both ends of the range are tested.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyWorkTree, health, npmEnvironment, root, run, scratchFolder, skipPackageTests, startMock } from './scratch.js';

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const tarballName = `${manifest.name}-${manifest.version}.tgz`;
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const installBlock = readme.slice(readme.indexOf('<!-- readme-test: install')).split('```sh\n')[1]?.split('\n```')[0] ?? '';
/** The block's commands, without their comments. */
const installCommands = installBlock.split('\n').map((line) => line.replace(/\s+#.*$/, ''));
const speed = ['--prefer-offline', '--no-audit', '--no-fund'];
/** The lowest msw the peer range allows, e.g. ^2.12.0 → 2.12.0. */
const mswFloor = /^\^(\d+\.\d+\.\d+)$/.exec(manifest.peerDependencies.msw)?.[1];
const devVersion = (name: string) => JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;

describe.skipIf(skipPackageTests)('a consumer project', { timeout: 300_000 }, () => {
  const scratch = scratchFolder('eh-consumer-');
  const app = join(scratch.path, 'my-app');
  const env = npmEnvironment();
  let tarball = '';
  let installOutput = '';

  beforeAll(async () => {
    // The repository to clone: the work tree, committed in a throwaway repository.
    const origin = join(scratch.path, 'origin');
    await copyWorkTree(origin);
    const git = (...args: string[]) => run('git', args, { cwd: origin, env });
    await git('init', '--quiet');
    await git('add', '--all');
    await git('-c', 'user.name=test', '-c', 'user.email=test@example.invalid', 'commit', '--quiet', '--message', 'work tree');
    await run('mkdir', [app], { cwd: scratch.path });
    writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'my-app', private: true, type: 'module' }, null, 2)}\n`);
  });
  afterAll(() => scratch.remove());

  it('installs by the README’s commands: clone, pack (prepack builds), install the tarball, with no install-script warning', async () => {
    expect(installCommands).toEqual([
      'git clone REPOSITORY-URL evidence-harness',
      'cd evidence-harness && npm ci && npm pack',
      `cd ../my-app && npm i -D ../evidence-harness/${tarballName}`,
      'npx evidence-harness mock',
    ]);
    await run('git', ['clone', '--quiet', `file://${join(scratch.path, 'origin')}`, 'evidence-harness'], { cwd: scratch.path, env });
    const clone = join(scratch.path, 'evidence-harness');
    await run('ln', ['-s', join(root, 'node_modules'), 'node_modules'], { cwd: clone, env });
    const packed = await run('npm', ['pack', '--json'], { cwd: clone, env });
    const [report] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('[')));
    expect(report.filename).toBe(tarballName);
    tarball = join(clone, tarballName);
    const files: string[] = report.files.map((file: { path: string }) => file.path);
    expect(files).toContain('bin/evidence-harness.js');
    expect(files).toContain('dist/cli/evidence-harness.js');
    expect(files).toContain('spec/openapi.yaml');
    // Only what runs, and the docs the README and the runner's A-nn references lead to (A-64): no
    // benchmarks (they import dev-only autocannon), no maps to unshipped sources, no sources, no
    // CLI tsc output (bundled).
    expect(files.filter((file) => /^(dist\/bench|dist\/src\/cli|src|test)\/|\.map$|\.ts$/.test(file) && !file.endsWith('.d.ts'))).toEqual(
      [],
    );
    expect(files).toContain('docs/assumptions.md');
    expect(files.filter((file) => file.startsWith('docs/') && !file.endsWith('.md') && !file.endsWith('.png'))).toEqual([]);

    const installed = await run('npm', ['i', '-D', `../evidence-harness/${tarballName}`, ...speed], { cwd: app, env });
    installOutput = installed.stdout + installed.stderr;
    expect(installOutput).not.toMatch(/evidence-harness@\S+ \((pre|post)?(install|prepare)/);
    expect(installOutput).not.toMatch(/warn.*evidence-harness/i);
    expect(JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')).devDependencies['evidence-harness']).toBe(
      `file:../evidence-harness/${tarballName}`,
    );
  });

  it('imports every subpath export, and its types resolve under NodeNext', async () => {
    expect(mswFloor).toBeDefined();
    await run(
      'npm',
      [
        'i',
        '-D',
        `msw@${mswFloor}`,
        `vitest@${devVersion('vitest')}`,
        `typescript@${devVersion('typescript')}`,
        // The server and conformance entry points speak node:http types, as any Node library does.
        `@types/node@${devVersion('@types/node')}`,
        // evidence-harness/playwright's types are Playwright's fixtures: its optional peer, which
        // whoever imports that entry point has (no browser is downloaded by the package).
        `@playwright/test@${devVersion('@playwright/test')}`,
        ...speed,
      ],
      {
        cwd: app,
        env: { ...env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
      },
    );
    const subpaths = Object.keys(manifest.exports).filter((subpath) => subpath !== './package.json');
    const specifiers = subpaths.map((subpath) => (subpath === '.' ? 'evidence-harness' : `evidence-harness/${subpath.slice(2)}`));
    writeFileSync(
      join(app, 'imports.ts'),
      `${specifiers.map((specifier, index) => `import * as m${index} from '${specifier}';`).join('\n')}
export const loaded = { ${specifiers.map((specifier, index) => `'${specifier}': Object.keys(m${index}).length`).join(', ')} };
console.log(JSON.stringify(loaded));
`,
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          lib: ['ES2023', 'DOM'],
          outDir: 'out',
        },
        files: ['imports.ts'],
      }),
    );
    // Declarations are checked too (no skipLibCheck): a .d.ts that points at an unshipped file fails here.
    await run(join(app, 'node_modules', '.bin', 'tsc'), ['-p', '.'], { cwd: app, env });
    const { stdout } = await run(process.execPath, [join(app, 'out', 'imports.js')], { cwd: app, env });
    const loaded = JSON.parse(stdout) as Record<string, number>;
    expect(Object.keys(loaded)).toEqual(specifiers);
    for (const [specifier, names] of Object.entries(loaded)) expect(names, specifier).toBeGreaterThan(0);
  });

  it('runs the README’s MSW test with vitest, against msw at the floor of the peer range', async () => {
    const example = readFileSync(join(root, 'test', 'readme', 'msw-node.test.ts'), 'utf8');
    const block = example.slice(example.indexOf('// readme:start msw-node'), example.indexOf('// readme:end'));
    writeFileSync(join(app, 'msw.test.ts'), block);
    const result = await run(join(app, 'node_modules', '.bin', 'vitest'), ['run', 'msw.test.ts'], { cwd: app, env });
    expect(result.stdout).toMatch(/Tests {2}3 passed \(3\)/);
    expect(JSON.parse(readFileSync(join(app, 'node_modules', 'msw', 'package.json'), 'utf8')).version).toBe(mswFloor);
  });

  it('serves /health from node_modules/.bin/evidence-harness mock and from npx evidence-harness mock', async () => {
    for (const [command, args] of [
      [join(app, 'node_modules', '.bin', 'evidence-harness'), ['mock', '--port', '0', '--quiet']],
      ['npx', ['evidence-harness', 'mock', '--port', '0', '--quiet']],
    ] as const) {
      const mock = await startMock(command, args, { cwd: app, env });
      try {
        expect(await health(mock.url)).toBe('{"status":"ok"}');
      } finally {
        await mock.stop();
      }
    }
  });

  it('installs globally (npm i -g) into a prefix, and the global bin runs', async () => {
    const prefix = join(scratch.path, 'global');
    await run('npm', ['i', '-g', '--prefix', prefix, tarball, ...speed], { cwd: scratch.path, env });
    const bin = join(prefix, 'bin', 'evidence-harness');
    expect((await run(bin, ['--version'], { cwd: scratch.path, env })).stdout).toBe(`${manifest.version}\n`);
    const mock = await startMock(bin, ['mock', '--port', '0', '--quiet'], { cwd: scratch.path, env });
    try {
      expect(await health(mock.url)).toBe('{"status":"ok"}');
    } finally {
      await mock.stop();
    }
  });
});
