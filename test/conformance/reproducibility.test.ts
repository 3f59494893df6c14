/**
 * The same --seed reproduces the same run: the same requests, in the same order, with the same
 * bodies and keys. Against an engine on a virtual clock (time never moves, so job progress
 * depends only on reads) and seeded job ids, the whole report is the same too.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/run.js';
import { createMockEngine, VirtualClock } from '../../src/engine/index.js';
import { startMockServer } from '../../src/server/mock-server.js';
import { runCli } from './cli-process.js';
import { freePort } from './prism-support.js';

async function run(seed: number) {
  const engine = createMockEngine({ seed: 1, clock: new VirtualClock({ start: Date.UTC(2026, 10, 22) }) });
  const sent: string[] = [];
  const report = await runConformance({
    baseUrl: 'http://mock.test',
    seed,
    maxRequests: 150,
    examplesPerOperation: 10,
    fetch: async (request) => {
      sent.push(`${request.method} ${request.url} ${request.headers.get('idempotency-key') ?? ''} ${await request.clone().text()}`);
      return engine.handle(request);
    },
  });
  return { sent, report };
}

it('sends the same requests, in the same order, for the same seed', async () => {
  const first = await run(99);
  const second = await run(99);
  expect(second.sent).toEqual(first.sent);
  const strip = (report: typeof first.report) => ({ ...report, startedAt: '', durationMs: 0 });
  expect(strip(second.report)).toEqual(strip(first.report));
});

it('sends other generated inputs for another seed', async () => {
  const first = await run(99);
  const other = await run(100);
  expect(other.sent).not.toEqual(first.sent);
  expect(other.sent.length).toBeGreaterThan(50);
});

it('writes byte-identical JSON reports for the same --seed through the built CLI, apart from timings', async () => {
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
  const withoutTimings = (text: string) =>
    text.replace(/"startedAt": "[^"]+"/, '"startedAt": ""').replace(/"durationMs": \d+/, '"durationMs": 0');
  expect(withoutTimings(reports[1]!)).toBe(withoutTimings(reports[0]!));
}, 120_000);
