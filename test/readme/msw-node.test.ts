/**
 * The README's "Intercept requests in frontend tests (Node)" example, run as written: it
 * imports the package by its public names, so it runs the build (npm test builds first).
 * Everything between the readme:start and readme:end markers is the README text.
 */
// readme:start msw-node
import { setupMockService } from 'evidence-harness/msw/node';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';

const mock = setupMockService({ baseUrl: 'http://localhost:4010' });

beforeAll(() => mock.server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => mock.control.reset());
afterAll(() => mock.server.close());

const evaluation = {
  profile: 'svc.payment-conformance/0.1-draft',
  operationId: 'op-2026-0001',
  instructionDigest: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b',
  policyDigest: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
  evidence: [{ id: 'ev-1', kind: 'issuer_assertion' }],
};

function createEvaluation(key: string, body: object = evaluation): Promise<Response> {
  return fetch('http://localhost:4010/v0/evaluations', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
  });
}

it('moves a job from QUEUED to COMPLETE as the client polls', async () => {
  const created = await createEvaluation('key-1');
  expect(created.status).toBe(202);
  const { jobId, status } = await created.json();
  expect(status).toBe('QUEUED');
  const seen: string[] = [];
  for (let poll = 0; poll < 3; poll += 1) {
    const job = await (await fetch(`http://localhost:4010/v0/jobs/${jobId}`)).json();
    seen.push(job.status);
  }
  expect(seen).toEqual(['RUNNING', 'RUNNING', 'COMPLETE']);
});

it('answers 409 when a key is reused with another body', async () => {
  await createEvaluation('key-2');
  const conflict = await createEvaluation('key-2', { ...evaluation, operationId: 'op-2026-0002' });
  expect(conflict.status).toBe(409);
  expect(await conflict.json()).toMatchObject({ code: 'idempotency_key_conflict' });
});

it('fails on purpose when a scenario says so', async () => {
  mock.control.useScenario('rate-limited');
  const limited = await createEvaluation('key-3');
  expect(limited.status).toBe(429);
  expect(limited.headers.get('retry-after')).toBe('1');
});
// readme:end
