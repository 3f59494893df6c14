/**
 * The engine's shared behaviour suite: every rule of the contract and of docs/assumptions.md
 * as a user of the mock sees it, through Fetch requests only. Each target (in-process, the
 * HTTP server, MSW) runs it unchanged; every response is checked against the spec on the way.
 */
import { afterEach, beforeAll, expect, it } from 'vitest';
import { mintOutcomeArtifacts } from '../../src/engine/verification/artifact-profile.js';
import { testKeySet } from '../../src/engine/verification/test-keys.js';
import type { ResponseValidator } from '../../src/openapi/response-validator.js';
import { bundledResponseValidator } from '../support/contract.js';
import { evaluationRequest, jsonPost, newKey } from '../support/fixtures.js';
import type { MockTarget, TargetFactory, TargetOptions } from '../support/targets.js';
import { validatedFetch } from '../support/validated-fetch.js';

export function behaviourSuite(factory: TargetFactory): void {
  let validator: ResponseValidator;
  const open: MockTarget[] = [];

  beforeAll(async () => {
    validator = await bundledResponseValidator();
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((target) => target.close()));
  });

  async function start(options: TargetOptions = {}) {
    const target = await factory.create(options);
    open.push(target);
    const send = validatedFetch({ validator, fetch: target.fetch });
    const create = (body: unknown = evaluationRequest(), headers: Record<string, string> = {}) =>
      send('/v0/evaluations', jsonPost(body, { 'idempotency-key': newKey(), ...headers }));
    const read = (jobId: string, headers: Record<string, string> = {}) => send(`/v0/jobs/${encodeURIComponent(jobId)}`, { headers });
    const createJob = async (body: unknown = evaluationRequest(), headers: Record<string, string> = {}) => {
      const response = await create(body, headers);
      expect(response.status).toBe(202);
      return (await response.json()).jobId as string;
    };
    const readJob = async (jobId: string, headers: Record<string, string> = {}) => {
      const response = await read(jobId, headers);
      expect(response.status).toBe(200);
      return response.json();
    };
    return { target, send, create, read, createJob, readJob };
  }

  async function errorOf(response: Response) {
    return { status: response.status, ...(await response.json()) } as { status: number; code: string; message: string };
  }

  // ── health ──────────────────────────────────────────────────────────────────────────────

  it('answers GET /health with 200 {"status":"ok"}', async () => {
    const { send } = await start();
    const response = await send('/health');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('answers HEAD /health with 200 and no body', async () => {
    const { target } = await start();
    const response = await target.fetch('/health', { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
  });

  // ── createEvaluation: acceptance ────────────────────────────────────────────────────────

  it('accepts a valid evaluation with 202 and a QUEUED job', async () => {
    const { create } = await start();
    const response = await create();
    expect(response.status).toBe(202);
    const job = await response.json();
    expect(job).toEqual({ jobId: expect.stringMatching(/^job_[0-9A-Z]{26}$/), status: 'QUEUED' });
  });

  it('accepts values exactly at every maximum: 64 evidence items, a 128-character operationId of astral characters', async () => {
    const { create } = await start();
    const evidence = Array.from({ length: 64 }, (_, index) => ({ id: `ev-${index}`, kind: 'validated_state' as const }));
    const response = await create(evaluationRequest({ evidence, operationId: '\u{1F600}'.repeat(128) }));
    expect(response.status).toBe(202);
  });

  it('accepts an Idempotency-Key of exactly 128 characters', async () => {
    const { create } = await start();
    expect((await create(evaluationRequest(), { 'idempotency-key': 'k'.repeat(128) })).status).toBe(202);
  });

  // ── createEvaluation: the 400/413 split ───────────────────────────────────────────

  it('answers 400 missing_idempotency_key when the Idempotency-Key header is missing', async () => {
    const { send } = await start();
    const error = await errorOf(await send('/v0/evaluations', jsonPost(evaluationRequest())));
    expect(error).toEqual({ status: 400, code: 'missing_idempotency_key', message: 'Idempotency-Key header is required.' });
  });

  it('answers 400 when the Idempotency-Key header is empty', async () => {
    const { create } = await start();
    const error = await errorOf(await create(evaluationRequest(), { 'idempotency-key': '' }));
    expect(error).toMatchObject({ status: 400, code: 'missing_idempotency_key', message: 'Idempotency-Key header must not be empty.' });
  });

  it('answers 413 limit_exceeded when the Idempotency-Key is over 128 characters', async () => {
    const { create } = await start();
    const error = await errorOf(await create(evaluationRequest(), { 'idempotency-key': 'k'.repeat(129) }));
    expect(error).toEqual({ status: 413, code: 'limit_exceeded', message: 'Idempotency-Key header must be at most 128 characters long.' });
  });

  it('answers 400 invalid_json for malformed JSON, naming the problem', async () => {
    const { create } = await start();
    const error = await errorOf(await create('{"profile": '));
    expect(error.status).toBe(400);
    expect(error.code).toBe('invalid_json');
    expect(error.message).toMatch(/^The request body is not well-formed JSON: /);
  });

  it.each([
    ['an array', '[]'],
    ['a string', '"evaluation"'],
    ['null', 'null'],
    ['empty', ''],
  ])('answers 400 invalid_body when the body is %s', async (_kind, body) => {
    const { create } = await start();
    const error = await errorOf(await create(body));
    expect({ status: error.status, code: error.code }).toEqual({ status: 400, code: 'invalid_body' });
  });

  it('answers 415 unsupported_media_type when the body is not application/json', async () => {
    const { send } = await start();
    const response = await send('/v0/evaluations', {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'idempotency-key': newKey() },
      body: JSON.stringify(evaluationRequest()),
    });
    expect(await errorOf(response)).toEqual({
      status: 415,
      code: 'unsupported_media_type',
      message: "The request body must be application/json; Content-Type was 'text/plain'.",
    });
  });

  it('accepts application/json with a charset parameter', async () => {
    const { create } = await start();
    expect((await create(evaluationRequest(), { 'content-type': 'application/json; charset=utf-8' })).status).toBe(202);
  });

  it.each([
    ['a missing required field', { operationId: undefined }, '/operationId is required.'],
    ['an unknown field', { extra: true }, '/extra is not a property of the contract.'],
    ['a wrong type', { operationId: 7 }, '/operationId must be a string.'],
    ['a digest that is not 64 lowercase hex', { policyDigest: 'ABC' }, '/policyDigest must be 64 lowercase hex characters.'],
    [
      'an unknown profile',
      { profile: 'svc.other/1' },
      '/profile must be one of "svc.payment-conformance/0.1-draft", "svc.dmt-derivation/0.1-draft".',
    ],
    ['no evidence', { evidence: [] }, '/evidence must have at least 1 item.'],
    ['an empty operationId', { operationId: '' }, '/operationId must not be empty.'],
    [
      'an evidence uri that is not a URI',
      { evidence: [{ id: 'e', kind: 'inclusion_proof', uri: 'not a uri' }] },
      '/evidence/0/uri must be an absolute URI (RFC 3986).',
    ],
    [
      'an unknown evidence kind',
      { evidence: [{ id: 'e', kind: 'rumour' }] },
      expect.stringMatching(/^\/evidence\/0\/kind must be one of "issuer_assertion"/),
    ],
  ])('answers 400 invalid_request for %s, naming the field', async (_case, change, message) => {
    const { create } = await start();
    const body = { ...evaluationRequest(), ...change };
    const error = await errorOf(await create(JSON.parse(JSON.stringify(body))));
    expect(error).toEqual({ status: 400, code: 'invalid_request', message });
  });

  it.each([
    [
      '65 evidence items',
      { evidence: Array.from({ length: 65 }, (_, i) => ({ id: `e${i}`, kind: 'validated_state' })) },
      '/evidence must have at most 64 items.',
    ],
    ['a 129-character operationId', { operationId: 'o'.repeat(129) }, '/operationId must be at most 128 characters long.'],
    [
      'a 257-character evidence id',
      { evidence: [{ id: 'i'.repeat(257), kind: 'validated_state' }] },
      '/evidence/0/id must be at most 256 characters long.',
    ],
    [
      'a 129-character network',
      { evidence: [{ id: 'e', kind: 'rpc_observation', network: 'n'.repeat(129) }] },
      '/evidence/0/network must be at most 128 characters long.',
    ],
  ])('answers 413 limit_exceeded for %s', async (_case, change, message) => {
    const { create } = await start();
    const error = await errorOf(await create({ ...evaluationRequest(), ...change }));
    expect(error).toEqual({ status: 413, code: 'limit_exceeded', message });
  });

  it('answers 413 when a request breaks a maximum and another rule at once, listing both', async () => {
    const { create } = await start();
    const error = await errorOf(await create({ ...evaluationRequest(), operationId: 'o'.repeat(129), policyDigest: 'x' }));
    expect(error).toEqual({
      status: 413,
      code: 'limit_exceeded',
      message: '2 problems: /operationId must be at most 128 characters long; /policyDigest must be 64 lowercase hex characters.',
    });
  });

  it('answers 413 body_too_large for a body over 2 MiB without reading it all', async () => {
    const { create } = await start();
    const error = await errorOf(await create(`{"operationId":"${'x'.repeat(2 * 1024 * 1024)}"}`));
    expect(error).toEqual({ status: 413, code: 'body_too_large', message: 'The request body is larger than the limit of 2097152 bytes.' });
  });

  it('refuses a "__proto__" key as an unknown property and never touches Object.prototype', async () => {
    const { create } = await start();
    const body = JSON.stringify(evaluationRequest()).replace(
      /^\{/,
      '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},',
    );
    const error = await errorOf(await create(body));
    expect(error).toEqual({
      status: 400,
      code: 'invalid_request',
      message: '2 problems: /__proto__ is not a property of the contract; /constructor is not a property of the contract.',
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  // ── idempotency ─────────────────────────────────────────────────────────────

  it('answers a replay (same key, same body) with 202 and the same job', async () => {
    const { send } = await start();
    const key = newKey();
    const first = await (await send('/v0/evaluations', jsonPost(evaluationRequest(), { 'idempotency-key': key }))).json();
    const again = await send('/v0/evaluations', jsonPost(evaluationRequest(), { 'idempotency-key': key }));
    expect(again.status).toBe(202);
    expect((await again.json()).jobId).toBe(first.jobId);
  });

  it('treats the same body with other key order and whitespace as a replay (RFC 8785 digest)', async () => {
    const { send } = await start();
    const key = newKey();
    const body = evaluationRequest();
    const first = await (await send('/v0/evaluations', jsonPost(body, { 'idempotency-key': key }))).json();
    const reordered = `{\n  "evidence": ${JSON.stringify(body.evidence, null, 3)},\n "policyDigest":"${body.policyDigest}", "instructionDigest":"${body.instructionDigest}","operationId":"${body.operationId}","profile":"${body.profile}"}`;
    const again = await send('/v0/evaluations', jsonPost(reordered, { 'idempotency-key': key }));
    expect(again.status).toBe(202);
    expect((await again.json()).jobId).toBe(first.jobId);
  });

  it('answers 409 idempotency_key_conflict when the key is reused with another body', async () => {
    const { send } = await start();
    const key = newKey();
    expect((await send('/v0/evaluations', jsonPost(evaluationRequest(), { 'idempotency-key': key }))).status).toBe(202);
    const error = await errorOf(
      await send('/v0/evaluations', jsonPost(evaluationRequest({ operationId: 'other' }), { 'idempotency-key': key })),
    );
    expect(error).toMatchObject({ status: 409, code: 'idempotency_key_conflict' });
  });

  it('creates exactly one job for 100 concurrent identical requests', async () => {
    const { send, target } = await start();
    const key = newKey();
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => send('/v0/evaluations', jsonPost(evaluationRequest(), { 'idempotency-key': key }))),
    );
    const jobs = await Promise.all(responses.map((response) => response.json()));
    expect(new Set(responses.map((response) => response.status))).toEqual(new Set([202]));
    expect(new Set(jobs.map((job) => job.jobId)).size).toBe(1);
    expect(await target.control.listJobs()).toHaveLength(1);
  });

  it('scopes keys per caller: the same key from two callers makes two jobs', async () => {
    const { send } = await start();
    const key = newKey();
    const a = await (
      await send('/v0/evaluations', jsonPost(evaluationRequest(), { 'idempotency-key': key, authorization: 'Bearer alice' }))
    ).json();
    const b = await (
      await send(
        '/v0/evaluations',
        jsonPost(evaluationRequest({ operationId: 'different' }), { 'idempotency-key': key, authorization: 'Bearer bob' }),
      )
    ).json();
    expect(a.jobId).not.toBe(b.jobId);
  });

  it('forgets a key after its time to live: the key then makes a new job', async () => {
    const { send, target } = await start({ limits: { idempotencyKeyTtlMs: 60_000 } });
    const key = newKey();
    const first = await (await send('/v0/evaluations', jsonPost(evaluationRequest(), { 'idempotency-key': key }))).json();
    target.clock.advance(60_001);
    const later = await send('/v0/evaluations', jsonPost(evaluationRequest({ operationId: 'changed' }), { 'idempotency-key': key }));
    expect(later.status).toBe(202);
    expect((await later.json()).jobId).not.toBe(first.jobId);
  });

  it('keeps a key for 24 hours by default', async () => {
    const { send, target } = await start();
    const key = newKey();
    await send('/v0/evaluations', jsonPost(evaluationRequest(), { 'idempotency-key': key }));
    target.clock.advance(24 * 3600 * 1000 - 1);
    expect(
      (await send('/v0/evaluations', jsonPost(evaluationRequest({ operationId: 'changed' }), { 'idempotency-key': key }))).status,
    ).toBe(409);
  });

  it('does not consume a key on a refused request', async () => {
    const { send } = await start();
    const key = newKey();
    expect((await send('/v0/evaluations', jsonPost({ ...evaluationRequest(), extra: 1 }, { 'idempotency-key': key }))).status).toBe(400);
    expect((await send('/v0/evaluations', jsonPost(evaluationRequest(), { 'idempotency-key': key }))).status).toBe(202);
  });

  // ── getJob and the job lifecycle ───────────────────────────────────────

  it('moves a job QUEUED → RUNNING → COMPLETE with PASS by reads under the default scenario', async () => {
    const { createJob, readJob } = await start();
    const jobId = await createJob();
    const statuses = [];
    for (let read = 0; read < 5; read += 1) statuses.push(await readJob(jobId));
    expect(statuses).toEqual([
      { jobId, status: 'RUNNING' },
      { jobId, status: 'RUNNING' },
      { jobId, status: 'COMPLETE', evaluation: 'PASS' },
      { jobId, status: 'COMPLETE', evaluation: 'PASS' },
      { jobId, status: 'COMPLETE', evaluation: 'PASS' },
    ]);
  });

  it('moves a job by time under the default scenario: RUNNING after 500 ms, COMPLETE after 2 s', async () => {
    const { createJob, target } = await start();
    const jobId = await createJob();
    target.clock.advance(499);
    expect((await target.control.inspectJob(jobId))?.job.status).toBe('QUEUED');
    target.clock.advance(1);
    expect((await target.control.inspectJob(jobId))?.job.status).toBe('RUNNING');
    target.clock.advance(1500);
    expect((await target.control.inspectJob(jobId))?.job).toEqual({ jobId, status: 'COMPLETE', evaluation: 'PASS' });
  });

  it('answers 404 job_not_found for an unknown jobId', async () => {
    const { read } = await start();
    expect(await errorOf(await read('job_UNKNOWN'))).toEqual({
      status: 404,
      code: 'job_not_found',
      message: 'No job with this jobId is available to this caller.',
    });
  });

  it('answers 404 for a jobId over 128 characters or not valid percent-encoding (A-23)', async () => {
    const { read, send } = await start();
    expect((await errorOf(await read('j'.repeat(129)))).code).toBe('job_not_found');
    for (const path of ['/v0/jobs/%E0', '/v0/jobs/%E0%A4%A', '/v0/jobs/%']) {
      expect(await errorOf(await send(path)), path).toMatchObject({ status: 404, code: 'job_not_found' });
    }
  });

  it("answers another caller's job exactly as a missing one", async () => {
    const { createJob, read } = await start();
    const jobId = await createJob(evaluationRequest(), { authorization: 'Bearer alice' });
    const other = await read(jobId, { authorization: 'Bearer bob' });
    const missing = await read('job_MISSING', { authorization: 'Bearer bob' });
    expect(other.status).toBe(404);
    expect(await other.text()).toBe(await missing.text());
    expect((await read(jobId, { authorization: 'Bearer alice' })).status).toBe(200);
  });

  it('evicts the oldest job first when the store is full', async () => {
    const { createJob, read } = await start({ limits: { maxJobs: 2 } });
    const first = await createJob();
    const second = await createJob();
    const third = await createJob();
    expect((await read(first)).status).toBe(404);
    expect((await read(second)).status).toBe(200);
    expect((await read(third)).status).toBe(200);
  });

  it('forgets a job after its time to live', async () => {
    const { createJob, read, target } = await start({ limits: { jobTtlMs: 10_000 } });
    const jobId = await createJob();
    target.clock.advance(10_000);
    expect((await read(jobId)).status).toBe(404);
  });

  // ── verifyReport ─────────────────────────────────────────────────────────────────

  it('verifies every kind of minted artifact with the documented integrity and evaluation', async () => {
    const { send } = await start();
    const cases = await mintOutcomeArtifacts({ keys: testKeySet, issuer: 'https://issuer.example', operationId: 'op-1' });
    for (const [name, { artifact, expected }] of Object.entries(cases)) {
      const response = await send(
        '/v0/verifications',
        jsonPost({ artifact, expectedOperationId: 'op-1', expectedIssuer: 'https://issuer.example' }),
      );
      expect(response.status, name).toBe(200);
      const result = await response.json();
      expect({ name, integrity: result.integrity, evaluation: result.evaluation }).toEqual({ name, ...expected });
    }
  });

  it('answers 400 for an invalid verification request, and 400 limit_exceeded for an over-long one', async () => {
    const { send } = await start();
    const missing = await errorOf(await send('/v0/verifications', jsonPost({ artifact: 'x', expectedOperationId: 'op' })));
    expect(missing).toEqual({ status: 400, code: 'invalid_request', message: '/expectedIssuer is required.' });
    const long = await errorOf(
      await send('/v0/verifications', jsonPost({ artifact: 'x', expectedOperationId: 'op', expectedIssuer: 'i'.repeat(513) })),
    );
    expect(long).toEqual({ status: 400, code: 'limit_exceeded', message: '/expectedIssuer must be at most 512 characters long.' });
  });

  // ── routing ──────────────────────────────────────────────────────────────────────

  it('answers 404 route_not_found for a path outside the contract', async () => {
    const { send } = await start();
    expect(await errorOf(await send('/v1/evaluations'))).toEqual({
      status: 404,
      code: 'route_not_found',
      message: 'No operation of the contract has the path /v1/evaluations.',
    });
  });

  it('answers 405 method_not_allowed with Allow for a contract path with another method', async () => {
    const { send } = await start();
    const response = await send('/v0/evaluations', { method: 'DELETE' });
    expect(response.headers.get('allow')).toBe('POST');
    expect(await errorOf(response)).toEqual({
      status: 405,
      code: 'method_not_allowed',
      message: '/v0/evaluations does not accept DELETE; it accepts POST.',
    });
  });

  // ── scenarios ───────────────────────────────────────────────────────────────────────────

  async function finalState(options: TargetOptions, request = evaluationRequest()) {
    const { createJob, readJob } = await start(options);
    const jobId = await createJob(request);
    let job = await readJob(jobId);
    for (let read = 0; read < 20 && (job.status === 'QUEUED' || job.status === 'RUNNING'); read += 1) job = await readJob(jobId);
    const { jobId: _id, ...rest } = job;
    return rest;
  }

  it('completes with FAIL and a limitation under the fail scenario', async () => {
    expect(await finalState({ scenario: 'fail' })).toEqual({
      status: 'COMPLETE',
      evaluation: 'FAIL',
      limitations: [expect.stringMatching(/contradicts/)],
    });
  });

  it('completes with INDETERMINATE under the indeterminate scenario', async () => {
    expect(await finalState({ scenario: 'indeterminate' })).toMatchObject({ status: 'COMPLETE', evaluation: 'INDETERMINATE' });
  });

  it('ends FAILED with no evaluation and a limitation under the job-failed scenario', async () => {
    expect(await finalState({ scenario: 'job-failed' })).toEqual({
      status: 'FAILED',
      limitations: [expect.stringMatching(/could not be retrieved/)],
    });
  });

  it('completes with PASS under the default scenario', async () => {
    expect(await finalState({ scenario: 'default' })).toEqual({ status: 'COMPLETE', evaluation: 'PASS' });
  });

  it('stays QUEUED until the 3rd read, and COMPLETE only at the 10th, under slow-pass', async () => {
    const { createJob, readJob } = await start({ scenario: 'slow-pass' });
    const jobId = await createJob();
    const statuses: string[] = [];
    for (let read = 0; read < 10; read += 1) statuses.push((await readJob(jobId)).status);
    expect(statuses).toEqual(['QUEUED', 'QUEUED', 'RUNNING', 'RUNNING', 'RUNNING', 'RUNNING', 'RUNNING', 'RUNNING', 'RUNNING', 'COMPLETE']);
  });

  it('moves jobs only when advanced by hand under the manual scenario', async () => {
    const { createJob, readJob, target } = await start({ scenario: 'manual' });
    const jobId = await createJob();
    target.clock.advance(3_600_000);
    for (let read = 0; read < 5; read += 1) expect((await readJob(jobId)).status).toBe('QUEUED');
    expect(await target.control.advanceJob(jobId)).toEqual({ jobId, status: 'RUNNING' });
    expect(await target.control.advanceJob(jobId)).toEqual({ jobId, status: 'COMPLETE', evaluation: 'PASS' });
    expect(await readJob(jobId)).toEqual({ jobId, status: 'COMPLETE', evaluation: 'PASS' });
    await expect(target.control.advanceJob(jobId)).rejects.toThrow(/no further step/);
  });

  it('gives each job the timeline of the first matching rule under by-operation-id', async () => {
    const options = { scenario: 'by-operation-id' };
    expect(await finalState(options, evaluationRequest({ operationId: 'fail-42' }))).toEqual({ status: 'COMPLETE', evaluation: 'FAIL' });
    expect(await finalState(options, evaluationRequest({ operationId: 'indeterminate-1' }))).toEqual({
      status: 'COMPLETE',
      evaluation: 'INDETERMINATE',
    });
    expect(await finalState(options, evaluationRequest({ operationId: 'job-failed-1' }))).toMatchObject({ status: 'FAILED' });
    const dmt = evaluationRequest({ profile: 'svc.dmt-derivation/0.1-draft', evidence: [{ id: 'p', kind: 'inclusion_proof' }] });
    expect(await finalState(options, dmt)).toEqual({ status: 'COMPLETE', evaluation: 'PASS', limitations: [expect.any(String)] });
    expect(await finalState(options, evaluationRequest({ operationId: 'ok-1' }))).toEqual({ status: 'COMPLETE', evaluation: 'PASS' });
  });

  it('answers a seeded 30% of calls with 503 and Retry-After under flaky-503, the same calls for the same seed', async () => {
    const run = async () => {
      const { create, target } = await start({ scenario: 'flaky-503', seed: 42 });
      const statuses: number[] = [];
      for (let call = 0; call < 200; call += 1) {
        const response = await create();
        statuses.push(response.status);
        if (response.status === 503) {
          expect(response.headers.get('retry-after')).toBe('1');
          expect((await response.json()).code).toBe('service_unavailable');
        }
      }
      expect(new Set(statuses)).toEqual(new Set([202, 503]));
      const share = statuses.filter((status) => status === 503).length / statuses.length;
      expect(share).toBeGreaterThan(0.2);
      expect(share).toBeLessThan(0.4);
      expect(target.control.journal().filter((entry) => entry.forced)).toHaveLength(statuses.filter((status) => status === 503).length);
      return statuses;
    };
    expect(await run()).toEqual(await run());
  });

  it('answers the next 2 calls with 429 and Retry-After under rate-limited, then serves normally', async () => {
    const { create, send } = await start({ scenario: 'rate-limited' });
    const first = await create();
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('1');
    expect((await send('/v0/jobs/job_x')).status).toBe(429);
    expect((await create()).status).toBe(202);
    expect((await send('/health')).status).toBe(200);
  });

  it.each([
    ['error-400', 'createEvaluation', 400, 'invalid_request'],
    ['error-409', 'createEvaluation', 409, 'idempotency_key_conflict'],
    ['error-413', 'createEvaluation', 413, 'limit_exceeded'],
    ['error-404', 'getJob', 404, 'job_not_found'],
    ['server-error', 'createEvaluation', 500, 'internal_error'],
  ])('forces every %s call on %s to answer %i %s', async (scenario, operation, status, code) => {
    const { create, send, target } = await start({ scenario });
    const response = operation === 'getJob' ? await send('/v0/jobs/job_anything') : await create();
    const error = await errorOf(response);
    expect(error).toEqual({ status, code, message: `Forced by scenario '${scenario}': ${status} on ${operation}.` });
    expect(target.control.journal().at(-1)).toMatchObject({ status, scenario, forced: true });
  });

  it('delays a forced answer by its latency on the engine clock (server-error: 100 ms)', async () => {
    const { create, target } = await start({ scenario: 'server-error' });
    await create();
    expect(target.control.journal().at(-1)?.durationMs).toBe(100);
  });

  it('never forces an error on health, and ignores a Prefer header there (found by fuzzing)', async () => {
    const { send } = await start({ scenario: 'server-error' });
    expect((await send('/health')).status).toBe(200);
    expect((await send('/health', { headers: { prefer: 'code=503' } })).status).toBe(200);
    expect((await send('/health', { headers: { prefer: 'scenario=nope' } })).status).toBe(200);
  });

  it('lets one request choose its scenario with Prefer: scenario=NAME', async () => {
    const { createJob, readJob } = await start();
    const jobId = await createJob(evaluationRequest(), { prefer: 'scenario=job-failed' });
    await readJob(jobId);
    await readJob(jobId);
    expect((await readJob(jobId)).status).toBe('FAILED');
  });

  it('lets one request force a status with Prefer: code=503', async () => {
    const { create } = await start();
    const response = await create(evaluationRequest(), { prefer: 'code=503' });
    expect(await errorOf(response)).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(response.headers.get('retry-after')).toBe('1');
  });

  it('answers 400 for a Prefer header naming an unknown scenario', async () => {
    const { create } = await start();
    const error = await errorOf(await create(evaluationRequest(), { prefer: 'scenario=nope' }));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^Prefer: scenario=nope names no scenario; known: .*default/);
  });

  it('forces only the statuses an operation may answer; getJob ignores a preference it cannot apply', async () => {
    const { send, createJob, readJob } = await start();
    const verify = await errorOf(
      await send('/v0/verifications', jsonPost({ artifact: 'x', expectedOperationId: 'op', expectedIssuer: 'i' }, { prefer: 'code=413' })),
    );
    expect(verify).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(verify.message).toBe('Prefer: code=413 is not a status verifyReport can be forced to answer; use one of 400, 429, 500, 503.');
    const typo = await errorOf(
      await send('/v0/verifications', jsonPost({ artifact: 'x', expectedOperationId: 'op', expectedIssuer: 'i' }, { prefer: 'code=abc' })),
    );
    expect(typo.message).toMatch(/^Prefer: code=abc is not a status/);
    // getJob documents no 400: an unusable preference is ignored (RFC 7240 allows it).
    const jobId = await createJob();
    expect(await readJob(jobId, { prefer: 'code=400, scenario=nope' })).toMatchObject({ jobId, status: 'RUNNING' });
    expect((await send(`/v0/jobs/${jobId}`, { headers: { prefer: 'code=503' } })).status).toBe(503);
  });

  // ── control surface ─────────────────────────────────────────────────────────────────────

  it('journals each request with method, path, status and scenario', async () => {
    const { create, send, target } = await start();
    await create();
    await send('/nowhere');
    expect(target.control.journal().map(({ method, path, status, scenario }) => ({ method, path, status, scenario }))).toEqual([
      { method: 'POST', path: '/v0/evaluations', status: 202, scenario: 'default' },
      { method: 'GET', path: '/nowhere', status: 404, scenario: 'default' },
    ]);
  });

  it('sets a job state through the control surface, refusing moves the state machine forbids', async () => {
    const { createJob, readJob, target } = await start();
    const jobId = await createJob();
    expect(await target.control.setJobState({ jobId, status: 'COMPLETE', evaluation: 'FAIL', limitations: ['set by hand'] })).toEqual({
      jobId,
      status: 'COMPLETE',
      evaluation: 'FAIL',
      limitations: ['set by hand'],
    });
    expect(await readJob(jobId)).toMatchObject({ status: 'COMPLETE', evaluation: 'FAIL' });
    await expect(target.control.setJobState({ jobId, status: 'RUNNING' })).rejects.toThrow(
      /cannot move from COMPLETE to RUNNING: COMPLETE is final/,
    );
    // Final means final: not even the evaluation of a COMPLETE job changes (found in review).
    await expect(target.control.setJobState({ jobId, status: 'COMPLETE', evaluation: 'PASS' })).rejects.toThrow(
      /cannot move from COMPLETE to COMPLETE with another evaluation or limitations: COMPLETE is final/,
    );
    // Setting the state it already has is a no-op, not an error.
    await expect(
      target.control.setJobState({ jobId, status: 'COMPLETE', evaluation: 'FAIL', limitations: ['set by hand'] }),
    ).resolves.toMatchObject({ evaluation: 'FAIL' });
    expect(await readJob(jobId)).toMatchObject({ status: 'COMPLETE', evaluation: 'FAIL' });
  });

  it('refuses a job state the contract does not allow, so the mock never serves an invalid Job', async () => {
    const { createJob, readJob, target } = await start({ scenario: 'manual' });
    const jobId = await createJob();
    const attempts = [
      { status: 'BOGUS' },
      {},
      { status: 'COMPLETE', evaluation: 'MAYBE' },
      { status: 'FAILED', limitations: 'abc' },
      { status: 'FAILED', limitations: Array.from({ length: 65 }, () => 'x') },
      { status: 'FAILED', limitations: ['x'.repeat(2049)] },
      { status: 'FAILED', extra: true },
    ];
    for (const state of attempts) {
      await expect(target.control.setJobState({ jobId, ...state } as never), JSON.stringify(state).slice(0, 80)).rejects.toThrow(
        /not a valid job state: /,
      );
    }
    expect(await readJob(jobId)).toEqual({ jobId, status: 'QUEUED' });
  });

  it('answers a replay with the job as it is now, not as it was created', async () => {
    const { create, target } = await start();
    const body = evaluationRequest();
    const key = 'replay-fresh';
    const first = await (await create(body, { 'idempotency-key': key })).json();
    expect(first.status).toBe('QUEUED');
    target.clock.advance(2_000);
    expect(await (await create(body, { 'idempotency-key': key })).json()).toEqual({
      jobId: first.jobId,
      status: 'COMPLETE',
      evaluation: 'PASS',
    });
  });

  it('answers HEAD on a job without counting it as a read, and HEAD errors without a body', async () => {
    const { createJob, readJob, send } = await start();
    const jobId = await createJob();
    for (let head = 0; head < 3; head += 1) {
      const response = await send(`/v0/jobs/${jobId}`, { method: 'HEAD' });
      expect([response.status, await response.text()]).toEqual([200, '']);
    }
    expect(await readJob(jobId)).toMatchObject({ status: 'RUNNING' });
    expect(await readJob(jobId)).toMatchObject({ status: 'RUNNING' });
    expect(await readJob(jobId)).toMatchObject({ status: 'COMPLETE' });
    const missing = await send('/v0/jobs/job_none', { method: 'HEAD' });
    expect([missing.status, await missing.text()]).toEqual([404, '']);
    const wrongMethod = await send('/v0/evaluations', { method: 'HEAD' });
    expect([wrongMethod.status, await wrongMethod.text()]).toEqual([405, '']);
  });

  it('switches scenario and resets state through the control surface', async () => {
    const { createJob, read, target } = await start();
    const jobId = await createJob();
    target.control.useScenario('error-404');
    expect((await read(jobId)).status).toBe(404);
    await target.control.reset();
    expect(target.control.scenario).toBe('default');
    expect(await target.control.listJobs()).toEqual([]);
    expect(target.control.journal()).toEqual([]);
  });

  // ── bounds (issue 10): the same matching and limits on every target ──────────────────────

  it('matches a rule pattern such as ^(a+)+$ in linear time, and still applies it', async () => {
    const { createJob, readJob, target } = await start();
    target.control.useScenario({
      name: 'catastrophic',
      rules: [{ match: { operationId: '^(a+)+$' }, job: { timeline: [{ status: 'FAILED', at: { reads: 1 } }] } }],
    });
    // 40 'a' and a '!': 2^40 ways for a backtracking engine to fail.
    const missed = await createJob(evaluationRequest({ operationId: `${'a'.repeat(40)}!` }));
    expect(await readJob(missed)).toMatchObject({ status: 'RUNNING' });
    const matched = await createJob(evaluationRequest({ operationId: 'a'.repeat(40) }));
    expect(await readJob(matched)).toMatchObject({ status: 'FAILED' });
  });

  it('refuses a scenario over its size, rule or pattern limits, naming the limit', async () => {
    const { target } = await start();
    const rule = { match: { operationId: '^x' }, job: { timeline: [] } };
    expect(() => target.control.useScenario({ name: 'rules', rules: Array(65).fill(rule) })).toThrow(/at most 64 rules/);
    expect(() => target.control.useScenario({ name: 'large', description: 'x'.repeat(300_000) })).toThrow(/at most 262144/);
    expect(() =>
      target.control.useScenario({ name: 'lookbehind', rules: [{ match: { operationId: '(?<=a)b' }, job: { timeline: [] } }] }),
    ).toThrow(/lookahead or lookbehind/);
    expect(target.control.scenario).toBe('default');
  });

  it('shows a job’s owner as a fingerprint, never the credential', async () => {
    const { createJob, target } = await start();
    const jobId = await createJob(evaluationRequest(), { authorization: 'Bearer ann-secret' });
    const inspection = await target.control.inspectJob(jobId);
    expect(inspection?.owner).toMatch(/^sha256:[0-9a-f]{32}$/);
    expect(JSON.stringify(await target.control.listJobs())).not.toContain('ann-secret');
  });

  it('pages the job list and the journal with cursors that reach every entry once', async () => {
    const { createJob, target } = await start();
    const created: string[] = [];
    for (let index = 0; index < 5; index += 1) created.push(await createJob());
    const listed: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await target.control.jobsPage({ limit: 2, ...(cursor ? { cursor } : {}) });
      expect(page.jobs.length).toBeLessThanOrEqual(2);
      listed.push(...page.jobs.map((inspection) => inspection.job.jobId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(listed).toEqual(created);
    const first = target.control.journalPage({ limit: 3 });
    expect(first.entries.map((entry) => entry.seq)).toEqual([1, 2, 3]);
    const rest = target.control.journalPage({ cursor: first.nextCursor! });
    expect(rest.entries.map((entry) => entry.seq)).toEqual([4, 5]);
    expect(rest.nextCursor).toBeUndefined();
    await expect(target.control.jobsPage({ limit: 1001 })).rejects.toThrow(/limit must be a whole number from 1 to 1000/);
    await expect(target.control.jobsPage({ cursor: 'nope' })).rejects.toThrow(/is not one this mock gave/);
  });

  it('forgets scenarios registered at run time on reset, and keeps the shipped ones', async () => {
    const { target } = await start();
    target.control.registerScenario({ name: 'mine' });
    expect(target.control.scenarios().map((scenario) => scenario.name)).toContain('mine');
    await target.control.reset();
    const names = target.control.scenarios().map((scenario) => scenario.name);
    expect(names).not.toContain('mine');
    expect(names).toEqual(expect.arrayContaining(['default', 'slow-pass', 'by-operation-id']));
  });
}
