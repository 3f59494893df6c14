/**
 * The client judge (src/engine/client-findings/): each rule speaks about the client behaviour it
 * names, with an example request, and stays silent for the behaviour it asks for instead. The
 * project's own waitForJob, a well-behaved client, gets no finding at all.
 */
import { expect, it } from 'vitest';
import { type EvaluationRequest, waitForJob } from '../../src/client/index.js';
import { clientRules, createMockEngine, type MockEngine, type ScenarioInput, VirtualClock } from '../../src/engine/index.js';
import { inProcessClient } from '../client/in-process-client.js';
import { evaluationRequest, jsonPost } from '../support/fixtures.js';

const base = 'http://mock.test';

function setup(scenario?: ScenarioInput): { engine: MockEngine; clock: VirtualClock } {
  const clock = new VirtualClock({ start: Date.UTC(2026, 10, 23) });
  return { engine: createMockEngine({ clock, seed: 5, ...(scenario ? { scenario } : {}) }), clock };
}

const rulesFound = (engine: MockEngine) => engine.control.coverage().clientFindings.map((finding) => finding.rule);
const finding = (engine: MockEngine, rule: string) => engine.control.coverage().clientFindings.find((each) => each.rule === rule);

async function create(engine: MockEngine, options: { key: string; body?: unknown; headers?: Record<string, string> }): Promise<Response> {
  return engine.handle(
    new Request(
      `${base}/v0/evaluations`,
      jsonPost(options.body ?? evaluationRequest(), { 'idempotency-key': options.key, ...options.headers }),
    ),
  );
}

/**
 * A clock whose waits end only when the test releases them, and which says when the first wait
 * began (the first create is in the scenario's latency): an event the test awaits, not a sleep.
 */
function heldClock(now: () => number) {
  const waiting: (() => void)[] = [];
  let began: () => void = () => undefined;
  const inLatency = new Promise<void>((resolve) => {
    began = resolve;
  });
  const clock = {
    now,
    sleep: () =>
      new Promise<void>((resolve) => {
        waiting.push(resolve);
        began();
      }),
  };
  return { clock, waiting, inLatency };
}

const poll = (engine: MockEngine, jobId: string) => engine.handle(new Request(`${base}/v0/jobs/${jobId}`));

it('registers every rule once, each with a summary', () => {
  const names = clientRules.map((rule) => rule.name);
  expect(new Set(names).size).toBe(names.length);
  expect(names).toEqual([
    'poll_too_fast',
    'poll_without_backoff',
    'retry_after_ignored',
    'new_key_after_failure',
    'key_reused_with_other_body',
    'content_type_not_json',
    'invalid_request_repeated',
  ]);
  for (const rule of clientRules) expect(rule.summary.length).toBeGreaterThan(20);
});

it('poll_too_fast: a tight loop is found, with the rule, a count and an example request', async () => {
  const { engine, clock } = setup();
  const { jobId } = await (await create(engine, { key: 'k' })).json();
  for (let index = 0; index < 5; index += 1) {
    await poll(engine, jobId);
    clock.advance(5);
  }
  const found = finding(engine, 'poll_too_fast');
  expect(found?.count).toBe(4);
  expect(found?.message).toMatch(/5 ms after the poll before; wait at least 100 ms/);
  expect(found?.example).toMatchObject({
    method: 'GET',
    path: `/v0/jobs/${jobId}`,
    status: 200,
    operationId: 'getJob',
    caller: 'anonymous',
  });
});

it('poll_too_fast: polls 100 ms apart, or of different jobs, are not', async () => {
  const { engine, clock } = setup();
  const first = (await (await create(engine, { key: 'a' })).json()).jobId;
  const second = (await (await create(engine, { key: 'b' })).json()).jobId;
  await poll(engine, first);
  await poll(engine, second);
  clock.advance(100);
  await poll(engine, first);
  expect(rulesFound(engine)).not.toContain('poll_too_fast');
});

