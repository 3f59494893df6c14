/**
 * The same --seed and --run-id reproduce the same run: the same requests, in the same order,
 * with the same bodies and keys. Against an engine on a virtual clock (time never moves, so job
 * progress depends only on reads) and seeded job ids, the whole report is the same too. The same
 * seed with a new run id sends the same requests under new Idempotency-Keys, so a rerun against
 * a server that saw the first run creates jobs again and runs every check.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/run.js';
import { createMockEngine, VirtualClock } from '../../src/engine/index.js';
import { startMockServer } from '../../src/server/mock-server.js';
import { testTimeout } from '../support/time-limits.js';
import { runCli } from './cli-process.js';
import { freePort } from './prism-support.js';

function freshEngine() {
  return createMockEngine({ seed: 1, clock: new VirtualClock({ start: Date.UTC(2026, 10, 22) }) });
}

async function run(seed: number, options: { runId?: string; engine?: ReturnType<typeof freshEngine> } = {}) {
  const engine = options.engine ?? freshEngine();
  const sent: string[] = [];
  const report = await runConformance({
    baseUrl: 'http://mock.test',
    seed,
    ...(options.runId === undefined ? {} : { runId: options.runId }),
    // Both callers' credentials, so that every check (ignored_auth, second_caller_isolation) runs.
    headers: { Authorization: 'Bearer alice' },
    secondCallerHeaders: { Authorization: 'Bearer bob' },
    // Room for every probe before the generated inputs (negative breadth and sequences: about
    // 230 requests), so every check runs in full; the generated inputs take what is left.
    maxRequests: 300,
    examplesPerOperation: 10,
    fetch: async (request) => {
      // The key in brackets: some are sent in other forms (upper case, with spaces around or inside).
      sent.push(`${request.method} ${request.url} [${request.headers.get('idempotency-key') ?? ''}] ${await request.clone().text()}`);
      return engine.handle(request);
    },
  });
  return { sent, report };
}

it('sends the same requests, in the same order, for the same seed and run id', async () => {
  const first = await run(99, { runId: 'same-run' });
  const second = await run(99, { runId: 'same-run' });
  expect(second.sent).toEqual(first.sent);
  const strip = (report: typeof first.report) => ({ ...report, startedAt: '', durationMs: 0 });
  expect(strip(second.report)).toEqual(strip(first.report));
});

it('sends other generated inputs for another seed', async () => {
  const first = await run(99, { runId: 'same-run' });
  const other = await run(100, { runId: 'same-run' });
  expect(other.sent).not.toEqual(first.sent);
  expect(other.sent.length).toBeGreaterThan(50);
});

it('reruns a seed against the same long-lived server: the same requests under new keys, every check run again', async () => {
  const engine = freshEngine();
  const first = await run(99, { engine });
  const second = await run(99, { engine });
  expect(second.report.runId).not.toBe(first.report.runId);
  // New keys make new jobs: the second run's job ids differ from the first's, as they should.
  const withoutKeys = (sent: readonly string[]) =>
    sent.map((line) => line.replace(/ \[[^\]]*eh-[^\]]*\] /i, ' [KEY] ').replace(/job_[0-9A-Z]{26}/g, 'JOB'));
  expect(withoutKeys(second.sent)).toEqual(withoutKeys(first.sent));
  // Each key as its seed-derived token, whatever form it was sent in.
  const keysOf = (sent: readonly string[]) =>
    new Set(
      sent.flatMap((line) => /eh-[0-9a-f]{32}/.exec((/ \[([^\]]*)\] /.exec(line)?.[1] ?? '').toLowerCase().replace(/\s/g, '')) ?? []),
    );
  expect([...keysOf(second.sent)].filter((key) => keysOf(first.sent).has(key))).toEqual([]);
  const skipped = (report: typeof first.report) => report.checks.filter((check) => check.status !== 'passed').map((check) => check.name);
  expect(skipped(first.report)).toEqual([]);
  expect(skipped(second.report)).toEqual([]);
  expect(second.report.verdict).toBe('passed');
});

it(
  'writes byte-identical JSON reports for the same --seed and --run-id through the built CLI, apart from timings',
  async () => {
    const port = await freePort();
    const folder = mkdtempSync(join(tmpdir(), 'eh-reproducible-'));
    const reports: string[] = [];
    for (const run of [1, 2]) {
      // A fresh mock on the same port each time: the same keys on a server that has seen them would be replays.
      const server = await startMockServer({ port, host: '127.0.0.1' });
      try {
        const file = join(folder, `report-${run}.json`);
        const result = await runCli([
          'conformance',
          '--base-url',
          server.url,
          '--seed',
          '5',
          '--run-id',
          'repeat-5',
          '--quiet',
          '--header',
          'Authorization: Bearer alice',
          '--second-caller-header',
          'Authorization: Bearer bob',
          '--report',
          `json=${file}`,
        ]);
        expect(result.code, result.stdout + result.stderr).toBe(0);
        reports.push(readFileSync(file, 'utf8'));
      } finally {
        await server.close();
      }
    }
    // How tightly the bursts went out is a timing too (a note: "… within 0.12 ms of each other").
    const withoutTimings = (text: string) =>
      text
        .replace(/"startedAt": "[^"]+"/, '"startedAt": ""')
        .replace(/"durationMs": \d+/, '"durationMs": 0')
        .replace(/within [\d.]+ ms of each other/g, 'within N ms of each other');
    expect(withoutTimings(reports[1]!)).toBe(withoutTimings(reports[0]!));
  },
  testTimeout({ processes: 5 }),
);
