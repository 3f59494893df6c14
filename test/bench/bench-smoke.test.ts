/**
 * The benchmark harness works: in its smoke mode (BENCH_SMOKE=1: a few hundred requests per
 * row, no Prism, no conformance run) the built `dist/bench/run-bench.js` starts and stops its
 * servers, runs every other group and writes the Markdown tables. Speed and memory are never
 * asserted here, only that each table is there with figures in it: the figures themselves
 * belong to `npm run bench` and docs/performance.md.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { packageRoot } from '../../src/openapi/package-root.js';

const root = packageRoot();
const entry = join(root, 'dist/bench/run-bench.js');

function runSmoke(out: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [entry], {
      cwd: root,
      env: { ...process.env, BENCH_SMOKE: '1', BENCH_OUT: out },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const limit = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.once('exit', (code) => {
      clearTimeout(limit);
      resolve({ code, stderr });
    });
  });
}

it('runs every group in smoke mode and writes their tables', { timeout: 160_000 }, async () => {
  expect(existsSync(entry), 'dist/bench/run-bench.js is missing: run npm run build first').toBe(true);
  const out = join(mkdtempSync(join(tmpdir(), 'bench-smoke-')), 'performance.md');
  const { code, stderr } = await runSmoke(out);
  expect(code, stderr).toBe(0);
  const markdown = readFileSync(out, 'utf8');
  for (const heading of [
    '## Machine and run',
    '## Targets of issue 6',
    '## Throughput',
    '## Request logs on vs --quiet',
    '## Start-up',
    '## MSW in-process',
    '## Memory',
    '## Validating proxy',
    '## Shared store',
  ]) {
    expect(markdown).toContain(heading);
  }
  expect(markdown).toContain('smoke (BENCH_SMOKE=1');
  // A throughput row with a figure for the mock and for the bare server, and its command.
  expect(markdown).toMatch(/\| health \| 2 \| [\d,]+ ±[\d,]+[^|]*\| [\d.]+ \/ [\d.]+ \| — \| — \| [\d,]+ ±/);
  expect(markdown).toContain('`node dist/bench/run-bench.js --group throughput --workload health --connections 2`');
  // Prism is left out of smoke runs, so its targets say so rather than inventing a figure.
  expect(markdown).toMatch(/\| createEvaluation ≥ 6× Prism \(50 connections\) \| not measured \| not measured \|/);
  expect(markdown).toMatch(/\| evidence-harness mock \| \d+ \|/);
  // The proxy's rows: direct and through the proxy, with their ratio, and the latency it adds; prism proxy not in smoke runs.
  expect(markdown).toMatch(
    /\| getJob \| [\d,]+ \(p50 [\d.]+ \/ p99 [\d.]+ ms\) \| [\d,]+ \(p50 [\d.]+ \/ p99 [\d.]+ ms\) \| — \| \d+% \| — \|/,
  );
  expect(markdown).toMatch(/\| mixed( ⚠)? \| [\d,]+ \(p50/);
  expect(markdown).toMatch(/\| getJob \| [\d,]+ \/ [\d,]+ \| [\d,]+ \/ [\d,]+ \| — \| -?[\d.]+ ms \| — \|/);
  expect(markdown).toMatch(/\| latency added at p50 ≤ 1 ms \(one request at a time, loopback\) \| -?[\d.]+ ms at most/);
  // The shared store's rows (redis-server is installed in CI), and the commands each operation sends.
  expect(markdown).toMatch(
    /\| getJob \| [\d,]+ \(p99 [\d.]+ ms\)[^|]*\| [\d,]+ \(p99 [\d.]+ ms\)[^|]*\| [\d,]+ \(p99 [\d.]+ ms\)[^|]*\| \d+% \| \d+% \|/,
  );
  expect(markdown).toMatch(/\| getJob \| 2\.00 \| /);
  expect(markdown).toMatch(/\| createEvaluation \| 3\.00 \| /);
});

const execFileAsync = promisify(execFile);

/** Runs the built bench with `args`; its exit code and output, whatever the code. */
async function runBench(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  try {
    return { code: 0, ...(await execFileAsync(process.execPath, [entry, ...args], { cwd: root })) };
  } catch (error) {
    const failed = error as { code: number | null; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

it('answers --help with its options, and a wrong option with one line and exit 2, no stack', async () => {
  const help = await runBench(['--help']);
  expect(help.code).toBe(0);
  expect(help.stdout).toContain('Usage: npm run bench');
  expect(help.stdout).toContain('--group G[,G]');
  expect(help.stdout).toContain('BENCH_SMOKE=1');
  for (const args of [['--nope'], ['--group', 'everything']]) {
    const wrong = await runBench(args);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^bench: .*\n\(npm run bench -- --help lists the options\)\n$/);
    expect(wrong.stderr).not.toContain('    at ');
  }
  expect((await runBench(['--group', 'everything'])).stderr).toContain("--group: 'everything' is not one of throughput, logs");
});
