/**
 * @module bench/groups/conformance
 * Wall time of the conformance runner (the built CLI, default limits, a fixed seed so the same
 * probes run every time, both callers so every required check runs) against the mock; and the
 * cost of learning a profile (issue 41: `--write-profile` adds at most 30% to a plain run's
 * requests and wall time), measured side by side: plain and learning runs alternate, each
 * against a fresh mock, and the medians are compared.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executablePath } from '../../src/openapi/package-root.js';
import type { BenchOptions } from '../config.js';
import { type GroupResult, num, times } from '../figures.js';
import { runNode, servers, startServer } from '../processes.js';

const callers = ['--header', 'Authorization: Bearer alice', '--second-caller-header', 'Authorization: Bearer bob'];

/** One run against a fresh mock: its exit code, wall time, and the report's requests and duration. */
async function oneRun(options: { folder: string; name: string; learn: boolean }) {
  const server = await startServer(servers['mock-quiet']);
  try {
    const report = join(options.folder, `${options.name}.json`);
    const learn = options.learn ? ['--write-profile', join(options.folder, `${options.name}.yaml`)] : [];
    const run = await runNode({
      args: [
        executablePath(),
        'conformance',
        '--base-url',
        server.url,
        '--seed',
        '1',
        '--quiet',
        ...callers,
        '--report',
        `json=${report}`,
        ...learn,
      ],
      timeoutMs: 180_000,
    });
    const json = JSON.parse(readFileSync(report, 'utf8')) as { requests: number; durationMs: number };
    return { run, requests: json.requests, durationMs: json.durationMs };
  } finally {
    await server.stop();
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function runConformance(options: BenchOptions, progress: (line: string) => void): Promise<GroupResult> {
  const folder = mkdtempSync(join(tmpdir(), 'eh-bench-conformance-'));
  try {
    const rounds = options.quick ? 1 : 3;
    const plain: Awaited<ReturnType<typeof oneRun>>[] = [];
    const learning: Awaited<ReturnType<typeof oneRun>>[] = [];
    for (let round = 1; round <= rounds; round += 1) {
      plain.push(await oneRun({ folder, name: `plain-${round}`, learn: false }));
      learning.push(await oneRun({ folder, name: `learn-${round}`, learn: true }));
      progress(
        `conformance round ${round}: plain ${plain.at(-1)!.requests} requests ${(plain.at(-1)!.durationMs / 1000).toFixed(2)} s, ` +
          `--write-profile ${learning.at(-1)!.requests} requests ${(learning.at(-1)!.durationMs / 1000).toFixed(2)} s`,
      );
    }
    const first = plain[0]!.run;
    const verdict = first.stdout.trim().split('\n').at(-1) ?? '';
    const requestsRatio = median(learning.map((run) => run.requests)) / median(plain.map((run) => run.requests));
    const durationRatio = median(learning.map((run) => run.durationMs)) / median(plain.map((run) => run.durationMs));
    const worstCode = Math.max(...[...plain, ...learning].map((run) => run.run.code ?? -1));
    return {
      group: 'conformance',
      figures: {
        'conformance.wallS': first.wallMs / 1000,
        'conformance.exitCode': worstCode,
        'conformance.learning.requestsRatio': requestsRatio,
        'conformance.learning.durationRatio': durationRatio,
      },
      tables: {
        conformance: {
          headers: ['Wall time s', 'Exit code', "Runner's verdict"],
          rows: [[num(first.wallMs / 1000), String(first.code), verdict]],
        },
        'conformance.learning': {
          headers: ['Run', 'Requests (median)', 'Duration s (median)', 'Durations s (each round)'],
          rows: [
            [
              'plain',
              num(median(plain.map((run) => run.requests))),
              num(median(plain.map((run) => run.durationMs)) / 1000),
              plain.map((run) => (run.durationMs / 1000).toFixed(2)).join(', '),
            ],
            [
              '--write-profile',
              num(median(learning.map((run) => run.requests))),
              num(median(learning.map((run) => run.durationMs)) / 1000),
              learning.map((run) => (run.durationMs / 1000).toFixed(2)).join(', '),
            ],
            ['ratio', times(requestsRatio), times(durationRatio), ''],
          ],
        },
      },
    };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
