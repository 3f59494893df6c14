/**
 * The "no sleeping" example of docs/frontend-tests.md: a slow scenario under MSW, with time moved by a virtual
 * clock instead of waited for. Public names, so it runs the build.
 */
// readme:start msw-node-clock
import { VirtualClock } from 'evidence-harness/engine';
import { setupMockService } from 'evidence-harness/msw/node';
import { afterAll, beforeAll, expect, it } from 'vitest';

const clock = new VirtualClock();
const mock = setupMockService({ baseUrl: 'http://localhost:4010', scenario: 'slow-pass', clock });

beforeAll(() => mock.server.listen());
afterAll(() => mock.server.close());

it('finishes a 20-second job without waiting 20 seconds', async () => {
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

  clock.advance(20_000);
  const job = await (await fetch(`http://localhost:4010/v0/jobs/${jobId}`)).json();
  expect(job).toEqual({ jobId, status: 'COMPLETE', evaluation: 'PASS' });
});
// readme:end
