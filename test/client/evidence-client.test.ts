/**
 * The typed client against the mock engine in-process: every operation's success and error
 * answers arrive typed, the configured headers are sent, and the global fetch is looked up at
 * request time.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { createEvidenceClient, type EvaluationRequest } from '../../src/client/index.js';
import { mintArtifact, testKeySet } from '../../src/engine/index.js';
import { evaluationRequest } from '../support/fixtures.js';
import { inProcessClient } from './in-process-client.js';

const body = evaluationRequest() as EvaluationRequest;

afterEach(() => {
  vi.unstubAllGlobals();
});

it('creates an evaluation and reads its job, typed', async () => {
  const { client } = inProcessClient();
  const created = await client.POST('/v0/evaluations', { params: { header: { 'Idempotency-Key': 'k-create' } }, body });
  expect(created.response.status).toBe(202);
  expect(created.data?.status).toBe('QUEUED');
  const jobId = created.data!.jobId;
  const read = await client.GET('/v0/jobs/{jobId}', { params: { path: { jobId } } });
  expect(read.data).toEqual({ jobId, status: 'RUNNING' });
});

it('answers health', async () => {
  const { client } = inProcessClient();
  const health = await client.GET('/health');
  expect(health.response.status).toBe(200);
});

it('gives the Error body of a 400 invalid request', async () => {
  const { client } = inProcessClient();
  const answer = await client.POST('/v0/evaluations', {
    params: { header: { 'Idempotency-Key': 'k-400' } },
    body: { ...body, policyDigest: 'not-a-digest' },
  });
  expect(answer.response.status).toBe(400);
  expect(answer.error?.code).toBe('invalid_request');
  expect(answer.error?.message).toContain('policyDigest');
});

it('gives the Error body of a 409 when a key is reused with another body', async () => {
  const { client } = inProcessClient();
  const header = { 'Idempotency-Key': 'k-409' };
  await client.POST('/v0/evaluations', { params: { header }, body });
  const answer = await client.POST('/v0/evaluations', { params: { header }, body: { ...body, operationId: 'op-other' } });
  expect(answer.response.status).toBe(409);
  expect(answer.error?.code).toBe('idempotency_key_conflict');
});

it('gives the Error body of a 413 when the evidence is over its limit', async () => {
  const { client } = inProcessClient();
  const evidence = Array.from({ length: 65 }, (_, index) => ({ id: `ev-${index}`, kind: 'issuer_assertion' as const }));
  const answer = await client.POST('/v0/evaluations', { params: { header: { 'Idempotency-Key': 'k-413' } }, body: { ...body, evidence } });
  expect(answer.response.status).toBe(413);
  expect(answer.error?.code).toBe('limit_exceeded');
});

it('gives the Error body of a 404 for an unknown job', async () => {
  const { client } = inProcessClient();
  const answer = await client.GET('/v0/jobs/{jobId}', { params: { path: { jobId: 'job-unknown' } } });
  expect(answer.response.status).toBe(404);
  expect(answer.error?.code).toBe('job_not_found');
});

it('gives the Error body and Retry-After of a forced 503', async () => {
  const { client } = inProcessClient();
  const answer = await client.POST('/v0/evaluations', {
    params: { header: { 'Idempotency-Key': 'k-503' } },
    body,
    headers: { Prefer: 'code=503' },
  });
  expect(answer.response.status).toBe(503);
  expect(answer.error?.code).toBe('service_unavailable');
  expect(answer.response.headers.get('retry-after')).toBe('1');
});

it('verifies an artifact: VALID for an honest one, INVALID for a tampered signature', async () => {
  const { client } = inProcessClient();
  const claims = { issuer: 'https://issuer.example', operationId: 'op-2026-0001', evaluation: 'PASS' as const, keys: testKeySet };
  const expected = { expectedOperationId: 'op-2026-0001', expectedIssuer: 'https://issuer.example' };
  const honest = await client.POST('/v0/verifications', { body: { artifact: await mintArtifact(claims), ...expected } });
  expect(honest.data).toMatchObject({ integrity: 'VALID', evaluation: 'PASS' });
  const tampered = await client.POST('/v0/verifications', {
    body: { artifact: await mintArtifact({ ...claims, tamper: 'signature' }), ...expected },
  });
  expect(tampered.data?.integrity).toBe('INVALID');
});

it('sends the headers given at creation (jobs are scoped per Authorization)', async () => {
  const { engine } = inProcessClient();
  const as = (authorization: string) =>
    createEvidenceClient({
      baseUrl: 'http://mock.test',
      headers: { Authorization: authorization },
      fetch: (request) => engine.handle(request),
    });
  const alice = as('Bearer alice');
  const created = await alice.POST('/v0/evaluations', { params: { header: { 'Idempotency-Key': 'k-alice' } }, body });
  const jobId = created.data!.jobId;
  expect((await alice.GET('/v0/jobs/{jobId}', { params: { path: { jobId } } })).response.status).toBe(200);
  expect((await as('Bearer bob').GET('/v0/jobs/{jobId}', { params: { path: { jobId } } })).response.status).toBe(404);
});

it('joins the base URL and the path with one slash when the base URL ends with one', async () => {
  const urls: string[] = [];
  const client = createEvidenceClient({
    baseUrl: 'http://mock.test/api/',
    fetch: async (request) => {
      urls.push(request.url);
      return Response.json({ status: 'ok' });
    },
  });
  await client.GET('/health');
  expect(urls).toEqual(['http://mock.test/api/health']);
});

it('uses the global fetch in force at request time, so MSW started after the client still intercepts', async () => {
  const client = createEvidenceClient({ baseUrl: 'http://mock.test' });
  const seen: string[] = [];
  vi.stubGlobal('fetch', async (request: Request) => {
    seen.push(`${request.method} ${request.url}`);
    return Response.json({ status: 'ok' });
  });
  await client.GET('/health');
  expect(seen).toEqual(['GET http://mock.test/health']);
});
