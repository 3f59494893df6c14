/**
 * The benchmark harness works: with --quick (a few hundred requests per run, no Prism) the built
 * `dist/bench/run-bench.js` runs its groups, writes each group's JSON and fills a doc's marked
 * tables; --check judges figures against bench/thresholds.json and names what falls past a
 * bound. Speed is never asserted here: the figures belong to `npm run bench` and
 * docs/performance.md.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { packageRoot } from '../../src/openapi/package-root.js';

const root = packageRoot();
const entry = join(root, 'dist/bench/run-bench.js');
const execFileAsync = promisify(execFile);

/** Runs the built bench with `args`; its exit code and output, whatever the code. */
async function runBench(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  try {
    return { code: 0, ...(await execFileAsync(process.execPath, [entry, ...args], { cwd: root, timeout: 170_000 })) };
  } catch (error) {
    const failed = error as { code: number | null; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const groups = ['throughput', 'stages', 'startup', 'msw', 'memory', 'proxy', 'store', 'conformance'];

it('runs its groups with --quick, writes their JSON and fills the marked tables of a doc', { timeout: 180_000 }, async () => {
  expect(existsSync(entry), 'dist/bench/run-bench.js is missing: run npm run build first').toBe(true);
  const directory = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
  const doc = join(directory, 'performance.md');
  const ids = ['run', 'throughput.headline', 'throughput.http-stages', 'stages', 'stages.verify', 'proxy', 'thresholds'];
  writeFileSync(
    doc,
    ['# Doc', ...ids.map((id) => `<!-- bench:${id} -->\nSTALE\n<!-- /bench -->`), '<!-- bench:absent -->\nkept\n<!-- /bench -->'].join(
      '\n\n',
    ),
  );
  const { code, stderr } = await runBench(['--quick', '--group', groups.join(','), '--json-dir', directory, '--doc', doc]);
  expect(code, stderr).toBe(0);
  for (const group of [...groups, 'run']) {
    const result = JSON.parse(readFileSync(join(directory, `${group}.json`), 'utf8')) as { group: string; tables: object };
    expect(result.group).toBe(group);
    expect(Object.keys(result.tables).length, group).toBeGreaterThan(0);
  }
  const throughput = JSON.parse(readFileSync(join(directory, 'throughput.json'), 'utf8')) as { figures: Record<string, number> };
  expect(throughput.figures['throughput.getJob.cpuOverBare']).toBeGreaterThan(0);
  // The import cost: fresh processes importing the built package by its name, each reaching a 202.
  const msw = JSON.parse(readFileSync(join(directory, 'msw.json'), 'utf8')) as { figures: Record<string, number> };
  expect(msw.figures['msw.import.ratio']).toBeGreaterThan(0);
  const written = readFileSync(doc, 'utf8');
  expect(written).not.toContain('STALE');
  expect(written).toContain('<!-- bench:absent -->\nkept\n<!-- /bench -->');
  expect(written).toMatch(/<!-- bench:throughput.headline -->\n\| Request \| mock CPU µs\/req \| bare CPU µs\/req[^\n]*\n\| --- /);
  expect(written).toMatch(/\| getJob \| [\d.,]+ \| [\d.,]+ \| [\d.,]+× \|/);
  expect(written).toMatch(/\| consumer watch \| [\d.,]+ \| [\d.,]+ \| [\d.,]+ \| [\d.,]+ \|/);
  expect(written).toContain('`throughput.getJob.cpuOverBare`');
});

function figuresDir(figures: Record<string, number | null>): string {
  const directory = mkdtempSync(join(tmpdir(), 'bench-check-'));
  writeFileSync(join(directory, 'throughput.json'), JSON.stringify({ group: 'throughput', figures, tables: {} }));
  return directory;
}

it('--check-only exits 1 naming each figure past its bound, and 0 when all measured ones hold', async () => {
  const past = await runBench([
    '--check-only',
    '--json-dir',
    figuresDir({
      'throughput.getJob.cpuOverBare': 2.1,
      'throughput.health.cpuOverBare': 1.1,
      'throughput.createEvaluation.cpuOverBare': null,
    }),
  ]);
  expect(past.code).toBe(1);
  expect(past.stderr).toContain('throughput.getJob.cpuOverBare = 2.1, past <= 1.5');
  expect(past.stderr).toContain('throughput.createEvaluation.cpuOverBare = failed requests');
  expect(past.stderr).not.toContain('throughput.health.cpuOverBare');
  expect(past.stdout).toMatch(/\| `throughput.getJob.cpuOverBare` \| 2.10 \| ≤ 1.5 \| \*\*no\*\* \|/);
  expect(past.stdout).toMatch(/`startup.mockOverBare` \| — \| ≤ 1.5 \| not measured \|/);

  const held = await runBench(['--check-only', '--json-dir', figuresDir({ 'throughput.getJob.cpuOverBare': 1.2 })]);
  expect(held.code, held.stderr).toBe(0);

  const nothing = await runBench(['--check-only', '--json-dir', figuresDir({})]);
  expect(nothing.code).toBe(1);
  expect(nothing.stderr).toContain('no threshold has a figure');
});

it('answers --help with its options, and a wrong option with one line and exit 2, no stack', async () => {
  const help = await runBench(['--help']);
  expect(help.code).toBe(0);
  expect(help.stdout).toContain('Usage: npm run bench');
  for (const option of ['--group G[,G]', '--quick', '--check', '--check-only', '--json-dir DIR', '--doc FILE']) {
    expect(help.stdout).toContain(option);
  }
  for (const args of [['--nope'], ['--group', 'everything']]) {
    const wrong = await runBench(args);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^bench: .*\n\(npm run bench -- --help lists the options\)\n$/);
    expect(wrong.stderr).not.toContain('    at ');
  }
  expect((await runBench(['--group', 'everything'])).stderr).toContain("--group: 'everything' is not one of throughput, stages");
});
