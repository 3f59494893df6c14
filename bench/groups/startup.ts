/**
 * @module bench/groups/startup
 * Time from spawning a server's process to its first 200 on GET /health, polled every 5 ms.
 * The servers take turns (bare, mock, Prism, bare, …) so that a burst of load from elsewhere
 * on the machine spreads over all of them; the median of the starts is reported. The mock is
 * timed twice: as shipped (the bundle of scripts/bundle-cli.mjs) and from tsc's unbundled
 * output, to show what the bundle buys. Where `mock` restarts itself at launch for its malloc
 * setting (Linux, glibc, Node with process.execve: src/cli/malloc-tuning.ts), it is timed a third
 * time with the restart switched off, so that its cost is measured beside it.
 */

import { join } from 'node:path';
import { mallocTuningSwitch } from '../../src/cli/malloc-tuning.js';
import { executablePath, packageRoot } from '../../src/openapi/package-root.js';
import type { BenchConfig } from '../bench-config.js';
import { startChild } from '../child-server.js';
import { freePort } from '../free-port.js';
import { launchFor, type TargetName, targetLabels } from '../servers.js';

export interface StartupRow {
  readonly target: TargetName | 'mock-unbundled' | 'mock-no-restart';
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
  launch(port: number): { command: string; args: readonly string[]; env?: Record<string, string> };
}

/** Whether `mock` restarts itself on this node (the decision's other inputs are the machine's, the same for every start). */
const mockRestarts = process.platform === 'linux' && typeof (process as unknown as { execve?: unknown }).execve === 'function';

export async function runStartup(config: BenchConfig, progress: (line: string) => void): Promise<StartupRow[]> {
  const contenders: Contender[] = (['bare', 'mock', 'prism'] as const)
    .filter((target) => config.targets.includes(target))
    .map((target) => ({
      target,
      label: targetLabels[target],
      command: `node dist/bench/run-bench.js --group startup --target ${target === 'bare' ? 'bare' : `bare,${target}`}`,
      launch: (port) => launchFor(target, port),
    }));
  if (!config.smoke && config.targets.includes('mock')) {
    const unbundled = join(packageRoot(), 'dist/src/cli/bin.js');
    contenders.push({
      target: 'mock-unbundled',
      label: "evidence-harness mock, unbundled (tsc's output, not what ships)",
      command: 'node dist/bench/run-bench.js --group startup --target bare,mock',
      launch: (port) => ({ command: process.execPath, args: [unbundled, 'mock', '--port', String(port), '--quiet'] }),
    });
    if (mockRestarts) {
      contenders.push({
        target: 'mock-no-restart',
        label: `evidence-harness mock, ${mallocTuningSwitch}=off (no malloc restart)`,
        command: `${mallocTuningSwitch}=off node dist/bench/run-bench.js --group startup --target bare,mock`,
        launch: (port) => ({
          command: process.execPath,
          args: [executablePath(), 'mock', '--port', String(port), '--quiet'],
          env: { [mallocTuningSwitch]: 'off' },
        }),
      });
    }
  }
  const runs = new Map<Contender, number[]>(contenders.map((contender) => [contender, []]));
  for (let round = 0; round < config.startupRuns; round += 1) {
    for (const contender of contenders) {
      const port = await freePort();
      const launch = contender.launch(port);
      const server = await startChild({
        command: launch.command,
        args: launch.args,
        port,
        timeoutMs: 30_000,
        ...(launch.env ? { env: launch.env } : {}),
      });
      await server.stop();
      runs.get(contender)!.push(server.readyMs);
    }
  }
  return contenders.map((contender) => {
    const runsMs = runs.get(contender)!;
    const row = { target: contender.target, label: contender.label, runsMs, medianMs: median(runsMs), command: contender.command };
    progress(`startup ${contender.target}: median ${row.medianMs.toFixed(0)} ms`);
    return row;
  });
}
