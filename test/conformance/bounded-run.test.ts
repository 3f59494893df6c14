/**
 * A run is bounded in time whatever the server does: --time-budget stops it (what did not run
 * makes it incomplete, never passed), and an operation that keeps timing out stops getting
 * requests after --max-consecutive-timeouts, its checks skipped with that reason.
 */
import { expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/run.js';
import { createMockEngine } from '../../src/engine/index.js';
import { hostileServers, startHostileServer } from '../fixtures/hostile-servers/hostile-servers.js';

it('stops at --time-budget and calls the run incomplete, naming the budget', async () => {
  const engine = createMockEngine();
  const started = performance.now();
  const report = await runConformance({
    baseUrl: 'http://mock.test',
    fetch: (request) => engine.handle(request),
    seed: 3,
    rate: 20,
    timeBudgetMs: 1500,
    headers: { Authorization: 'Bearer alice' },
    secondCallerHeaders: { Authorization: 'Bearer bob' },
  });
  expect(performance.now() - started).toBeLessThan(10_000);
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
