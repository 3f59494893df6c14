/**
 * @module bench/bench-config
 * What one bench run measures and for how long: the full run (`npm run bench`, a few minutes
 * on two cores), the smoke run (BENCH_SMOKE=1, about a second of load, no Prism: proves the
 * harness works, measures nothing worth quoting), and filters that re-run a single row.
 */
import { parseArgs } from 'node:util';
import type { TargetName } from './servers.js';
import { type WorkloadName, workloadNames } from './workloads.js';

export type GroupName = 'throughput' | 'logs' | 'startup' | 'msw' | 'conformance' | 'memory' | 'proxy' | 'store';
export const groupNames: readonly GroupName[] = ['throughput', 'logs', 'startup', 'msw', 'conformance', 'memory', 'proxy', 'store'];

export interface BenchConfig {
  readonly smoke: boolean;
  readonly groups: readonly GroupName[];
  readonly targets: readonly TargetName[];
  readonly workloads: readonly WorkloadName[];
  readonly connections: readonly number[];
  /** Seconds measured per throughput row, after `warmupS` of unmeasured load. */
  readonly durationS: number;
  readonly warmupS: number;
  /** Smoke runs: a number of requests per row instead of a duration. */
  readonly amount: number | undefined;
  /** Process starts per server for the startup figure (the median is reported). */
  readonly startupRuns: number;
  readonly msw: { readonly durationMs: number; readonly concurrency: number; readonly samples: number };
  readonly memoryJobs: number;
  /** Where the Markdown goes; undefined prints it to stdout only. */
  readonly out: string | undefined;
  /** True when filters narrowed the run (the doc is then not rewritten unless --out says so). */
  readonly filtered: boolean;
}

/** `npm run bench -- --help`. */
export const benchUsage = `Usage: npm run bench [-- options]
       node dist/bench/run-bench.js [options]

Measures the mock, the proxy, the MSW handlers, the runner and the shared store side by side
with their peers (bare node:http, Prism), and writes docs/performance.md. A filtered run prints
its tables instead (or writes --out). Progress goes to stderr. Takes 20-40 minutes in full.

Options:
  --group G[,G]        only these groups: ${groupNames.join(', ')}
  --target T[,T]       only these servers: mock, prism, bare
  --workload W[,W]     only these requests: ${workloadNames.join(', ')}
  --connections N[,N]  only these connection counts (default 10,50)
  --out FILE           write the Markdown here (default: docs/performance.md for a full run)
  -h, --help           show this help

Environment:
  BENCH_SMOKE=1        about a second of load per row, no Prism: proves the harness, measures nothing
  BENCH_OUT=FILE       as --out

Examples:
  npm run bench
  node dist/bench/run-bench.js --group proxy
  node dist/bench/run-bench.js --group throughput --target mock,bare --workload getJob --connections 50
`;

/** A command line the bench cannot run: printed without a stack, exit 2. */
export class BenchUsageError extends Error {}

function list<T extends string>(value: string | undefined, allowed: readonly T[], name: string): T[] | undefined {
  if (value === undefined) return undefined;
  const items = value.split(',').map((item) => item.trim());
  for (const item of items) {
    if (!(allowed as readonly string[]).includes(item))
      throw new BenchUsageError(`--${name}: '${item}' is not one of ${allowed.join(', ')}`);
  }
  return items as T[];
}

function parseBenchArgs(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      strict: true,
      options: {
        group: { type: 'string' },
        target: { type: 'string' },
        workload: { type: 'string' },
        connections: { type: 'string' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new BenchUsageError((error as Error).message);
  }
}

/** The configuration from the command line and the environment (BENCH_SMOKE, BENCH_OUT); 'help' for --help. */
export function benchConfig(options: { argv: readonly string[]; env: NodeJS.ProcessEnv }): BenchConfig | 'help' {
  const { values } = parseBenchArgs(options.argv);
  if (values.help) return 'help';
  const smoke = options.env.BENCH_SMOKE === '1';
  const groups = list(values.group, groupNames, 'group');
  const targets = list(values.target, ['mock', 'prism', 'bare'] as const, 'target');
  const workloads = list(values.workload, workloadNames, 'workload');
  const connections = values.connections?.split(',').map((item) => {
    const number = Number(item);
    if (!Number.isInteger(number) || number < 1 || number > 1000)
      throw new BenchUsageError(`--connections: '${item}' is not from 1 to 1000`);
    return number;
  });
  const filtered = Boolean(groups ?? targets ?? workloads ?? connections);
  // Only a full, unfiltered run rewrites docs/performance.md; a smoke or partial run prints its tables.
  const out = values.out ?? options.env.BENCH_OUT ?? (filtered || smoke ? undefined : 'docs/performance.md');
  return {
    smoke,
    groups: groups ?? (smoke ? groupNames.filter((group) => group !== 'conformance') : groupNames),
    targets: targets ?? (smoke ? ['mock', 'bare'] : ['mock', 'prism', 'bare']),
    // Smoke: autocannon ends runs on whole seconds, so two workloads (a GET and the keyed POST) keep it short.
    workloads: workloads ?? (smoke ? ['health', 'createEvaluation'] : workloadNames),
    connections: connections ?? (smoke ? [2] : [10, 50]),
    durationS: smoke ? 0 : 3,
    amount: smoke ? 200 : undefined,
    warmupS: smoke ? 0 : 1,
    startupRuns: smoke ? 1 : 5,
    msw: smoke ? { durationMs: 50, concurrency: 4, samples: 1 } : { durationMs: 1000, concurrency: 10, samples: 2 },
    memoryJobs: smoke ? 1000 : 100_000,
    out,
    filtered,
  };
}

/** The command line that re-runs one slice of the benchmark (for the tables' Command column). */
export function rowCommand(filters: { group: GroupName; target?: string; workload?: string; connections?: number }): string {
  const parts = ['node dist/bench/run-bench.js', `--group ${filters.group}`];
  if (filters.target) parts.push(`--target ${filters.target}`);
  if (filters.workload) parts.push(`--workload ${filters.workload}`);
  if (filters.connections) parts.push(`--connections ${filters.connections}`);
  return parts.join(' ');
}
