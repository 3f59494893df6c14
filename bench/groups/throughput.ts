/**
 * @module bench/groups/throughput
 * Requests per second and latency of each server on each workload, at each connection count.
 * Every server runs in its own child process; autocannon runs in this process. All servers
 * are started first and then take turns row by row (mock, Prism, bare on one workload, then
 * the next), so that the three figures of a ratio are taken within seconds of each other:
 * on a shared machine, conditions drift over minutes. Each row gets an unmeasured warm-up
 * first, so the JIT has compiled the hot path before counting.
 */
import type { BenchConfig } from '../bench-config.js';
import type { ChildServer } from '../child-server.js';
import { type LoadResult, runLoad } from '../load.js';
import { processCpuMs } from '../process-cpu.js';
import { startTarget, type TargetName } from '../servers.js';
import { existingJobId, getJobWorkload, prepareWorkloads, type Workload, type WorkloadName } from '../workloads.js';

export interface ThroughputRow {
  readonly target: TargetName;
  readonly workload: WorkloadName;
  readonly connections: number;
  readonly result: LoadResult;
  /** CPU the server's process used during the measured run, and that run's wall time (undefined without /proc). */
  readonly serverCpu?: { readonly cpuMs: number; readonly wallMs: number };
}

export async function runThroughput(config: BenchConfig, progress: (line: string) => void): Promise<ThroughputRow[]> {
  const rows: ThroughputRow[] = [];
  const servers = new Map<TargetName, { server: ChildServer; workloads: Record<WorkloadName, Workload> }>();
  try {
    for (const target of config.targets) {
      const server = await startTarget(target);
      servers.set(target, { server, workloads: await prepareWorkloads(server.url) });
    }
    for (const name of config.workloads) {
      for (const connections of config.connections) {
        for (const [target, { server, workloads }] of servers) {
          // A job created just before its row: the createEvaluation rows store enough jobs to
          // evict one created at the start, and getJob would then measure 404s.
          const workload = name === 'getJob' ? getJobWorkload(await existingJobId(server.url)) : workloads[name];
          const load = { baseUrl: server.url, workload, connections };
          if (config.warmupS > 0) await runLoad({ ...load, durationS: config.warmupS });
          const cpuBefore = processCpuMs(server.pid);
          const started = performance.now();
          const result = await runLoad({
            ...load,
            durationS: config.durationS,
            ...(config.amount === undefined ? {} : { amount: config.amount }),
          });
          const wallMs = performance.now() - started;
          const cpuAfter = processCpuMs(server.pid);
          const serverCpu = cpuBefore === undefined || cpuAfter === undefined ? undefined : { cpuMs: cpuAfter - cpuBefore, wallMs };
          progress(`throughput ${target} ${name} c=${connections}: ${Math.round(result.rps)} req/s`);
          rows.push({ target, workload: name, connections, result, ...(serverCpu ? { serverCpu } : {}) });
        }
      }
    }
  } finally {
    for (const { server } of servers.values()) await server.stop();
  }
  return rows;
}
