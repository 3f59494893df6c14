/**
 * @module bench/run-bench
 * `npm run bench`: runs the groups, each writing GROUP.json; updates docs/performance.md's
 * tables (or prints them); with --check, judges bench/thresholds.json against the figures.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { packageRoot } from '../src/openapi/package-root.js';
import { type BenchOptions, type GroupName, parseOptions, UsageError, usage } from './config.js';
import {
  type GroupResult,
  judge,
  markdownTable,
  readResults,
  type Table,
  type Threshold,
  updateDoc,
  verdictTable,
  writeResult,
} from './figures.js';
import { runConformance } from './groups/conformance.js';
import { runMemory } from './groups/memory.js';
import { runMsw } from './groups/msw.js';
import { runProxy } from './groups/proxy.js';
import { runStages } from './groups/stages.js';
import { runStartup } from './groups/startup.js';
import { runStore } from './groups/store.js';
import { runThroughput } from './groups/throughput.js';
import { killAllChildren } from './processes.js';

type Progress = (line: string) => void;
const runners: Record<GroupName, (options: BenchOptions, progress: Progress) => Promise<GroupResult>> = {
  throughput: runThroughput,
  stages: runStages,
  startup: runStartup,
  msw: runMsw,
  conformance: runConformance,
  memory: runMemory,
  proxy: runProxy,
  store: runStore,
};

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  if (options === 'help') {
    process.stdout.write(usage);
    return 0;
  }
  const root = packageRoot();
  const jsonDir = resolve(root, options.jsonDir);
  mkdirSync(jsonDir, { recursive: true });
  const started = performance.now();
  const progress: Progress = (line) => process.stderr.write(`bench: ${((performance.now() - started) / 1000).toFixed(1)} s ${line}\n`);
  const results: GroupResult[] = [];
  if (!options.checkOnly) {
    const loadBefore = loadavg()[0] ?? 0;
    for (const group of options.groups) {
      const result = await runners[group](options, progress);
      writeResult(jsonDir, result);
      results.push(result);
    }
    const run: GroupResult = {
      group: 'run',
      figures: {},
      tables: {
        run: {
          headers: ['Fact', 'Value'],
          rows: [
            ['Date', new Date().toISOString()],
            ['Node.js', process.version],
            ['CPU', `${cpus().length} cores, ${cpus()[0]?.model.trim() ?? 'unknown'}`],
            ['Load average (1 min) at start / end', `${loadBefore.toFixed(2)} / ${(loadavg()[0] ?? 0).toFixed(2)}`],
            ['Groups', `${options.groups.join(', ')}${options.quick ? ' (--quick)' : ''}`],
            ['Duration', `${((performance.now() - started) / 1000).toFixed(0)} s`],
          ],
        },
      },
    };
    writeResult(jsonDir, run);
    results.push(run);
  }
  const judged = options.checkOnly ? readResults(jsonDir) : results;
  const thresholds = JSON.parse(readFileSync(join(root, 'bench/thresholds.json'), 'utf8')) as Threshold[];
  const verdicts = judge(thresholds, judged);
  const tables = new Map<string, Table>(judged.flatMap((result) => Object.entries(result.tables)));
  tables.set('thresholds', verdictTable(verdicts));
  if (options.doc) {
    const replaced = updateDoc(resolve(root, options.doc), tables);
    progress(`updated ${replaced.length} tables of ${options.doc}`);
  } else if (!options.checkOnly) {
    for (const [id, table] of tables) process.stdout.write(`<!-- bench:${id} -->\n${markdownTable(table)}\n\n`);
  }
  if (!options.check) return 0;
  if (options.doc || options.checkOnly) process.stdout.write(`${markdownTable(verdictTable(verdicts))}\n`);
  const failed = verdicts.filter((verdict) => verdict.held === false);
  if (verdicts.every((verdict) => verdict.held === undefined)) {
    process.stderr.write('bench: --check: no threshold has a figure in these results\n');
    return 1;
  }
  for (const { threshold, value } of failed) {
    const measured = value === null ? 'failed requests' : String(Number(value?.toFixed(3)));
    process.stderr.write(
      `bench: --check: ${threshold.figure} = ${measured}, past ${threshold.comparison} ${threshold.bound} (${threshold.description})\n`,
    );
  }
  return failed.length > 0 ? 1 : 0;
}

// Whatever happens, no server is left running.
process.once('exit', killAllChildren);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAllChildren();
    process.exit(130);
  });
}
main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    killAllChildren();
    if (error instanceof UsageError) {
      process.stderr.write(`bench: ${error.message}\n(npm run bench -- --help lists the options)\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`bench: failed: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
