/**
 * @module bench/groups/memory
 * The mock's RSS idle and with N jobs stored, in a process of its own
 * (bench/children/memory-probe, measuring itself after a full GC); this process stores the jobs
 * over HTTP with autocannon, as a client would, and asks for the figures over IPC.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../src/openapi/package-root.js';
import type { MemoryFigure } from '../children/memory-probe.js';
import type { BenchOptions } from '../config.js';
import { type GroupResult, num } from '../figures.js';
import { requestOf, runLoad, workload } from '../load.js';

function next<T>(child: ChildProcess, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`memory probe: no answer within ${timeoutMs} ms`)), timeoutMs);
    child.once('message', (message) => {
      clearTimeout(timer);
      resolve(message as T);
    });
    child.once('exit', (code) => reject(new Error(`memory probe exited (${code})`)));
  });
}

export async function runMemory(options: BenchOptions, progress: (line: string) => void): Promise<GroupResult> {
  const jobs = options.quick ? 1000 : 100_000;
  const child = fork(join(packageRoot(), 'dist/bench/children/memory-probe.js'), [], {
    execArgv: ['--expose-gc'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    const idle = await next<{ url: string; idle: MemoryFigure }>(child, 30_000);
    const requests = [requestOf(await workload('createEvaluation', idle.url))];
    const load = await runLoad({ baseUrl: idle.url, requests, connections: 10, durationS: 0, amount: jobs - 1 });
    child.send('measure');
    const { loaded, stored } = await next<{ loaded: MemoryFigure; stored: number }>(child, 60_000);
    const added = loaded.rssMb - idle.idle.rssMb;
    progress(`memory: idle ${num(idle.idle.rssMb)} MB, ${stored} jobs ${num(loaded.rssMb)} MB RSS`);
    return {
      group: 'memory',
      figures: { 'memory.rssMbPer100kJobs': load.non2xx + load.errors > 0 ? null : (added * 100_000) / stored },
      tables: {
        memory: {
          headers: ['State', 'Jobs stored', 'RSS MB', 'Heap used MB'],
          rows: [
            ['idle (after one request of each kind)', '1', num(idle.idle.rssMb), num(idle.idle.heapUsedMb)],
            [`after ${jobs - 1} more creations`, String(stored), num(loaded.rssMb), num(loaded.heapUsedMb)],
            ['added', '', num(added), num(loaded.heapUsedMb - idle.idle.heapUsedMb)],
          ],
        },
      },
    };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
