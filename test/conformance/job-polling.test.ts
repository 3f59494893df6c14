/**
 * How the runner follows a job to its final state: a poll still answered 429 is waited (as its
 * Retry-After asks) and polled again within --job-timeout, and is never held against the job; a
 * poll answered with another job's jobId fails, naming both jobs.
 */
import { expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/run.js';
import { createMockEngine } from '../../src/engine/index.js';

/** The mock engine in-process; `change` may answer a poll (a getJob after the first) itself. */
function engineWithPolls(change: (poll: number, answer: () => Promise<Response>) => Promise<Response> | undefined) {
  const engine = createMockEngine();
  let reads = 0;
  return async (request: Request) => {
    if (request.method !== 'GET' || !new URL(request.url).pathname.startsWith('/v0/jobs/')) return engine.handle(request);
    reads += 1;
    return (reads > 1 ? change(reads - 1, () => engine.handle(request)) : undefined) ?? engine.handle(request);
  };
}

const rateLimited = () =>
  new Response(JSON.stringify({ code: 'rate_limited', message: 'Slow down.' }), {
    status: 429,
    headers: { 'content-type': 'application/json', 'retry-after': '0' },
  });

it('waits out polls answered 429 and passes a job seen final within --job-timeout', async () => {
  const report = await runConformance({
    baseUrl: 'http://mock.test',
    fetch: engineWithPolls((poll) => (poll <= 6 ? Promise.resolve(rateLimited()) : undefined)),
    seed: 5,
    checks: ['job_reaches_final_state'],
  });
  expect(report.checks[0]).toMatchObject({ name: 'job_reaches_final_state', status: 'passed' });
  expect(report.verdict).toBe('passed');
});

it('does not fail a job whose polls are still rate limited at --job-timeout: the check could not judge it', async () => {
  const report = await runConformance({
    baseUrl: 'http://mock.test',
    fetch: engineWithPolls(() => Promise.resolve(rateLimited())),
    seed: 5,
    // real-time: every poll is answered 429, so only --job-timeout ends the wait; a busy machine makes it later, never different.
    jobTimeoutMs: 1500,
    checks: ['job_reaches_final_state'],
  });
  const check = report.checks[0]!;
  expect(check).toMatchObject({ name: 'job_reaches_final_state', status: 'skipped', failures: [] });
  expect(check.note).toMatch(
    /still rate limited \(429\) at --job-timeout \((\d+) of \1 polls still answered 429, each waited as Retry-After asked\)/,
  );
  expect(report.verdict).toBe('incomplete');
  expect(report.exitCode).toBe(3);
});

it("fails a poll answered with another job's jobId, naming both", async () => {
  let polled = '';
  const report = await runConformance({
    baseUrl: 'http://mock.test',
    fetch: engineWithPolls(async (_, answer) => {
      const job = (await (await answer()).json()) as { jobId: string };
      polled = job.jobId;
      return new Response(JSON.stringify({ ...job, jobId: 'job_SOMEONE_ELSES' }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    }),
    seed: 5,
    checks: ['job_reaches_final_state', 'job_status_moves_forward'],
  });
  const check = report.checks.find((candidate) => candidate.name === 'job_reaches_final_state')!;
  expect(check.status).toBe('failed');
  expect(check.failures).toHaveLength(1);
  expect(check.failures[0]).toMatchObject({
    title: `poll of job ${polled} answered job job_SOMEONE_ELSES`,
    expected: `200 with jobId ${polled}, the job polled`,
  });
  expect(check.failures[0]!.received).toMatch(/^200 \{"jobId":"job_SOMEONE_ELSES"/);
  // The other job's status is not judged as this job's.
  expect(report.checks.find((candidate) => candidate.name === 'job_status_moves_forward')!.status).toBe('skipped');
});
