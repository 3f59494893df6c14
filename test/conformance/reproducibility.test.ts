/**
 * The same --seed reproduces the same run: the same requests, in the same order, with the same
 * bodies and keys. Against an engine on a virtual clock (time never moves, so job progress
 * depends only on reads) and seeded job ids, the whole report is the same too.
 */
import { expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/run.js';
import { createMockEngine, VirtualClock } from '../../src/engine/index.js';

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
