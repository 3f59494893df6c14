/**
 * @module bench/children/msw-loop
 * MSW in-process: one setupServer, one fetch loop, two handler sets swapped in turn — the
 * engine's handlers (mocks/handlers.ts) and a trivial handler answering a fixed JSON body for
 * any URL. The same requests go through the same interception both times, so the ratio is the
 * cost of the engine. Samples alternate (engine, static, engine, static, …) to spread drift.
 * Prints one JSON line.
 *
 * Run: node dist/bench/children/msw-loop.js --duration-ms 1000 --concurrency 10 --samples 2
 */
import { parseArgs } from 'node:util';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { createHandlers } from '../../mocks/handlers.js';
import { evaluationBody, freshKey } from '../workloads.js';
import { fetchLoop } from './fetch-loop.js';

const { values } = parseArgs({
  options: {
    'duration-ms': { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '10' },
    samples: { type: 'string', default: '2' },
  },
});
const durationMs = Number(values['duration-ms']);
const concurrency = Number(values.concurrency);
const samples = Number(values.samples);
const baseUrl = 'http://bench.test';

const engineHandlers = createHandlers({ baseUrl, controlApi: false }).handlers;
const staticHandlers = [http.all(`${baseUrl}/*`, () => HttpResponse.json({ status: 'ok' }))];
const server = setupServer(...engineHandlers);
server.listen({ onUnhandledRequest: 'error' });

const created = await fetch(`${baseUrl}/v0/evaluations`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'idempotency-key': freshKey() },
  body: evaluationBody,
});
const { jobId } = (await created.json()) as { jobId: string };

const requests = {
  health: () => fetch(`${baseUrl}/health`),
  getJob: () => fetch(`${baseUrl}/v0/jobs/${jobId}`),
  createEvaluation: () =>
    fetch(`${baseUrl}/v0/evaluations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': freshKey() },
      body: evaluationBody,
    }),
} as const;

type Kind = 'engine' | 'static';
const results: Record<string, Record<Kind, { rps: number[]; failures: number }>> = {};
for (const [name, send] of Object.entries(requests)) {
  const entry: Record<Kind, { rps: number[]; failures: number }> = {
    engine: { rps: [], failures: 0 },
    static: { rps: [], failures: 0 },
  };
  const order: Kind[] = ['engine', 'static'];
  // Warm-up, unmeasured: both handler sets, so neither pays for the JIT in its sample.
  for (const kind of order) {
    server.resetHandlers(...(kind === 'engine' ? engineHandlers : staticHandlers));
    await fetchLoop({ send, durationMs: Math.min(300, durationMs / 2), concurrency });
  }
  for (let sample = 0; sample < samples; sample += 1) {
    for (const kind of sample % 2 === 0 ? order : [...order].reverse()) {
      server.resetHandlers(...(kind === 'engine' ? engineHandlers : staticHandlers));
      const result = await fetchLoop({ send, durationMs, concurrency });
      entry[kind].rps.push(result.rps);
      entry[kind].failures += result.failures;
    }
  }
  results[name] = entry;
}
server.close();
process.stdout.write(`${JSON.stringify({ concurrency, durationMs, samples, results })}\n`);
