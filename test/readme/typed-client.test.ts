/**
 * The "typed client" example of docs/client.md, run as written. It aims at
 * `npx evidence-harness mock` on 127.0.0.1:4010; here MSW answers at that address, so the
 * test needs no port. Public names, so it runs the build (npm test builds first).
 */
import { setupMockService } from 'evidence-harness/msw/node';
import { afterAll, expect, it, vi } from 'vitest';

const mock = setupMockService({ baseUrl: 'http://127.0.0.1:4010' });
// The example runs at the top level of the module, so interception starts here, not in beforeAll.
mock.server.listen({ onUnhandledRequest: 'error' });
afterAll(() => mock.server.close());
const logged: string[] = [];
vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void logged.push(parts.join(' ')));

// readme:start typed-client
import { createEvidenceClient, WaitForJobError, waitForJob } from 'evidence-harness/client';

const client = createEvidenceClient({ baseUrl: 'http://127.0.0.1:4010' });

const { data, error, response } = await client.POST('/v0/evaluations', {
  params: { header: { 'Idempotency-Key': crypto.randomUUID() } },
  body: {
    profile: 'svc.payment-conformance/0.1-draft',
    operationId: 'op-2026-0001',
    instructionDigest: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b',
    policyDigest: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
    evidence: [{ id: 'ev-1', kind: 'issuer_assertion' }],
  },
});
if (error) throw new Error(`createEvaluation answered ${response.status} ${error.code}: ${error.message}`);

const job = await waitForJob(client, data.jobId, {
  timeoutMs: 30_000,
  onPoll: ({ attempt, status, job }) => console.log(`poll ${attempt}: ${job?.status ?? status}`),
}).catch((failure: unknown) => {
  if (failure instanceof WaitForJobError) console.error(`gave up (${failure.kind}): ${failure.message}`);
  throw failure;
});
console.log(job.status, job.evaluation); // COMPLETE PASS
// readme:end

it('creates an evaluation and waits for its job, logging each poll', () => {
  expect(job).toEqual({ jobId: data.jobId, status: 'COMPLETE', evaluation: 'PASS' });
  expect(logged).toEqual(['poll 1: RUNNING', 'poll 2: RUNNING', 'poll 3: COMPLETE', 'COMPLETE PASS']);
});
