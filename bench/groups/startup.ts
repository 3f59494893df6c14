/**
 * @module bench/groups/startup
 * Spawn to the first 200 on GET /health. The servers take turns (bare, mock, Prism, bare, …)
 * so a burst of load from elsewhere spreads over all of them; the median start is kept. Where
 * `mock` restarts itself at launch for its malloc setting (src/cli/malloc-tuning.ts), it is also
 * timed with the restart off, so the restart's cost stands beside it.
 */
import { mallocTuningSwitch } from '../../src/cli/malloc-tuning.js';
import type { BenchOptions } from '../config.js';
import { type GroupResult, num, times } from '../figures.js';
import { freePort } from '../free-port.js';
import { median } from '../load.js';
import { type Launch, prismVersion, servers, startChild } from '../processes.js';

const mockRestarts = process.platform === 'linux' && typeof (process as unknown as { execve?: unknown }).execve === 'function';

export async function runStartup(options: BenchOptions, progress: (line: string) => void): Promise<GroupResult> {
  const contenders: [string, (port: number) => Launch][] = [
    ['bare node:http', servers.bare],
    ['evidence-harness mock --quiet', servers['mock-quiet']],
  ];
  if (mockRestarts) {
    contenders.push([
      `evidence-harness mock --quiet, ${mallocTuningSwitch}=off`,
      (port) => ({ ...servers['mock-quiet'](port), env: { [mallocTuningSwitch]: 'off' } }),
    ]);
  }
  if (!options.quick) contenders.push([`Prism ${prismVersion} mock`, servers['prism-silent']]);
  const runs = new Map<string, number[]>(contenders.map(([label]) => [label, []]));
  for (let round = 0; round < (options.quick ? 1 : 5); round += 1) {
    for (const [label, launch] of contenders) {
      const port = await freePort();
      const server = await startChild(launch(port), port);
      await server.stop();
      runs.get(label)!.push(server.readyMs);
    }
  }
  const bare = median(runs.get('bare node:http')!);
  const mock = median(runs.get('evidence-harness mock --quiet')!);
  progress(`startup: mock ${mock.toFixed(0)} ms, bare ${bare.toFixed(0)} ms`);
  return {
    group: 'startup',
    figures: { 'startup.mockOverBare': mock / bare },
    tables: {
      startup: {
        headers: ['Server', 'Median ms', 'Each start, ms', '× bare'],
        rows: contenders.map(([label]) => {
          const each = runs.get(label)!;
          return [label, num(median(each)), each.map((value) => value.toFixed(0)).join(', '), times(median(each) / bare)];
        }),
      },
    },
  };
}
