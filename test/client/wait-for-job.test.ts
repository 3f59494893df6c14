/**
 * waitForJob against the mock engine in-process on a virtual clock: every wait it asks for is
 * recorded instead of slept, so backoff, Retry-After and the deadline are checked exactly and
 * nothing sleeps.
 */
import { expect, it } from 'vitest';
import {
  createEvidenceClient,
  type EvaluationRequest,
  type PollEvent,
  realClock,
  WaitForJobError,
  waitForJob,
} from '../../src/client/index.js';
import type { ScenarioInput } from '../../src/engine/index.js';
import { evaluationRequest } from '../support/fixtures.js';
import { baseUrl, type InProcessClient, inProcessClient } from './in-process-client.js';

async function createJob({ client }: InProcessClient, key = 'k-1'): Promise<string> {
  const created = await client.POST('/v0/evaluations', {
    params: { header: { 'Idempotency-Key': key } },
    body: evaluationRequest() as EvaluationRequest,
  });
  if (!created.data) throw new Error(`createEvaluation answered ${created.response.status}`);
  return created.data.jobId;
}

async function waitError(promise: Promise<unknown>): Promise<WaitForJobError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof WaitForJobError)) throw new Error(`expected a WaitForJobError, got ${String(error)}`);
  return error;
}

function faultOnGetJob(status: 429 | 500 | 503, extra: { retryAfter?: number; times?: number } = {}): ScenarioInput {
  return { name: `get-job-${status}`, description: `getJob answers ${status}`, faults: [{ operation: 'getJob', status, ...extra }] };
}

it('returns the COMPLETE job of the default timeline and reports every poll', async () => {
  const mock = inProcessClient();
  const jobId = await createJob(mock);
  const events: PollEvent[] = [];
  const job = await waitForJob(mock.client, jobId, { timeoutMs: 30_000, clock: mock.pollClock, onPoll: (event) => events.push(event) });
  expect(job).toEqual({ jobId, status: 'COMPLETE', evaluation: 'PASS' });
  expect(events.map((event) => [event.attempt, event.status, event.job?.status])).toEqual([
    [1, 200, 'RUNNING'],
    [2, 200, 'RUNNING'],
    [3, 200, 'COMPLETE'],
  ]);
  expect(events.at(-1)?.nextPollInMs).toBeUndefined();
});

it('waits twice as long after each poll, up to maxDelayMs, and polls once more at the deadline', async () => {
  const mock = inProcessClient({ scenario: 'manual' });
  const jobId = await createJob(mock);
  const error = await waitError(
    waitForJob(mock.client, jobId, { timeoutMs: 20_000, initialDelayMs: 1000, maxDelayMs: 4000, clock: mock.pollClock }),
  );
  expect(mock.sleeps).toEqual([1000, 2000, 4000, 4000, 4000, 4000, 1000]);
  expect(error.kind).toBe('timeout');
  expect(error.attempts).toBe(8);
  expect(error.lastJob).toEqual({ jobId, status: 'QUEUED' });
  expect(error.message).toContain('still QUEUED');
});

it('sees a job that finishes between two slow polls (a state may be skipped)', async () => {
  const mock = inProcessClient();
  const jobId = await createJob(mock);
  const statuses: string[] = [];
  const job = await waitForJob(mock.client, jobId, {
    timeoutMs: 60_000,
    initialDelayMs: 5000,
    clock: mock.pollClock,
    onPoll: ({ job }) => statuses.push(job?.status ?? '-'),
  });
  expect(job.status).toBe('COMPLETE');
  expect(statuses).toEqual(['RUNNING', 'COMPLETE']);
});

it.each([429, 503] as const)('honours Retry-After on a %i and then finishes', async (status) => {
  const mock = inProcessClient({ scenario: faultOnGetJob(status, { retryAfter: 3, times: 2 }) });
  const jobId = await createJob(mock);
  const events: PollEvent[] = [];
  const job = await waitForJob(mock.client, jobId, {
    timeoutMs: 30_000,
    initialDelayMs: 100,
    clock: mock.pollClock,
    onPoll: (event) => events.push(event),
  });
  expect(job.status).toBe('COMPLETE');
  expect(mock.sleeps.slice(0, 2)).toEqual([3000, 3000]);
  expect(events[0]).toMatchObject({
    status,
    retryAfterMs: 3000,
    nextPollInMs: 3000,
    error: { code: status === 429 ? 'rate_limited' : 'service_unavailable' },
  });
});

it('backs off on a 503 without Retry-After', async () => {
  const mock = inProcessClient({ scenario: faultOnGetJob(503, { times: 2 }) });
  // Forced 503s carry Retry-After: 1 unless told otherwise; strip it to see the backoff alone.
  const client = createEvidenceClient({
    baseUrl,
    fetch: async (request) => {
      const response = await mock.engine.handle(request);
      const headers = new Headers(response.headers);
      headers.delete('retry-after');
      return new Response(response.body, { status: response.status, headers });
    },
  });
  const jobId = await createJob({ ...mock, client });
  const job = await waitForJob(client, jobId, { timeoutMs: 30_000, initialDelayMs: 200, clock: mock.pollClock });
  expect(job.status).toBe('COMPLETE');
  expect(mock.sleeps.slice(0, 2)).toEqual([200, 400]);
});

