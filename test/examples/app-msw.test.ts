/**
 * The example app's flows under MSW's setupServer (evidence-harness/msw/node): the app's typed
 * client uses the global fetch, which MSW intercepts and answers from the mock engine.
 */

import { createEvidenceClient } from 'evidence-harness/client';
import { HttpResponse, http } from 'msw';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runEvaluation } from '../../examples/app/src/flows.js';
import { setupMockService } from '../../mocks/node.js';
import { VirtualClock } from '../../src/engine/index.js';
import { type AppFlowTarget, appFlowCases, testKeys } from './app-flows.suite.js';

// A host that does not resolve: only MSW can answer it.
const apiBaseUrl = 'http://api.evidence.test';
const clock = new VirtualClock({ start: Date.UTC(2026, 10, 22) });
const mock = setupMockService({ baseUrl: apiBaseUrl, clock, seed: 11 });

beforeAll(() => mock.server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => mock.server.close());

const target: AppFlowTarget = {
  context: ({ scenario, timeoutMs } = {}) => ({
    client: createEvidenceClient({ baseUrl: apiBaseUrl }),
    apiBaseUrl,
    newKey: testKeys(),
    ...(scenario ? { scenario } : {}),
    // The engine's own virtual clock: each wait of waitForJob moves the engine's time too.
    polling: { clock, ...(timeoutMs ? { timeoutMs } : {}) },
  }),
  control: () => mock.control,
};

appFlowCases(() => target);

it('polls on a shared virtual clock: a job timed by milliseconds finishes as time moves', async () => {
  const context = { ...target.context({ scenario: 'slow-pass' }), polling: { clock, initialDelayMs: 4000, maxDelayMs: 8000 } };
  const statuses: string[] = [];
  const outcome = await runEvaluation(context, { onStep: (step) => statuses.push(step.status) });
  expect(outcome).toMatchObject({ kind: 'finished', job: { status: 'COMPLETE' } });
  // slow-pass reaches COMPLETE at the 10th read or after 20 s; with these waits the time comes first.
  expect(statuses).toEqual(['QUEUED', 'RUNNING', 'COMPLETE']);
  expect(mock.engine.control.journal().filter((entry) => entry.operationId === 'getJob').length).toBeLessThan(10);
});

it('says the API is unreachable when no answer comes', async () => {
  mock.server.use(http.post(`${apiBaseUrl}/v0/evaluations`, () => HttpResponse.error(), { once: true }));
  const outcome = await runEvaluation(target.context(), { onStep: () => {} });
  if (outcome.kind !== 'refused') throw new Error(`expected refused, got ${outcome.kind}`);
  expect(outcome.failure).toMatchObject({ status: 0, headline: 'No answer' });
  expect(outcome.failure.message).toContain(apiBaseUrl);
});