it('poll_without_backoff: five polls a steady 200 ms apart are found; doubling waits are not', async () => {
  const slow: ScenarioInput = {
    name: 'never-done',
    job: {
      timeline: [
        { status: 'RUNNING', at: { reads: 1 } },
        { status: 'COMPLETE', evaluation: 'PASS', at: 'manual' },
      ],
    },
  };
  const steady = setup(slow);
  const { jobId } = await (await create(steady.engine, { key: 'k' })).json();
  for (let index = 0; index < 6; index += 1) {
    await poll(steady.engine, jobId);
    steady.clock.advance(200);
  }
  expect(finding(steady.engine, 'poll_without_backoff')?.message).toMatch(
    /at a steady pace, the wait not growing \(waits: 200, 200, 200, 200, 200 ms\)/,
  );

  const doubling = setup(slow);
  const other = (await (await create(doubling.engine, { key: 'k' })).json()).jobId;
  for (const wait of [250, 500, 1000, 2000, 4000, 5000, 5000, 5000, 5000]) {
    await poll(doubling.engine, other);
    doubling.clock.advance(wait);
  }
  expect(rulesFound(doubling.engine)).toEqual([]);
});

it('retry_after_ignored: a retry 300 ms after "Retry-After: 2" is found; one 2 s later is not', async () => {
  const busy: ScenarioInput = { name: 'busy', faults: [{ operation: 'getJob', status: 429, times: 1, retryAfter: 2 }] };
  const eager = setup(busy);
  await poll(eager.engine, 'job-1');
  eager.clock.advance(300);
  await poll(eager.engine, 'job-1');
  expect(finding(eager.engine, 'retry_after_ignored')?.message).toMatch(/1700 ms before the Retry-After: 2 of the 429/);

  const patient = setup(busy);
  await poll(patient.engine, 'job-1');
  patient.clock.advance(2000);
  await poll(patient.engine, 'job-1');
  expect(rulesFound(patient.engine)).toEqual([]);
});

it('new_key_after_failure: a create retried after a 503 with a new key is found; with the same key it is not', async () => {
  const flaky: ScenarioInput = { name: 'flaky', faults: [{ operation: 'createEvaluation', status: 503, times: 1, retryAfter: 1 }] };
  const careless = setup(flaky);
  await create(careless.engine, { key: 'first' });
  careless.clock.advance(1000);
  await create(careless.engine, { key: 'second' });
  const found = finding(careless.engine, 'new_key_after_failure');
  expect(found?.message).toMatch(/answered 503 with a new Idempotency-Key/);
  expect(found?.example.idempotencyKey).toBe('second');

  const careful = setup(flaky);
  await create(careful.engine, { key: 'first' });
  careful.clock.advance(1000);
  await create(careful.engine, { key: 'first' });
  expect(rulesFound(careful.engine)).toEqual([]);
});

it('new_key_after_failure: a new create after a 202 is a new request, not a retry', async () => {
  const { engine, clock } = setup();
  await create(engine, { key: 'one' });
  clock.advance(10);
  await create(engine, { key: 'two', body: evaluationRequest({ operationId: 'op-2026-0002' }) });
  expect(rulesFound(engine)).toEqual([]);
});

it('new_key_after_failure: the same body sent under a new key while the first create was unanswered (a timeout) is found', async () => {
  // A clock whose waits end only when the test says: the first create sits in the scenario's
  // latency while the client, tired of waiting, sends it again under a new key.
  let now = Date.UTC(2026, 10, 23);
  const { clock, waiting, inLatency } = heldClock(() => now);
  // fake-time: the latency waits on heldClock, released by the test.
  const engine = createMockEngine({ clock, seed: 5, scenario: { name: 'slow-answers', latencyMs: 5000 } });
  const first = create(engine, { key: 'before-timeout' });
  await inLatency;
  now += 2000;
  const retried = await create(engine, { key: 'after-timeout', headers: { prefer: 'scenario=default' } });
  expect(retried.status).toBe(202);
  now += 3000;
  for (const release of waiting) release();
  expect((await first).status).toBe(202);
  const found = finding(engine, 'new_key_after_failure');
  expect(found?.message).toMatch(/while the first was still unanswered/);
  expect(found?.example.idempotencyKey).toBe('before-timeout');
});

