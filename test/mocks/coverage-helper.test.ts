/**
 * expectCoverage (evidence-harness/msw/node) over MSW's setupServer, as a consumer's suite uses
 * it: a suite that only creates and polls a PASS job misses 409, 413, FAILED and INDETERMINATE,
 * and the helper fails it naming them; once tests for those are added, it passes. The client is
 * the project's typed client and waitForJob, on the engine's virtual clock.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CoverageError, expectCoverage, setupMockService } from '../../mocks/node.js';
import { createEvidenceClient, type EvaluationRequest, type EvidenceClient, waitForJob } from '../../src/client/index.js';
import { createMockEngine, VirtualClock } from '../../src/engine/index.js';
import { evaluationRequest } from '../support/fixtures.js';

const baseUrl = 'http://coverage.mock.test';
const clock = new VirtualClock({ start: Date.UTC(2026, 10, 23) });
const mock = setupMockService({ baseUrl, clock, seed: 11 });
const client: EvidenceClient = createEvidenceClient({ baseUrl });
const pollClock = { now: () => clock.now(), sleep: async (ms: number) => clock.advance(ms) };
const mustSee = [
  'createEvaluation 202',
  'job COMPLETE',
  'createEvaluation 409',
  'createEvaluation 413',
  'job FAILED',
  'evaluation INDETERMINATE',
];

beforeAll(() => mock.server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => mock.server.close());

async function createAndWait(key: string, body: EvaluationRequest = evaluationRequest() as EvaluationRequest) {
  const created = await client.POST('/v0/evaluations', { params: { header: { 'Idempotency-Key': key } }, body });
  if (!created.data) throw new Error(`createEvaluation answered ${created.response.status}`);
  return waitForJob(client, created.data.jobId, { timeoutMs: 30_000, clock: pollClock });
}

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected expectCoverage to throw');
}

it('fails a suite that only creates and polls a PASS job, naming 409, 413, FAILED and INDETERMINATE', async () => {
  expect((await createAndWait('pass-1')).evaluation).toBe('PASS');
  await mock.control.reset();

  const missing = mock.control
    .coverage()
    .behaviours.filter((behaviour) => !behaviour.covered)
    .map((behaviour) => behaviour.id);
  expect(missing).toEqual(
    expect.arrayContaining(['createEvaluation 409', 'createEvaluation 413', 'job FAILED', 'evaluation INDETERMINATE']),
  );

  const error = thrownBy(() => expectCoverage(mock.control, { mustSee }));
  expect(error).toBeInstanceOf(CoverageError);
  const { message, missing: listed } = error as CoverageError;
  expect(listed.map((behaviour) => behaviour.id)).toEqual([
    'createEvaluation 409',
    'createEvaluation 413',
    'job FAILED',
    'evaluation INDETERMINATE',
  ]);
  expect(message).toContain('never saw 4 of the 6 behaviours');
  expect(message).toMatch(/^ {2}\+ createEvaluation 202 +seen 1 time$/m);
  expect(message).toMatch(/^ {2}- createEvaluation 409 +createEvaluation answered 409/m);
  expect(message).toContain('Missing: createEvaluation 409, createEvaluation 413, job FAILED, evaluation INDETERMINATE.');
});

it('passes once tests for a conflict, an oversized value, a FAILED and an INDETERMINATE job are added', async () => {
  // The 409 comes from the error-409 scenario: reusing a key with another body for real would
  // be a finding against the client (key_reused_with_other_body), which this suite forbids.
  mock.control.useScenario('error-409');
  const conflict = await client.POST('/v0/evaluations', {
    params: { header: { 'Idempotency-Key': 'k-409' } },
    body: evaluationRequest() as EvaluationRequest,
  });
  expect(conflict.response.status).toBe(409);
  mock.control.useScenario('default');
  const tooLong = await client.POST('/v0/evaluations', {
    params: { header: { 'Idempotency-Key': 'k-413' } },
    body: evaluationRequest({ operationId: 'o'.repeat(5000) }) as EvaluationRequest,
  });
  expect(tooLong.response.status).toBe(413);
  mock.control.useScenario('job-failed');
  expect((await createAndWait('failed-1')).status).toBe('FAILED');
  mock.control.useScenario('indeterminate');
  expect((await createAndWait('indeterminate-1')).evaluation).toBe('INDETERMINATE');
  await mock.control.reset();

  const report = expectCoverage(mock.control, { mustSee, forbidFindings: true });
  expect(report.behaviours.filter((behaviour) => mustSee.includes(behaviour.id)).every((behaviour) => behaviour.covered)).toBe(true);
});

it('refuses an id that names no behaviour, suggesting the known ones', () => {
  expect(() => expectCoverage(mock.control, { mustSee: ['createEvaluation 418'] })).toThrow(
    /'createEvaluation 418' \(known ids starting 'createEvaluation': createEvaluation 202, .*\) is not a behaviour id/,
  );
});

it('fails on findings when asked to, naming the rule and an example request', async () => {
  const { jobId } = (
    await client.POST('/v0/evaluations', {
      params: { header: { 'Idempotency-Key': 'tight' } },
      body: evaluationRequest() as EvaluationRequest,
    })
  ).data ?? { jobId: '' };
  for (let poll = 0; poll < 3; poll += 1) await client.GET('/v0/jobs/{jobId}', { params: { path: { jobId } } });
  expect(() => expectCoverage(mock.control, { mustSee: [], forbidFindings: ['poll_too_fast'] })).toThrow(
    new RegExp(`! poll_too_fast \\(2×\\): .*\\n +e\\.g\\. GET /v0/jobs/${jobId} → 200`),
  );
  expect(
    expectCoverage(mock.control, { mustSee: [], forbidFindings: ['retry_after_ignored'] }).clientFindings.map((finding) => finding.rule),
  ).toEqual(['poll_too_fast']);
});

it('serves the coverage document and the inspector page through MSW too, from the same engine', async () => {
  const report = await (await fetch(`${new URL(baseUrl).origin}/__mock/coverage?covered=true`)).json();
  expect(report).toEqual({
    ...mock.control.coverage(),
    behaviours: mock.control.coverage().behaviours.filter((behaviour) => behaviour.covered),
  });
  const page = await fetch(`${new URL(baseUrl).origin}/__mock/ui`);
  expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  expect(await page.text()).toContain('<title>evidence-harness inspector</title>');
});

it('refuses a forbidFindings rule that the client judge does not have, naming the known ones', () => {
  const engine = createMockEngine();
  expect(() => expectCoverage(engine.control, { mustSee: [], forbidFindings: ['poll_too_fst'] })).toThrow(
    /forbidFindings names 'poll_too_fst', which is no rule of the client judge; known: poll_too_fast/,
  );
});
