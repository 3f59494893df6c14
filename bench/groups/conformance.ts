/**
 * @module bench/groups/conformance
 * Wall time of the conformance runner (the built CLI, default limits, a fixed seed so the
 * same probes run every time) against the mock server in its own child process.
 */

import { executablePath } from '../../src/openapi/package-root.js';
import type { BenchConfig } from '../bench-config.js';
import { runNode } from '../run-node.js';
import { startTarget } from '../servers.js';

export interface ConformanceResult {
  readonly wallMs: number;
  readonly exitCode: number | null;
  /** The runner's last line of output: its verdict. */
  readonly summary: string;
  readonly command: string;
}

export async function runConformance(_config: BenchConfig, progress: (line: string) => void): Promise<ConformanceResult> {
  const server = await startTarget('mock');
  try {
    // Both callers, so every required check runs (without a second caller the run is incomplete, exit 3).
    const callers = ['--header', 'Authorization: Bearer alice', '--second-caller-header', 'Authorization: Bearer bob'];
    const args = [executablePath(), 'conformance', '--base-url', server.url, '--seed', '1', '--quiet', ...callers];
    const run = await runNode({ args, timeoutMs: 180_000 });
    const summary = run.stdout.trim().split('\n').at(-1) ?? '';
    progress(`conformance: ${(run.wallMs / 1000).toFixed(2)} s, exit ${run.code}`);
    return {
      wallMs: run.wallMs,
      exitCode: run.code,
      summary,
      command:
        "node dist/cli/evidence-harness.js conformance --base-url http://127.0.0.1:PORT --seed 1 --quiet --header 'Authorization: Bearer alice' --second-caller-header 'Authorization: Bearer bob'",
    };
  } finally {
    await server.stop();
  }
}
