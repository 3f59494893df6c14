/**
 * Acceptance: against the project's own mock — the node:http server and the engine in-process —
 * every check passes with the default limits (no --max-requests, --timeout or --job-timeout
 * given), the isolation check included (a second caller is given).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ConformanceReport } from '../../src/conformance/report/report.js';
import { runConformance } from '../../src/conformance/run.js';
import { createMockEngine } from '../../src/engine/index.js';
import { type RunningMockServer, startMockServer } from '../../src/server/mock-server.js';

const seed = 4242;
/** The checks that cannot run without --second-caller-header, whatever the budget. */
const needSecondCaller = new Set(['second_caller_isolation', 'key_scoped_to_caller']);
const callers = { headers: { Authorization: 'Bearer alice' }, secondCallerHeaders: { Authorization: 'Bearer bob' } };

function failuresOf(report: ConformanceReport): string {
  return JSON.stringify(
    report.checks
      .filter((check) => check.status !== 'passed')
      .map(({ name, status, note, failures }) => ({ name, status, note, failures })),
    null,
    2,
  );
}

let server: RunningMockServer;
beforeAll(async () => {
  server = await startMockServer({ port: 0 });
});
afterAll(async () => {
  await server.close();
});

it('passes every check against the mock HTTP server with default limits', async () => {
  const report = await runConformance({ baseUrl: server.url, seed, ...callers });
  expect(
    report.checks.every((check) => check.status === 'passed'),
    failuresOf(report),
  ).toBe(true);
  expect(report.passed).toBe(true);
  expect(report.requests).toBeLessThanOrEqual(report.maxRequests);
  // Every operation of the spec was exercised.
  expect(report.checks.find((check) => check.name === 'status_code_documented')!.applied).toBeGreaterThan(100);
});

it('passes every check against the engine in-process (an injected fetch)', async () => {
  const engine = createMockEngine();
  const report = await runConformance({ baseUrl: 'http://mock.test', fetch: (request) => engine.handle(request), seed, ...callers });
  expect(
    report.checks.every((check) => check.status === 'passed'),
    failuresOf(report),
  ).toBe(true);
});

it('skips second_caller_isolation, says why, and calls the run incomplete, when no second caller is given', async () => {
  const engine = createMockEngine();
  const report = await runConformance({
    baseUrl: 'http://mock.test',
    fetch: (request) => engine.handle(request),
    seed,
    checks: ['second_caller_isolation', 'created_job_readable'],
  });
  const isolation = report.checks.find((check) => check.name === 'second_caller_isolation')!;
  expect(isolation.status).toBe('skipped');
  expect(isolation.note).toMatch(/--second-caller-header/);
  expect(report.passed).toBe(false);
  expect(report.verdict).toBe('incomplete');
  expect(report.exitCode).toBe(3);
  expect(report.incomplete).toEqual([expect.stringMatching(/^second_caller_isolation \(required\) did not run: .*--second-caller-header/)]);
});

it('stays within --max-requests and says what it did not send', async () => {
  const engine = createMockEngine();
  const report = await runConformance({ baseUrl: 'http://mock.test', fetch: (request) => engine.handle(request), seed, maxRequests: 30 });
  expect(report.requests).toBeLessThanOrEqual(30);
  expect(report.requestsNotSent).toBeGreaterThan(0);
  expect(report.notes.join('\n')).toMatch(/--max-requests 30 was reached/);
  expect(report.checks.filter((check) => check.status === 'failed')).toEqual([]);
  // What --max-requests left out did not run: the run is not a pass.
  const skipped = report.checks.filter(
    (check) => check.severity === 'required' && check.status === 'skipped' && !needSecondCaller.has(check.name),
  );
  expect(skipped.length).toBeGreaterThan(0);
  for (const check of skipped) expect(check.note).toMatch(/not sent: --max-requests 30 was reached/);
  expect(report.verdict).toBe('incomplete');
});
