/**
 * @module bench/run-bench
 * `npm run bench`: every benchmark of issues 6 and 10 in one run, side by side, then
 * docs/performance.md. Progress goes to stderr. Filters (--group, --target, --workload,
 * --connections) re-run one slice and print its tables without rewriting the doc.
 *
 * Run: node dist/bench/run-bench.js [--group throughput] [--target mock,bare] [--out FILE]
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { packageRoot } from '../src/openapi/package-root.js';
import { BenchUsageError, benchConfig, benchUsage } from './bench-config.js';
import { killAllChildren } from './child-server.js';
import { runConformance } from './groups/conformance.js';
import { runLogs } from './groups/logs.js';
import { runMemory } from './groups/memory.js';
import { runMsw } from './groups/msw.js';
import { runProxy } from './groups/proxy.js';
import { runStartup } from './groups/startup.js';
import { runStore } from './groups/store.js';
import { runThroughput } from './groups/throughput.js';
import { type Baseline, type Report, renderReport } from './report.js';

/** The figures of the run before the performance work (bench/baseline.json), if present. */
function readBaseline(): Baseline | undefined {
  const path = resolve(packageRoot(), 'bench/baseline.json');
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Baseline) : undefined;
}

async function main(): Promise<void> {
  const config = benchConfig({ argv: process.argv.slice(2), env: process.env });
  if (config === 'help') {
    process.stdout.write(benchUsage);
    return;
  }
  const started = performance.now();
  const progress = (line: string) => process.stderr.write(`bench: ${((performance.now() - started) / 1000).toFixed(1)} s ${line}\n`);
  const loadBefore = loadavg()[0] ?? 0;
  const has = (group: string) => config.groups.includes(group as never);

  const throughput = has('throughput') ? await runThroughput(config, progress) : undefined;
  const logs = has('logs') ? await runLogs(config, progress) : undefined;
  const startup = has('startup') ? await runStartup(config, progress) : undefined;
  const msw = has('msw') ? await runMsw(config, progress) : undefined;
  const conformance = has('conformance') ? await runConformance(config, progress) : undefined;
  const memory = has('memory') ? await runMemory(config, progress) : undefined;
  const proxy = has('proxy') ? await runProxy(config, progress) : undefined;
  const store = has('store') ? await runStore(config, progress) : undefined;

  const report: Report = {
    config,
    machine: {
      node: process.version,
      cores: cpus().length,
      cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
      memoryGb: totalmem() / 2 ** 30,
      platform: `${process.platform} ${process.arch}`,
      loadBefore,
      loadAfter: loadavg()[0] ?? 0,
      date: new Date().toISOString(),
      durationS: (performance.now() - started) / 1000,
    },
    ...(throughput ? { throughput } : {}),
    ...(logs ? { logs } : {}),
    ...(startup ? { startup } : {}),
    ...(msw ? { msw } : {}),
    ...(conformance ? { conformance } : {}),
    ...(memory ? { memory } : {}),
    ...(proxy ? { proxy } : {}),
    ...(store ? { store } : {}),
    notes: readFileSync(resolve(packageRoot(), 'bench/performance-notes.md'), 'utf8'),
    baseline: readBaseline(),
  };
  // The raw figures, for a later run to compare itself with (bench/baseline.json is one such file).
  if (process.env.BENCH_JSON) {
    const { notes: _notes, baseline: _baseline, ...figures } = report;
    writeFileSync(resolve(process.env.BENCH_JSON), `${JSON.stringify(figures, null, 2)}\n`);
  }
  const markdown = renderReport(report);
  if (config.out) {
    writeFileSync(resolve(packageRoot(), config.out), markdown);
    progress(`wrote ${config.out}`);
  } else {
    process.stdout.write(markdown);
  }
}

// Whatever happens, no server is left running.
process.once('exit', killAllChildren);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAllChildren();
    process.exit(130);
  });
}
main().catch((error: unknown) => {
  killAllChildren();
  if (error instanceof BenchUsageError) {
    process.stderr.write(`bench: ${error.message}\n(npm run bench -- --help lists the options)\n`);
    process.exitCode = 2;
    return;
  }
  process.stderr.write(`bench: failed: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exitCode = 1;
});
