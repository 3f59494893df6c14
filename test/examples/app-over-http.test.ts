/**
 * The example app's flows against the `evidence-harness mock` server over HTTP: the server on
 * a random loopback port, the app's typed client on the real fetch, the server stopped after.
 */
import { createEvidenceClient } from 'evidence-harness/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runEvaluation } from '../../examples/app/src/flows.js';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';
import { type AppFlowTarget, appFlowCases, instantClock, testKeys } from './app-flows.suite.js';

let server: RunningMockServer;

beforeAll(async () => {
  server = await startMockServer({ port: 0, host: '127.0.0.1', engineOptions: { seed: 11 } });
});
afterAll(() => server?.close());

const target: AppFlowTarget = {
  context: ({ scenario, timeoutMs } = {}) => ({
    client: createEvidenceClient({ baseUrl: server.url }),
    apiBaseUrl: server.url,
    newKey: testKeys(),
    ...(scenario ? { scenario } : {}),
    // The server keeps real time; the default timeline also moves by reads, so polls need not wait.
    polling: { clock: instantClock(), ...(timeoutMs ? { timeoutMs } : {}) },
  }),
  control: () => server.engine.control,
};

appFlowCases(() => target);

it('says the API is unreachable when nothing listens there', async () => {
  const stopped = await startMockServer({ port: 0, host: '127.0.0.1' });
  await stopped.close();
  const outcome = await runEvaluation(
    { ...target.context(), client: createEvidenceClient({ baseUrl: stopped.url }), apiBaseUrl: stopped.url },
    {
      onStep: () => {},
    },
  );
  if (outcome.kind !== 'refused') throw new Error(`expected refused, got ${outcome.kind}`);
  expect(outcome.failure).toMatchObject({ status: 0, headline: 'No answer' });
  expect(outcome.failure.message).toContain(stopped.url);
});
