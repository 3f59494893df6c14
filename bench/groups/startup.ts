/**
 * @module bench/groups/startup
 * Time from spawning a server's process to its first 200 on GET /health, polled every 5 ms.
 * The servers take turns (bare, mock, Prism, bare, …) so that a burst of load from elsewhere
 * on the machine spreads over all of them; the median of the starts is reported. In full runs
 * a bundled build of the mock CLI is timed too, as an experiment (bench/bundle-experiment).
 */
import type { BenchConfig } from '../bench-config.js';
import { bundleCli } from '../bundle-experiment.js';
import { startChild } from '../child-server.js';
import { freePort } from '../free-port.js';
import { launchFor, type TargetName, targetLabels } from '../servers.js';

export interface StartupRow {
  readonly target: TargetName | 'mock-bundled';
  readonly label: string;
  readonly runsMs: readonly number[];
  readonly medianMs: number;
  readonly command: string;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

interface Contender {
  readonly target: StartupRow['target'];
  readonly label: string;
  readonly command: string;
  launch(port: number): { command: string; args: readonly string[] };
}

export async function runStartup(config: BenchConfig, progress: (line: string) => void): Promise<StartupRow[]> {
  const contenders: Contender[] = (['bare', 'mock', 'prism'] as const)
    .filter((target) => config.targets.includes(target))
    .map((target) => ({
      target,
      label: targetLabels[target],
      command: `node dist/bench/run-bench.js --group startup --target ${target === 'bare' ? 'bare' : `bare,${target}`}`,
      launch: (port) => launchFor(target, port),
    }));
  const bundle = !config.smoke && config.targets.includes('mock') ? await bundleCli() : undefined;
  if (bundle) {
    contenders.push({
      target: 'mock-bundled',
      label: 'evidence-harness mock, bundled by rolldown (experiment, not shipped)',
      command: 'node dist/bench/run-bench.js --group startup --target bare,mock',
      launch: (port) => ({ command: process.execPath, args: [bundle.entry, 'mock', '--port', String(port), '--quiet'] }),
    });
  }
  const runs = new Map<Contender, number[]>(contenders.map((contender) => [contender, []]));
  try {
    for (let round = 0; round < config.startupRuns; round += 1) {
      for (const contender of contenders) {
        const port = await freePort();
        const launch = contender.launch(port);
        const server = await startChild({ command: launch.command, args: launch.args, port, timeoutMs: 30_000 });
        await server.stop();
        runs.get(contender)!.push(server.readyMs);
      }
    }
  } finally {
    bundle?.remove();
  }
  return contenders.map((contender) => {
    const runsMs = runs.get(contender)!;
    const row = { target: contender.target, label: contender.label, runsMs, medianMs: median(runsMs), command: contender.command };
    progress(`startup ${contender.target}: median ${row.medianMs.toFixed(0)} ms`);
    return row;
  });
}