it('gives up at once when Retry-After asks for a wait past the deadline', async () => {
  const mock = inProcessClient({ scenario: faultOnGetJob(503, { retryAfter: 60 }) });
  const jobId = await createJob(mock);
  const error = await waitError(waitForJob(mock.client, jobId, { timeoutMs: 10_000, clock: mock.pollClock }));
  expect(error.kind).toBe('timeout');
  expect(error.attempts).toBe(1);
  expect(error.message).toContain('retry after 60000 ms');
  expect(mock.sleeps).toEqual([]);
});

it('returns a FAILED job as a result, not an error', async () => {
  const mock = inProcessClient({ scenario: 'job-failed' });
  const jobId = await createJob(mock);
  const job = await waitForJob(mock.client, jobId, { timeoutMs: 30_000, clock: mock.pollClock });
  expect(job.status).toBe('FAILED');
  expect(job.evaluation).toBeUndefined();
});

it('stops with not_found on a 404', async () => {
  const mock = inProcessClient();
  const error = await waitError(waitForJob(mock.client, 'job-nobody-made', { timeoutMs: 30_000, clock: mock.pollClock }));
  expect(error).toMatchObject({ kind: 'not_found', status: 404, attempts: 1, jobId: 'job-nobody-made', body: { code: 'job_not_found' } });
  expect(mock.sleeps).toEqual([]);
});

it('stops with unexpected_response on a 500 (polling again would not fix it)', async () => {
  const mock = inProcessClient({ scenario: faultOnGetJob(500) });
  const jobId = await createJob(mock);
  const error = await waitError(waitForJob(mock.client, jobId, { timeoutMs: 30_000, clock: mock.pollClock }));
  expect(error).toMatchObject({ kind: 'unexpected_response', status: 500, body: { code: 'internal_error' } });
});

it('stops with aborted when the signal aborts between polls', async () => {
  const mock = inProcessClient({ scenario: 'manual' });
  const jobId = await createJob(mock);
  const controller = new AbortController();
  const error = await waitError(
    waitForJob(mock.client, jobId, {
      timeoutMs: 30_000,
      clock: mock.pollClock,
      signal: controller.signal,
      onPoll: ({ attempt }) => {
        if (attempt === 2) controller.abort(new Error('the user left the page'));
      },
    }),
  );
  expect(error.kind).toBe('aborted');
  expect(error.attempts).toBe(2);
  expect((error.cause as Error).message).toBe('the user left the page');
});

it('sends no request when the signal has already aborted', async () => {
  const mock = inProcessClient();
  const jobId = await createJob(mock);
  const error = await waitError(waitForJob(mock.client, jobId, { timeoutMs: 30_000, clock: mock.pollClock, signal: AbortSignal.abort() }));
  expect(error).toMatchObject({ kind: 'aborted', attempts: 0 });
  expect((await mock.engine.control.inspectJob(jobId))?.reads).toBe(0);
});

it('stops with request_failed when fetch throws', async () => {
  const client = createEvidenceClient({
    baseUrl,
    fetch: async () => {
      throw new TypeError('network down');
    },
  });
  const error = await waitError(waitForJob(client, 'job-1', { timeoutMs: 30_000, clock: inProcessClient().pollClock }));
  expect(error.kind).toBe('request_failed');
  expect(error.message).toContain('network down');
  expect(error.cause).toBeInstanceOf(TypeError);
});

it('refuses options that cannot work', async () => {
  const { client } = inProcessClient();
  await expect(waitForJob(client, 'job-1', { timeoutMs: -1 })).rejects.toThrow(RangeError);
  // real-time: never waited; the options are refused (RangeError) before any poll.
  await expect(waitForJob(client, 'job-1', { timeoutMs: 1000, initialDelayMs: 0 })).rejects.toThrow(RangeError);
  // real-time: never waited; the options are refused (RangeError) before any poll.
  await expect(waitForJob(client, 'job-1', { timeoutMs: 1000, initialDelayMs: 500, maxDelayMs: 100 })).rejects.toThrow(RangeError);
});

it('the real clock stops sleeping as soon as the signal aborts', async () => {
  const controller = new AbortController();
  const sleeping = realClock.sleep(60 * 60 * 1000, controller.signal);
  controller.abort();
  await expect(sleeping).resolves.toBeUndefined();
});

it("takes the engine's VirtualClock as its clock: a 20-second job finishes with no real wait", async () => {
  const mock = inProcessClient({ scenario: 'slow-pass' });
  const jobId = await createJob(mock);
  const job = await waitForJob(mock.client, jobId, { timeoutMs: 60_000, initialDelayMs: 5000, maxDelayMs: 10_000, clock: mock.clock });
  expect(job.status).toBe('COMPLETE');
  expect(mock.clock.now() - Date.UTC(2026, 10, 22)).toBeGreaterThanOrEqual(20_000);
});
