/**
 * The docs' fake timers example (docs/frontend-tests.md): a client that waits with setTimeout,
 * tested under vi.useFakeTimers(), with the mock's jobs on a VirtualClock moved by the same
 * steps. Run as written.
 */
// readme:start fake-timers
import { VirtualClock } from 'evidence-harness/engine';
import { setupMockService } from 'evidence-harness/msw/node';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';

const clock = new VirtualClock();
const mock = setupMockService({ baseUrl: 'http://localhost:4010', scenario: 'slow-pass', clock });

beforeAll(() => mock.server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => vi.useRealTimers());
afterAll(() => mock.server.close());

/** The client under test: polls every 5 s until the job is final. */
async function waitForJob(jobId: string): Promise<{ status: string }> {
  for (;;) {
    const job = await (await fetch(`http://localhost:4010/v0/jobs/${jobId}`)).json();
    if (job.status === 'COMPLETE' || job.status === 'FAILED') return job;
    // fake-time: the docs' client waits on vitest's fake timers (this file turns them on).
    await new Promise((resolve) => setTimeout(resolve, 5000));
  }
}

it('polls a 20-second job to its end without waiting 20 seconds', async () => {
  vi.useFakeTimers();
  const created = await fetch('http://localhost:4010/v0/evaluations', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': 'key-1' },
    body: JSON.stringify({
      profile: 'svc.payment-conformance/0.1-draft',
      operationId: 'op-2026-0001',
      instructionDigest: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b',
      policyDigest: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
      evidence: [{ id: 'ev-1', kind: 'issuer_assertion' }],
    }),
  });
  const { jobId } = await created.json();
  const finished = waitForJob(jobId);
  // Each step moves the client's timers and the mock's clock together.
  for (let step = 0; step < 5; step += 1) {
    clock.advance(5000);
    await vi.advanceTimersByTimeAsync(5000);
  }
  expect(await finished).toEqual({ jobId, status: 'COMPLETE', evaluation: 'PASS' });
});
// readme:end
