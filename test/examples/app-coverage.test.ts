/**
 * The worked example of docs/coverage.md, run: the example app's flows under MSW, their
 * consumer coverage before and after the 409 demo is added, and the client judge's finding about
 * how the app polls. The numbers docs/coverage.md quotes are asserted here.
 */

import { createEvidenceClient } from 'evidence-harness/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type AppContext, errorDemos, runEvaluation, verifyDemoArtifact } from '../../examples/app/src/flows.js';
import { CoverageError, expectCoverage, setupMockService } from '../../mocks/node.js';
import { coverageSummary } from '../../src/cli/coverage-report.js';
import { VirtualClock } from '../../src/engine/index.js';
import { testKeys } from './app-flows.suite.js';

const apiBaseUrl = 'http://api.evidence.test';
const clock = new VirtualClock({ start: Date.UTC(2026, 10, 23) });
const mock = setupMockService({ baseUrl: apiBaseUrl, clock, seed: 11 });
const mustSee = ['createEvaluation 409', 'createEvaluation 413', 'job FAILED', 'getJob 503'];

beforeAll(() => mock.server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => mock.server.close());

/** The app's polling before the fix: waits capped at 1 s (examples/app/src/flows.ts). */
let appPolling: { maxDelayMs?: number } = { maxDelayMs: 1000 };

function context(options: { scenario?: string; timeoutMs?: number } = {}): AppContext {
  return {
    client: createEvidenceClient({ baseUrl: apiBaseUrl }),
    apiBaseUrl,
    newKey: testKeys(),
    ...(options.scenario ? { scenario: options.scenario } : {}),
    polling: { clock, ...appPolling, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) },
  };
}

/** The app's flows as its own suite runs them (test/examples/app-flows.suite.ts), but the 409 demo. */
async function suiteWithout409(): Promise<void> {
  await runEvaluation(context(), { onStep: () => {} });
  await runEvaluation(context({ scenario: 'job-failed' }), { onStep: () => {} });
  // fake-time: polling on the VirtualClock above.
  await runEvaluation(context({ scenario: 'manual', timeoutMs: 5000 }), { onStep: () => {} });
  mock.control.useScenario({ name: 'one-busy-poll', faults: [{ operation: 'getJob', status: 503, times: 1, retryAfter: 2 }] });
  await runEvaluation(context(), { onStep: () => {} });
  await mock.control.reset();
  await runEvaluation(context({ scenario: 'error-413' }), { onStep: () => {} });
  await verifyDemoArtifact(context(), { tampered: false });
  await verifyDemoArtifact(context(), { tampered: true });
  for (const demo of errorDemos.filter((each) => each.status !== 409)) await demo.run(context());
  await mock.control.reset();
}

it('misses the 409 until the 409 demo runs; the judge flags the app polling a slow job every second', async () => {
  await suiteWithout409();
  const before = mock.control.coverage();
  expect([before.covered, before.total]).toEqual([19, 47]);
  console.log(`before:\n${coverageSummary(before)}`);
  expect(() => expectCoverage(mock.control, { mustSee })).toThrow(CoverageError);
  expect(() => expectCoverage(mock.control, { mustSee })).toThrow(/never saw 1 of the 4 behaviours[\s\S]*- createEvaluation 409/);
  expect(before.clientFindings.map((finding) => finding.rule)).toEqual(['poll_without_backoff']);

  await errorDemos.find((demo) => demo.status === 409)?.run(context());
  const after = mock.control.coverage();
  console.log(`after:\n${coverageSummary(after)}`);
  expect(expectCoverage(mock.control, { mustSee }).covered).toBe(after.covered);
  expect(after.covered).toBeGreaterThan(before.covered);
  expect(after.clientFindings.map((finding) => finding.rule)).toEqual(['poll_without_backoff', 'key_reused_with_other_body']);
  const [slowPolling] = after.clientFindings;
  expect(slowPolling?.message).toMatch(
    /polled \/v0\/jobs\/job_\w+ at a steady pace, the wait not growing \(waits: 1000, 1000, 1000, 1000, 250 ms\)/,
  );
});

it('raises no polling finding once the app polls with its fixed defaults (waits doubling to 5 s)', async () => {
  mock.control.resetCoverage();
  appPolling = {};
  await suiteWithout409();
  await errorDemos.find((demo) => demo.status === 409)?.run(context());
  console.log(`fixed:\n${coverageSummary(mock.control.coverage())}`);
  // The 409 demo reuses a key with another body on purpose: that finding is the demo's point.
  expect(mock.control.coverage().clientFindings.map((finding) => finding.rule)).toEqual(['key_reused_with_other_body']);
  expect(
    expectCoverage(mock.control, { mustSee, forbidFindings: ['poll_too_fast', 'poll_without_backoff', 'retry_after_ignored'] }).covered,
  ).toBe(22);
});
