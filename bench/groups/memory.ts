/**
 * @module bench/groups/memory
 * The mock's RSS idle and with N jobs stored. The mock runs in a child process of its own
 * (bench/children/memory-probe), which measures itself after a full GC; this process stores
 * the jobs over HTTP with autocannon, as a client would, and asks for the figures over IPC.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../src/openapi/package-root.js';
import type { BenchConfig } from '../bench-config.js';
import type { MemoryFigure, ProbeMessage } from '../children/memory-probe.js';
import { runLoad } from '../load.js';
import { prepareWorkloads } from '../workloads.js';

export interface MemoryResult {
  readonly gcExposed: boolean;
  readonly jobs: number;
  readonly stored: number;
  readonly idle: MemoryFigure;
  readonly loaded: MemoryFigure;
  /** Requests of the loading run that were not answered 202, and transport errors. */
  readonly failures: number;
  readonly command: string;
}

function nextMessage<K extends ProbeMessage['kind']>(
  child: ChildProcess,
  kind: K,
  timeoutMs: number,
): Promise<Extract<ProbeMessage, { kind: K }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`memory probe: no '${kind}' within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (message: ProbeMessage) => {
      if (message.kind !== kind) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(message as Extract<ProbeMessage, { kind: K }>);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`memory probe exited (${code}) before '${kind}'`));
    });
  });
}

export async function runMemory(config: BenchConfig, progress: (line: string) => void): Promise<MemoryResult> {
  const script = 'dist/bench/children/memory-probe.js';
  const child = fork(join(packageRoot(), script), [], { execArgv: ['--expose-gc'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  try {
    const ready = await nextMessage(child, 'ready', 30_000);
    const workloads = await prepareWorkloads(ready.url);
    // prepareWorkloads stored one job: the load stores the rest.
    const load = await runLoad({
      baseUrl: ready.url,
      workload: workloads.createEvaluation,
      connections: 10,
      durationS: 0,
      amount: Math.max(1, config.memoryJobs - 1),
    });
    child.send({ kind: 'measure' });
    const measured = await nextMessage(child, 'measured', 60_000);
    progress(`memory: idle ${ready.idle.rssMb.toFixed(1)} MB, ${measured.stored} jobs ${measured.loaded.rssMb.toFixed(1)} MB RSS`);
    return {
      gcExposed: ready.gcExposed,
      jobs: config.memoryJobs,
      stored: measured.stored,
      idle: ready.idle,
      loaded: measured.loaded,
      failures: load.non2xx + load.errors + load.timeouts,
      command: 'node dist/bench/run-bench.js --group memory',
    };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      if (child.connected) child.send({ kind: 'exit' });
      const force = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(force);
    }
  }
}
