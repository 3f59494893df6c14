/**
 * @module bench/groups/logs
 * What the request log costs (issue 10): the mock as `evidence-harness mock` runs by default,
 * one log line per request on a stdout that `cat` reads through a pipe, against the same mock
 * with --quiet, on the same workloads in the same run. The two servers take turns in several
 * short rounds, the order swapped each round, and each row reports the median of the rounds'
 * ratios: on a shared machine, conditions drift more between minutes than between seconds.
 * The server's CPU per request, which the load generator does not bound, is reported beside.
 */
import type { BenchConfig } from '../bench-config.js';
import type { ChildServer } from '../child-server.js';
import { runLoad } from '../load.js';
import { processCpuMs } from '../process-cpu.js';
import { startMockLogged, startTarget } from '../servers.js';
import { judgedConnections } from '../targets.js';
import { existingJobId, getJobWorkload, prepareWorkloads, type WorkloadName } from '../workloads.js';

/** One server's figures over the rounds of one row. */
export interface LogsSide {
  /** Requests per second of each round. */
  readonly rps: readonly number[];
  /** Server CPU per answered request of each round, µs (empty without /proc). */
  readonly cpuUs: readonly number[];
  /** Requests not answered 2xx, transport errors and timeouts over all rounds. */
  readonly failures: number;
}

export interface LogsRow {
  readonly workload: WorkloadName;
  readonly connections: number;
  readonly quiet: LogsSide;
  readonly logged: LogsSide;
  /** logged ÷ quiet requests per second, per round. */
  readonly ratios: readonly number[];
}

export interface LogsResult {
  readonly rounds: number;
  readonly durationS: number;
  readonly rows: readonly LogsRow[];
}

/** The workloads of this group: a GET that does almost nothing but log, and the two busiest requests. */
const logWorkloads: readonly WorkloadName[] = ['health', 'getJob', 'createEvaluation'];

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? Number.NaN : sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function measure(options: { server: ChildServer; workload: WorkloadName; config: BenchConfig; connections: number }) {
  const { server, config, connections } = options;
  const workloads = await prepareWorkloads(server.url);
  const workload = options.workload === 'getJob' ? getJobWorkload(await existingJobId(server.url)) : workloads[options.workload];
  const load = { baseUrl: server.url, workload, connections };
  if (config.warmupS > 0) await runLoad({ ...load, durationS: config.warmupS });
  const cpuBefore = processCpuMs(server.pid);
  const result = await runLoad({ ...load, durationS: config.durationS, ...(config.amount === undefined ? {} : { amount: config.amount }) });
  const cpuAfter = processCpuMs(server.pid);
  const cpuUs =
    cpuBefore === undefined || cpuAfter === undefined || result.total === 0 ? undefined : ((cpuAfter - cpuBefore) * 1000) / result.total;
  return { rps: result.rps, cpuUs, failures: result.non2xx + result.errors + result.timeouts };
}

export async function runLogs(config: BenchConfig, progress: (line: string) => void): Promise<LogsResult> {
  const rounds = config.smoke ? 1 : 5;
  const connections = config.smoke ? (config.connections[0] ?? 2) : judgedConnections;
  const workloads = config.smoke ? (['health'] as const) : logWorkloads.filter((name) => config.workloads.includes(name));
  const servers: ChildServer[] = [];
  const rows: LogsRow[] = [];
  try {
    const quiet = await startTarget('mock');
    servers.push(quiet);
    const logged = await startMockLogged();
    servers.push(logged);
    for (const workload of workloads) {
      const sides = {
        quiet: { rps: [] as number[], cpuUs: [] as number[], failures: 0 },
        logged: { rps: [] as number[], cpuUs: [] as number[], failures: 0 },
      };
      const ratios: number[] = [];
      for (let round = 0; round < rounds; round += 1) {
        const order = round % 2 === 0 ? (['quiet', 'logged'] as const) : (['logged', 'quiet'] as const);
        const figures: Partial<Record<'quiet' | 'logged', number>> = {};
        for (const side of order) {
          const figure = await measure({ server: side === 'quiet' ? quiet : logged, workload, config, connections });
          sides[side].rps.push(figure.rps);
          if (figure.cpuUs !== undefined) sides[side].cpuUs.push(figure.cpuUs);
          sides[side].failures += figure.failures;
          figures[side] = figure.rps;
        }
        ratios.push(figures.logged! / figures.quiet!);
        progress(
          `logs ${workload} c=${connections} round ${round + 1}: logs on ${Math.round(figures.logged!)} req/s, --quiet ${Math.round(figures.quiet!)} req/s`,
        );
      }
      rows.push({ workload, connections, quiet: sides.quiet, logged: sides.logged, ratios });
    }
  } finally {
    for (const server of servers) await server.stop();
  }
  return { rounds, durationS: config.durationS, rows };
}
