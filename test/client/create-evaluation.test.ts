/**
 * createEvaluation's retries (docs/assumptions.md A-62) against the mock engine in process on a
 * virtual clock: every wait it asks for is recorded, not slept, and the journal shows each
 * attempt carried the same Idempotency-Key.
 */
import { expect, it } from 'vitest';
import {
  type CreateAttemptEvent,
  CreateEvaluationError,
  createEvaluation,
  createEvidenceClient,
  type EvaluationRequest,
} from '../../src/client/index.js';
import type { ScenarioInput } from '../../src/engine/index.js';
import { evaluationRequest } from '../support/fixtures.js';
import { baseUrl, inProcessClient } from './in-process-client.js';

const body = evaluationRequest() as EvaluationRequest;

function createFault(status: 429 | 500 | 503, extra: { retryAfter?: number; times?: number } = {}): ScenarioInput {
  return {
    name: `create-${status}`,
    description: `createEvaluation answers ${status}`,
    faults: [{ operation: 'createEvaluation', status, ...extra }],
  };
}

async function failure(promise: Promise<unknown>): Promise<CreateEvaluationError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof CreateEvaluationError)) throw new Error(`expected a CreateEvaluationError, got ${String(error)}`);
  return error;
}

it('sends the create again with the same key after a 503, waiting the Retry-After, and makes one job', async () => {
  const mock = inProcessClient({ scenario: createFault(503, { retryAfter: 2, times: 2 }) });
  const events: CreateAttemptEvent[] = [];
  const created = await createEvaluation(mock.client, {
    body,
    idempotencyKey: 'retry-key',
    clock: mock.pollClock,
    onAttempt: (event) => events.push(event),
  });
  expect(created.attempts).toBe(3);
  expect(created.job.status).toBe('QUEUED');
  expect(mock.sleeps).toEqual([2000, 2000]);
  expect(events.map((event) => [event.status, event.retryAfterMs, event.nextAttemptInMs])).toEqual([
    [503, 2000, 2000],
    [503, 2000, 2000],
    [202, undefined, undefined],
  ]);
  const calls = mock.engine.control.calls({ operation: 'createEvaluation' });
  expect(calls.map((call) => [call.status, call.idempotencyKey])).toEqual([
    [202, 'retry-key'],
    [503, 'retry-key'],
    [503, 'retry-key'],
  ]);
  expect(await mock.engine.control.listJobs()).toHaveLength(1);
});

it('backs off exponentially on 429 without Retry-After, and gives up after maxAttempts', async () => {
  const mock = inProcessClient({ scenario: createFault(429) });
  const error = await failure(createEvaluation(mock.client, { body, maxAttempts: 4, initialDelayMs: 100, clock: mock.pollClock }));
  expect(error.kind).toBe('attempts_exhausted');
  expect(error.attempts).toBe(4);
  expect(error.status).toBe(429);
  expect(mock.sleeps.length).toBe(3);
  expect(error.message).toMatch(/attempt 4 of 4 answered 429; no job was created/);
});

it('stops when the service asks to wait past the timeout', async () => {
  const mock = inProcessClient({ scenario: createFault(503, { retryAfter: 60 }) });
  const error = await failure(createEvaluation(mock.client, { body, timeoutMs: 10_000, clock: mock.pollClock }));
  expect(error.kind).toBe('timeout');
  expect(error.attempts).toBe(1);
  expect(error.message).toMatch(/retry after 60000 ms, past the 10000 ms timeout/);
});

it('does not send again what another attempt would not fix (400, 500)', async () => {
  for (const scenario of [createFault(500), undefined]) {
    const mock = inProcessClient(scenario ? { scenario } : {});
    const sent = scenario ? body : ({ ...body, evidence: [] } as EvaluationRequest);
    const error = await failure(createEvaluation(mock.client, { body: sent, clock: mock.pollClock }));
    expect(error.kind).toBe('rejected');
    expect(error.attempts).toBe(1);
    expect(mock.sleeps).toEqual([]);
  }
});

it('retries a request that failed before any answer, with the same key', async () => {
  const mock = inProcessClient();
  const keys: string[] = [];
  let dropped = 0;
  const client = createEvidenceClient({
    baseUrl,
    fetch: async (request) => {
      keys.push(request.headers.get('idempotency-key') ?? '');
      if (dropped < 2) {
        dropped += 1;
        throw new TypeError('fetch failed: socket hang up');
      }
      return mock.engine.handle(request);
    },
  });
  const created = await createEvaluation(client, { body, clock: mock.pollClock });
  expect(created.attempts).toBe(3);
  expect(new Set(keys).size).toBe(1);
  expect(keys[0]).toBe(created.idempotencyKey);
  expect(mock.sleeps).toEqual([250, 500]);
});

it('stops at once when the signal aborts', async () => {
  const mock = inProcessClient({ scenario: createFault(503, { retryAfter: 1 }) });
  const controller = new AbortController();
  const error = await failure(
    createEvaluation(mock.client, {
      body,
      signal: controller.signal,
      clock: mock.pollClock,
      onAttempt: () => controller.abort(new Error('test over')),
    }),
  );
  expect(error.kind).toBe('aborted');
});
