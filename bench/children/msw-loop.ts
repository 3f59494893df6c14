/**
 * @module bench/children/msw-loop
 * One setupServer, one closed fetch loop (10 requests in flight), the handler set swapped in
 * turn: the engine's handlers and a trivial one answering a fixed JSON body. The same requests
 * go through the same interception both times, so the ratio is the engine's cost. Samples
 * alternate (engine, static, static, engine, …) to spread drift. Prints one JSON line.
 *
 * Run: node dist/bench/children/msw-loop.js --duration-ms 1000 --samples 2
 */
import { parseArgs } from 'node:util';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { createHandlers } from '../../mocks/handlers.js';
import { evaluationBody, freshKey } from '../load.js';

const { values } = parseArgs({
  options: { 'duration-ms': { type: 'string', default: '1000' }, samples: { type: 'string', default: '2' } },
});
const durationMs = Number(values['duration-ms']);
const baseUrl = 'http://bench.test';
const handlerSets = {
  engine: createHandlers({ baseUrl, controlApi: false }).handlers,
  static: [http.all(`${baseUrl}/*`, () => HttpResponse.json({ status: 'ok' }))],
};
const server = setupServer(...handlerSets.engine);
server.listen({ onUnhandledRequest: 'error' });
const created = await fetch(`${baseUrl}/v0/evaluations`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'idempotency-key': freshKey() },
  body: evaluationBody,
});
const { jobId } = (await created.json()) as { jobId: string };
const requests: Record<string, () => Promise<Response>> = {
  health: () => fetch(`${baseUrl}/health`),
  getJob: () => fetch(`${baseUrl}/v0/jobs/${jobId}`),
  createEvaluation: () =>
    fetch(`${baseUrl}/v0/evaluations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': freshKey() },
      body: evaluationBody,
    }),
};

async function loop(send: () => Promise<Response>, ms: number): Promise<{ rps: number; failures: number }> {
  const started = performance.now();
  let count = 0;
  let failures = 0;
  const worker = async () => {
    while (performance.now() < started + ms) {
      const response = await send();
      await response.arrayBuffer();
      if (!response.ok) failures += 1;
      count += 1;
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
  return { rps: count / ((performance.now() - started) / 1000), failures };
}

const results: Record<string, { engine: number; static: number; failures: number }> = {};
for (const [name, send] of Object.entries(requests)) {
  const rps = { engine: [] as number[], static: [] as number[] };
  let failures = 0;
  for (let sample = -1; sample < Number(values.samples); sample += 1) {
    for (const kind of sample % 2 === 0 ? (['engine', 'static'] as const) : (['static', 'engine'] as const)) {
      server.resetHandlers(...handlerSets[kind]);
      // Sample -1 warms both handler sets up, unmeasured.
      const result = await loop(send, sample < 0 ? Math.min(300, durationMs / 2) : durationMs);
      if (sample >= 0) rps[kind].push(result.rps);
      failures += result.failures;
    }
  }
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  results[name] = { engine: mean(rps.engine), static: mean(rps.static), failures };
}
server.close();
process.stdout.write(`${JSON.stringify(results)}\n`);
