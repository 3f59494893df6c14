/**
 * The consumer coverage example of docs/frontend-tests.md, run as written: a suite that says which behaviours of
 * the contract it must see, and fails in afterAll when it did not see them. Public names, so it
 * runs the build.
 */
// readme:start coverage-helper
import { expectCoverage, setupMockService } from 'evidence-harness/msw/node';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';

const mock = setupMockService({ baseUrl: 'http://localhost:4010' });

beforeAll(() => mock.server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => mock.control.reset()); // a reset keeps the coverage
afterAll(() => mock.server.close());
// Fails the suite, listing what it never saw, e.g. "- job FAILED  a job delivered in state FAILED …"
afterAll(() => expectCoverage(mock.control, { mustSee: ['createEvaluation 409', 'job FAILED'], forbidFindings: ['poll_too_fast'] }));

const create = (prefer: string) =>
  fetch('http://localhost:4010/v0/evaluations', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID(), prefer },
    body: JSON.stringify({
      profile: 'svc.payment-conformance/0.1-draft',
      operationId: 'op-2026-0001',
      instructionDigest: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b',
      policyDigest: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
      evidence: [{ id: 'ev-1', kind: 'issuer_assertion' }],
    }),
  });

it('shows a conflict', async () => {
  expect((await create('scenario=error-409')).status).toBe(409);
});

it('shows a failed job', async () => {
  const { jobId } = await (await create('scenario=manual')).json();
  await mock.control.setJobState({ jobId, status: 'FAILED' });
  const job = await (await fetch(`http://localhost:4010/v0/jobs/${jobId}`)).json();
  expect(job.status).toBe('FAILED');
});
// readme:end
