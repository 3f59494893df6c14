/**
 * @module bench/groups/conformance
 * Wall time of the conformance runner (the built CLI, default limits, a fixed seed so the same
 * probes run every time, both callers so every required check runs) against the mock.
 */
import { executablePath } from '../../src/openapi/package-root.js';
import type { BenchOptions } from '../config.js';
import { type GroupResult, num } from '../figures.js';
import { runNode, servers, startServer } from '../processes.js';

export async function runConformance(_options: BenchOptions, progress: (line: string) => void): Promise<GroupResult> {
  const server = await startServer(servers['mock-quiet']);
  try {
    const callers = ['--header', 'Authorization: Bearer alice', '--second-caller-header', 'Authorization: Bearer bob'];
    const run = await runNode({
      args: [executablePath(), 'conformance', '--base-url', server.url, '--seed', '1', '--quiet', ...callers],
      timeoutMs: 180_000,
    });
    const verdict = run.stdout.trim().split('\n').at(-1) ?? '';
    progress(`conformance: ${(run.wallMs / 1000).toFixed(2)} s, exit ${run.code}`);
    return {
      group: 'conformance',
      figures: { 'conformance.wallS': run.wallMs / 1000, 'conformance.exitCode': run.code ?? -1 },
      tables: {
        conformance: {
          headers: ['Wall time s', 'Exit code', "Runner's verdict"],
          rows: [[num(run.wallMs / 1000), String(run.code), verdict]],
        },
      },
    };
  } finally {
    await server.stop();
  }
}
