/**
 * A run is bounded in time whatever the server does: --time-budget stops it (what did not run
 * makes it incomplete, never passed), and an operation that keeps timing out stops getting
 * requests after --max-consecutive-timeouts, its checks skipped with that reason.
 */
import { expect, it, vi } from 'vitest';
import { runConformance } from '../../src/conformance/run.js';
import { createMockEngine } from '../../src/engine/index.js';
import { hostileServers, startHostileServer } from '../fixtures/hostile-servers/hostile-servers.js';
import { settleOnFakeTime } from '../support/fake-time.js';
import { inTime } from '../support/time-limits.js';

it('stops at --time-budget and calls the run incomplete, naming the budget', async () => {
  const engine = createMockEngine();
  const started = performance.now();
  const report = await runConformance({
    baseUrl: 'http://mock.test',
    fetch: (request) => engine.handle(request),
    seed: 3,
    rate: 20,
    // real-time: the budget is the point; a busy machine only sends fewer requests before it ends.
    timeBudgetMs: 1500,
    headers: { Authorization: 'Bearer alice' },
    secondCallerHeaders: { Authorization: 'Bearer bob' },
  });
  // The 1.5 s budget honoured: without it the run takes minutes.
  expect(performance.now() - started).toBeLessThan(inTime(1500));
  expect(report.verdict).toBe('incomplete');
  expect(report.exitCode).toBe(3);
  expect(report.notes.join('\n')).toMatch(/planned request\(s\) not sent: the --time-budget of 1500ms ran out/);
  expect(report.incomplete.join('\n')).toMatch(/the --time-budget of 1500ms ran out/);
});

it('stops sending to an operation after 3 timeouts in a row, and skips what is left of it with that reason', async () => {
  const server = await startHostileServer(hostileServers.find((candidate) => candidate.name === 'silence')!);
  try {
    const report = await runConformance({
      baseUrl: server.url,
      seed: 3,
      // real-time: the server never answers, so only the deadline ends each request; a busy machine makes it later, never different.
      timeoutMs: 300,
      checks: ['verification_result', 'malformed_json_rejected'],
    });
    expect(report.notes).toContain('verifyReport stopped after 3 timeouts in a row (--timeout 300 ms)');
    // Every operation (and the routes outside the contract) gets at most 3 requests, plus the preflight.
    expect(report.requests).toBeLessThanOrEqual(13);
    const verification = report.checks.find((check) => check.name === 'verification_result')!;
    expect(verification.status).toBe('failed');
    expect(verification.failures[0]!.received).toBe('no answer within 300 ms (--timeout)');
    expect(report.verdict).toBe('failed');
  } finally {
    await server.close();
  }
});

/** The engine in-process, with `answer` deciding first (undefined: the engine answers). */
function engineBehind(answer: (request: Request) => Promise<Response> | undefined) {
  const engine = createMockEngine();
  return (request: Request) => answer(request) ?? engine.handle(request);
}

const never = () => new Promise<Response>(() => undefined);

it('counts every planned request it did not send, not only the first of each probe', async () => {
  const options = { baseUrl: 'http://mock.test', seed: 3, checks: ['negative_data_rejection'] };
  const whole = await runConformance({ ...options, fetch: engineBehind(() => undefined) });
  expect(whole.requestsNotSent).toBe(0);
  // Only the preflight goes: every mutation the whole run sent is counted as not sent.
  const cut = await runConformance({ ...options, fetch: engineBehind(() => undefined), maxRequests: 1 });
  expect(cut.requests).toBe(1);
  expect(cut.requestsNotSent).toBe(whole.requests - 1);
  expect(cut.notes).toContain(`${whole.requests - 1} planned request(s) not sent: --max-requests 1 was reached`);
});

it('does not pass a required check that judged some of its requests but not all: it ran only in part', async () => {
  const report = await runConformance({
    baseUrl: 'http://mock.test',
    fetch: engineBehind(() => undefined),
    seed: 3,
    checks: ['negative_data_rejection'],
    maxRequests: 10,
  });
  const check = report.checks.find((candidate) => candidate.name === 'negative_data_rejection')!;
  expect(check.applied).toBe(9);
  expect(check.status).toBe('skipped');
  expect(check.note).toMatch(/^ran only in part: judged 9 exchanges, none failing; \d+ requests not sent: --max-requests 10 was reached$/);
  expect(report.verdict).toBe('incomplete');
  expect(report.exitCode).toBe(3);
  expect(report.incomplete).toEqual([`negative_data_rejection (required) ${check.note}`]);
});

it('goes on to other operations when one is stopped after its timeouts, and skips only the checks that needed it, naming it', async () => {
  const sentTo = new Set<string>();
  // On fake time: the engine's answers come before the 200 ms deadline however busy the machine;
  // only the createEvaluation that never answers meets it.
  vi.useFakeTimers();
  const running = runConformance({
    baseUrl: 'http://mock.test',
    // createEvaluation never answers; every other operation is the mock's.
    fetch: engineBehind((request) =>
      request.method === 'POST' && new URL(request.url).pathname === '/v0/evaluations' ? never() : undefined,
    ),
    seed: 3,
    // fake-time: the deadline meets only the createEvaluation that never answers (settleOnFakeTime below).
    timeoutMs: 200,
    checks: ['negative_data_rejection', 'invalid_job_id_not_found', 'missing_required_header', 'unknown_job_not_found'],
    onExchange: (exchange) => sentTo.add(exchange.operationId ?? 'outside'),
  });
  const report = await settleOnFakeTime(running);
  const stopped = 'createEvaluation stopped after 3 timeouts in a row (--timeout 200 ms)';
  expect(report.notes).toContain(stopped);
  // The mutations of the operations after createEvaluation were still sent and judged.
  expect([...sentTo].sort()).toEqual(['createEvaluation', 'getJob', 'health', 'outside', 'verifyReport']);
  const result = (name: string) => report.checks.find((check) => check.name === name)!;
  expect(result('invalid_job_id_not_found')).toMatchObject({ status: 'passed' });
  expect(result('unknown_job_not_found')).toMatchObject({ status: 'passed' });
  expect(result('negative_data_rejection')).toMatchObject({ status: 'failed' });
  expect(result('missing_required_header')).toMatchObject({ status: 'skipped', note: `1 request not sent: ${stopped}` });
  expect(report.verdict).toBe('failed');
});
