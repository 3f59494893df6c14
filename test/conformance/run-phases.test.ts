/**
 * The runner's phases without HTTP: one phase run over a run's context whose transport is a stub
 * Fetch function, and the run state's rules on their own (what is refused, counted and noted).
 */
import { expect, it } from 'vitest';
import type { Exchange } from '../../src/conformance/exchange.js';
import { unknownJobProbe } from '../../src/conformance/probes/job-probes.js';
import { startRun } from '../../src/conformance/run.js';
import { RunState } from '../../src/conformance/runner/run-state.js';
import { loadContract } from '../../src/openapi/document.js';
import { ResponseValidator } from '../../src/openapi/response-validator.js';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

it('runs the unknown-job phase against a stub fetch and judges what it recorded', async () => {
  const sent: string[] = [];
  const recorded: Exchange[] = [];
  const run = await startRun({
    baseUrl: 'http://stub.test',
    seed: 7,
    runId: 'unit',
    headers: { Authorization: 'Bearer alice' },
    checks: ['unknown_job_not_found'],
    onExchange: (exchange) => recorded.push(exchange),
    fetch: async (request) => {
      sent.push(`${request.method} ${new URL(request.url).pathname} ${request.headers.get('authorization')}`);
      return json(404, { code: 'job_not_found', message: 'No job with this jobId is available to this caller.' });
    },
  });
  try {
    await run.runPhase({ probe: 'unknown-job', label: 'unknown job', run: unknownJobProbe }, {});
  } finally {
    run.close();
  }
  expect(sent).toEqual([expect.stringMatching(/^GET \/v0\/jobs\/job_[0-9A-F]{26} Bearer alice$/)]);
  expect(recorded.map((exchange) => [exchange.id, exchange.intent.kind, exchange.response?.status])).toEqual([[1, 'unknown-job', 404]]);
  expect(run.state.recordedFor('unknown-job')).toBe(1);
  expect(run.state.requests).toBe(1);
  const report = run.report({});
  expect(report.checks.map((check) => [check.name, check.status, check.applied])).toEqual([['unknown_job_not_found', 'passed', 1]]);
  expect(report.verdict).toBe('passed');
});

it('counts the requests of a phase that --max-requests refuses, and says why the check judged nothing', async () => {
  const sent: string[] = [];
  const run = await startRun({
    baseUrl: 'http://stub.test',
    seed: 7,
    runId: 'unit',
    maxRequests: 1,
    checks: ['unknown_job_not_found'],
    fetch: async (request) => {
      sent.push(new URL(request.url).pathname);
      return json(200, { status: 'ok' });
    },
  });
  try {
    // A stand-in phase: one request that goes (to health), then the probe's own, refused.
    await run.runPhase(
      {
        probe: 'unknown-job',
        label: 'unknown job',
        run: async (context) => {
          await context.send({ method: 'GET', path: '/v0/health' }, { kind: 'preflight' });
          await unknownJobProbe(context);
          context.note('a note from the phase');
        },
      },
      {},
    );
  } finally {
    run.close();
  }
  expect(sent).toEqual(['/v0/health']);
  expect(run.state.requests).toBe(1);
  expect(run.state.requestsNotSent).toBe(1);
  const report = run.report({});
  expect(report.notes).toEqual(['a note from the phase', '1 planned request(s) not sent: --max-requests 1 was reached']);
  const [check] = report.checks;
  expect(check).toMatchObject({ name: 'unknown_job_not_found', status: 'skipped', applied: 0 });
  expect(check?.note).toBe('1 request not sent: --max-requests 1 was reached; a note from the phase');
  expect(report.verdict).toBe('incomplete');
});

async function bareState(limits: Partial<ConstructorParameters<typeof RunState>[0]['limits']> = {}) {
  const contract = await loadContract();
  const progress: string[] = [];
  const state = new RunState({
    limits: {
      maxRequests: 10,
      strict: false,
      deadline: Number.MAX_SAFE_INTEGER,
      timeBudgetMs: 600_000,
      // real-time: never waited; the number is only named in the notes.
      timeoutMs: 50,
      maxConsecutiveTimeouts: 2,
      ...limits,
    },
    setting: { contract, validator: new ResponseValidator(contract), checks: [] },
    judge: () => [{ severity: 'required' }],
    onProgress: (message) => progress.push(message),
  });
  return { state, progress };
}

it('stops sending to an operation after its timeouts in a row, and to no other', async () => {
  const { state } = await bareState();
  await state.phase('lifecycle', 'job lifecycle', async () => {
    state.timedOut('getJob', true);
    state.timedOut('getJob', false);
    state.timedOut('getJob', true);
    expect(state.refusalFor('getJob')).toBeUndefined();
    state.timedOut('getJob', true);
  });
  expect(state.refusalFor('getJob')).toBe('getJob stopped after 2 timeouts in a row (--timeout 50 ms)');
  expect(state.refusalFor('createEvaluation')).toBeUndefined();
  expect(state.notes).toEqual(['getJob stopped after 2 timeouts in a row (--timeout 50 ms)']);
});

it('stops the run at --max-failures failing exchanges, and counts requests in flight against --max-requests', async () => {
  const { state, progress } = await bareState({ maxFailures: 2, maxRequests: 3 });
  const exchange = (id: number) => ({ id, caller: 1, intent: { kind: 'unknown-job' }, request: {}, notes: [] }) as unknown as Exchange;
  await state.phase('unknown-job', 'unknown job', async () => {
    state.requestGoes();
    state.requestGoes();
    state.requestGoes();
    expect(state.refusalFor('getJob')).toBe('--max-requests 3 was reached');
    state.requestCameBack(1);
    state.requestCameBack(1);
    state.record(exchange(1));
    expect(state.stoppedBecause()).toBeUndefined();
    state.record(exchange(2));
  });
  expect(state.stoppedBecause()).toBe('--max-failures 2 was reached (2 failing exchanges)');
  expect(state.recordedFor('unknown-job')).toBe(2);
  expect(progress).toEqual(['unknown job: 2 requests (2/3 sent)']);
});

it('counts the requests built on a refused one for the same reason, left out when the filters refused it', async () => {
  const { state } = await bareState();
  await state.phase('replay', 'idempotent replay', async () => {
    state.leftOut({ reason: 'createEvaluation is left out by --exclude-operation' });
    state.dependentsNotSent(2);
    state.notSent({ reason: '--max-requests 10 was reached' });
    state.dependentsNotSent(3);
  });
  expect(state.requestsNotSent).toBe(4);
  state.closingNotes('--exclude-operation createEvaluation');
  expect(state.notes).toEqual([
    '4 planned request(s) not sent: --max-requests 10 was reached',
    '3 planned request(s) left out by --exclude-operation createEvaluation',
  ]);
});
