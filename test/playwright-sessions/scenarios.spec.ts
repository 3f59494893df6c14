/**
 * 40 tests across 4 workers on one mock, each putting scenarios in force at random in its own
 * session while the others do the same: each job ends as its own session's scenario says, and
 * each session's journal holds its own calls only. Without sessions, one test's `job-failed`
 * or reset breaks another's job (issue 35).
 */
import { expect, test } from './fixtures.js';

/** Each scenario the tests pick from, and how a job created under it ends. */
const outcomes = {
  default: { status: 'COMPLETE', evaluation: 'PASS' },
  'job-failed': { status: 'FAILED' },
  fail: { status: 'COMPLETE', evaluation: 'FAIL' },
  indeterminate: { status: 'COMPLETE', evaluation: 'INDETERMINATE' },
} as const;
const names = Object.keys(outcomes) as (keyof typeof outcomes)[];

/** Seeded per test, so a failure names the draw that made it (seed = the test's index). */
function draw(seed: number): () => number {
  let state = (seed * 2654435761) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const evaluation = {
  profile: 'svc.payment-conformance/0.1-draft',
  operationId: 'op-2026-0001',
  instructionDigest: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b',
  policyDigest: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
  evidence: [{ id: 'ev-1', kind: 'issuer_assertion' }],
};

for (let index = 0; index < 40; index += 1) {
  test(`test ${index}: its own scenarios, jobs and journal`, async ({ page, mockSession, mockRequest }) => {
    const random = draw(index);
    const mockUrl = process.env.EVIDENCE_MOCK_URL!;
    // A page of another origin, as an app under test would be: its calls to the mock are cross-origin.
    await page.goto(process.env.EVIDENCE_APP_URL!);
    for (let round = 0; round < 3; round += 1) {
      const scenario = names[Math.floor(random() * names.length)]!;
      await mockSession.useScenario(scenario);
      const key = `${mockSession.session}-${round}`;
      const job = await page.evaluate(
        async ({ mockUrl, key, body }) => {
          const created = await fetch(`${mockUrl}/v0/evaluations`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': key },
            body: JSON.stringify(body),
          });
          if (created.status !== 202) throw new Error(`create answered ${created.status}: ${await created.text()}`);
          const { jobId } = (await created.json()) as { jobId: string };
          for (let reads = 0; reads < 20; reads += 1) {
            const read = await fetch(`${mockUrl}/v0/jobs/${jobId}`);
            const job = (await read.json()) as { status: string; evaluation?: string };
            if (read.status !== 200) throw new Error(`getJob answered ${read.status}`);
            if (job.status === 'COMPLETE' || job.status === 'FAILED') return { jobId, ...job };
            await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30));
          }
          throw new Error('the job did not end in 20 reads');
        },
        { mockUrl, key, body: evaluation },
      );
      expect(job, `round ${round} under ${scenario}`).toMatchObject(outcomes[scenario]);
      const creates = await mockSession.calls({ operation: 'createEvaluation' });
      expect(creates.map((call) => call.idempotencyKey)).toEqual(
        Array.from({ length: round + 1 }, (_, earlier) => `${mockSession.session}-${round - earlier}`),
      );
      // The same session through the API request context: it sees the job the page made.
      const read = await mockRequest.get(`/v0/jobs/${job.jobId}`);
      expect(read.status()).toBe(200);
    }
    // A reset now must not touch any other test's jobs: they would fail their next read.
    if (random() < 0.5) {
      await mockSession.reset();
      expect(await mockSession.calls()).toEqual([]);
    }
  });
}