it('new_key_after_failure: two different bodies in flight at once are two requests, not a retry', async () => {
  let now = Date.UTC(2026, 10, 23);
  const { clock, waiting, inLatency } = heldClock(() => now);
  // fake-time: the latency waits on heldClock, released by the test.
  const engine = createMockEngine({ clock, seed: 5, scenario: { name: 'slow-answers', latencyMs: 5000 } });
  const first = create(engine, { key: 'one' });
  await inLatency;
  now += 2000;
  await create(engine, { key: 'two', body: evaluationRequest({ operationId: 'op-2026-0777' }), headers: { prefer: 'scenario=default' } });
  for (const release of waiting) release();
  await first;
  expect(rulesFound(engine)).toEqual([]);
});

it('key_reused_with_other_body: a real 409 is found, a forced one is not', async () => {
  const { engine } = setup();
  await create(engine, { key: 'k', headers: { prefer: 'code=409' } });
  expect(rulesFound(engine)).toEqual([]);
  await create(engine, { key: 'k' });
  await create(engine, { key: 'k', body: evaluationRequest({ operationId: 'op-2026-0003' }) });
  expect(finding(engine, 'key_reused_with_other_body')?.example).toMatchObject({ status: 409, idempotencyKey: 'k' });
});

it('content_type_not_json: text/plain is found; application/json with a charset is not', async () => {
  const { engine } = setup();
  await engine.handle(
    new Request(`${base}/v0/evaluations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', 'idempotency-key': 'a' },
      body: JSON.stringify(evaluationRequest()),
    }),
  );
  expect(rulesFound(engine)).toEqual([]);
  await engine.handle(new Request(`${base}/v0/verifications`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }));
  expect(finding(engine, 'content_type_not_json')?.message).toMatch(/verifyReport with Content-Type 'text\/plain'/);
});

it('invalid_request_repeated: the same refused body sent again is found; a corrected one is not', async () => {
  const { engine } = setup();
  const invalid = evaluationRequest({ policyDigest: 'not-a-digest' });
  expect((await create(engine, { key: 'a', body: invalid })).status).toBe(400);
  expect((await create(engine, { key: 'a' })).status).toBe(202);
  expect(rulesFound(engine)).toEqual([]);
  await create(engine, { key: 'b', body: invalid });
  expect(finding(engine, 'invalid_request_repeated')?.message).toMatch(/already been refused for \(now 400 invalid_request\)/);
});

it('waitForJob, the project client, gets no finding through a 429 and a slow job', async () => {
  const scenario: ScenarioInput = {
    name: 'busy-slow',
    faults: [{ operation: 'getJob', status: 429, times: 1, retryAfter: 1 }],
    job: {
      timeline: [
        { status: 'RUNNING', at: { reads: 1 } },
        { status: 'COMPLETE', evaluation: 'PASS', at: { ms: 20_000 } },
      ],
    },
  };
  const { client, engine, pollClock } = inProcessClient({ scenario });
  const created = await client.POST('/v0/evaluations', {
    params: { header: { 'Idempotency-Key': 'wait-1' } },
    body: evaluationRequest() as EvaluationRequest,
  });
  const job = await waitForJob(client, created.data?.jobId ?? '', { timeoutMs: 60_000, clock: pollClock });
  expect(job.status).toBe('COMPLETE');
  expect(engine.control.journal().length).toBeGreaterThan(6);
  expect(engine.control.coverage().clientFindings).toEqual([]);
});

it('poll_too_fast: a job created after a reset, with an id the seeded mock gave out before, is polled afresh', async () => {
  const { engine, clock } = setup();
  const first = (await (await create(engine, { key: 'k' })).json()).jobId;
  await poll(engine, first);
  await engine.control.reset();
  const again = (await (await create(engine, { key: 'k' })).json()).jobId;
  expect(again).toBe(first);
  await poll(engine, again);
  clock.advance(100);
  await poll(engine, again);
  expect(rulesFound(engine)).toEqual([]);
});

it('retry rules do not hold against a client the errors it asked for itself with Prefer: code=', async () => {
  const { engine } = setup();
  await create(engine, { key: 'first', headers: { prefer: 'code=503' } });
  await create(engine, { key: 'second' });
  expect(rulesFound(engine)).toEqual([]);
});

it('remembers at most 1,000 callers and jobs per rule: a flood of new ones pushes the oldest out', async () => {
  const { engine, clock } = setup();
  await engine.handle(new Request(`${base}/v0/jobs/job-first`, { headers: { authorization: 'Bearer first' } }));
  for (let caller = 0; caller < 1000; caller += 1) {
    await engine.handle(new Request(`${base}/v0/jobs/job-${caller}`, { headers: { authorization: `Bearer flood-${caller}` } }));
  }
  clock.advance(1);
  // Polled again 1 ms later, but its first poll has been forgotten: nothing to compare with.
  await engine.handle(new Request(`${base}/v0/jobs/job-first`, { headers: { authorization: 'Bearer first' } }));
  expect(rulesFound(engine)).toEqual([]);
  // The newest are still remembered.
  await engine.handle(new Request(`${base}/v0/jobs/job-999`, { headers: { authorization: 'Bearer flood-999' } }));
  expect(finding(engine, 'poll_too_fast')?.count).toBe(1);
  expect(JSON.stringify(engine.control.coverage()).length).toBeLessThan(20_000);
});

it('waitForJob gets no finding after a 429 with Retry-After: 0, nor when its deadline cuts the last wait', async () => {
  const scenario: ScenarioInput = {
    name: 'busy-now',
    faults: [{ operation: 'getJob', status: 429, times: 1, retryAfter: 0 }],
    job: { timeline: [{ status: 'RUNNING', at: { reads: 1 } }] },
  };
  const { client, engine, pollClock, sleeps } = inProcessClient({ scenario });
  const created = await client.POST('/v0/evaluations', {
    params: { header: { 'Idempotency-Key': 'wait-0' } },
    body: evaluationRequest() as EvaluationRequest,
  });
  // 3,800 ms: after waits of 250, 500, 1000 and 2000 ms, 50 ms would be left; that poll is not made.
  // fake-time: waitForJob's deadline on the in-process poll clock.
  await expect(waitForJob(client, created.data?.jobId ?? '', { timeoutMs: 3800, clock: pollClock })).rejects.toMatchObject({
    kind: 'timeout',
  });
  expect(sleeps.every((ms) => ms === 0 || ms >= 100)).toBe(true);
  expect(engine.control.coverage().clientFindings).toEqual([]);
});

it('retry_after_ignored: two jobs polled side by side keep their own pace after one of them got a 429', async () => {
  const { engine, clock } = setup({ name: 'one-429', faults: [{ operation: 'getJob', status: 429, times: 1, retryAfter: 1 }] });
  const first = (await (await create(engine, { key: 'a' })).json()).jobId;
  const second = (await (await create(engine, { key: 'b' })).json()).jobId;
  expect((await poll(engine, first)).status).toBe(429);
  clock.advance(250);
  expect((await poll(engine, second)).status).toBe(200);
  clock.advance(1000);
  expect((await poll(engine, first)).status).toBe(200);
  expect(rulesFound(engine)).not.toContain('retry_after_ignored');
});

it('new_key_after_failure: a different create long after a forced 503 is a new request, not its retry', async () => {
  const { engine, clock } = setup({ name: 'one-503', faults: [{ operation: 'createEvaluation', status: 503, times: 1 }] });
  expect((await create(engine, { key: 'first' })).status).toBe(503);
  clock.advance(5000);
  expect((await create(engine, { key: 'another', body: evaluationRequest({ operationId: 'op-other' }) })).status).toBe(202);
  expect(rulesFound(engine)).not.toContain('new_key_after_failure');
});
