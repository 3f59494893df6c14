/**
 * The runner's `signal` (ConformanceOptions.signal, docs/reliability.md): aborted before the run,
 * nothing is sent; aborted while it runs, nothing new is sent (at most the requests already on
 * their way arrive), no retry follows a 429 and no fast-check run starts, and the run ends with
 * a report marked interrupted by the abort's reason. Every wait here is an event of the target.
 */
import { afterEach, expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/index.js';
import { generatedProbe } from '../../src/conformance/probes/generated-probe.js';
import type { ProbeContext } from '../../src/conformance/probes/probe-context.js';
import { loadContract } from '../../src/openapi/document.js';
import { type CountingTarget, startCountingTarget } from '../support/counting-target.js';

/** Requests the runner may have on their way when it is stopped: its connections to one origin (max(4, concurrency 5)). */
const inFlightAtMost = 5;

const targets: CountingTarget[] = [];
afterEach(async () => {
  await Promise.all(targets.splice(0).map((target) => target.close()));
});

async function target(options: Parameters<typeof startCountingTarget>[0] = {}): Promise<CountingTarget> {
  const started = await startCountingTarget(options);
  targets.push(started);
  return started;
}

it('sends nothing when its signal is aborted before it starts, and says what stopped it', async () => {
  const server = await target();
  const report = await runConformance({ baseUrl: server.url, seed: 7, signal: AbortSignal.abort('SIGINT') });
  expect(server.requests).toBe(0);
  expect(server.connections).toBe(0);
  expect(report).toMatchObject({ requests: 0, verdict: 'incomplete', interrupted: 'SIGINT', passed: false });
  expect(report.incomplete[0]).toBe('the run was interrupted by SIGINT');
});

it('sends nothing new once aborted mid-run, and ends marked interrupted by the reason', async () => {
  const server = await target();
  const controller = new AbortController();
  let atAbort = 0;
  void server.nthRequest(12, () => {
    atAbort = server.requests;
    controller.abort('the caller went away');
  });
  const report = await runConformance({ baseUrl: server.url, seed: 7, maxRequests: 400, signal: controller.signal });
  const atEnd = server.requests;
  const connectionsAtEnd = server.connections;
  expect(atAbort).toBe(12);
  expect(atEnd - atAbort).toBeLessThanOrEqual(inFlightAtMost);
  // The target's answers fail checks before the abort: "failed so far", and said to be interrupted.
  expect(report).toMatchObject({ interrupted: 'the caller went away', passed: false });
  expect(report.incomplete[0]).toBe('the run was interrupted by the caller went away');
  expect(report.requests).toBeLessThanOrEqual(atEnd);
  // Once the runner's connections are gone, nothing of the run can arrive any more.
  await server.allClosed();
  expect(server.requests - atAbort).toBeLessThanOrEqual(inFlightAtMost);
  expect(server.connections).toBe(connectionsAtEnd);
});

it('cuts the requests in flight when aborted, rather than waiting for their answers', async () => {
  // From the 3rd request on the target never answers: only the abort can end the run before its --timeout.
  const server = await target({ holdFrom: 3 });
  const controller = new AbortController();
  void server.nthRequest(3, () => controller.abort('SIGTERM'));
  const report = await runConformance({ baseUrl: server.url, seed: 7, timeoutMs: 600_000, signal: controller.signal });
  await server.allClosed();
  expect(server.requests - 3).toBeLessThanOrEqual(inFlightAtMost);
  expect(report).toMatchObject({ interrupted: 'SIGTERM', exitCode: 143, passed: false });
  // A request cut by the run's own stop says nothing about the server: it is not a timeout.
  expect(JSON.stringify(report)).not.toMatch(/no answer within/);
});

it('sends no retry after a 429 once aborted, whatever its Retry-After', async () => {
  const server = await target({ answer: () => ({ status: 429, headers: { 'retry-after': '4' }, body: '{}' }) });
  const controller = new AbortController();
  void server.nthRequest(1, () => controller.abort('SIGINT'));
  const report = await runConformance({ baseUrl: server.url, seed: 7, signal: controller.signal });
  await server.allClosed();
  expect(server.requests).toBe(1);
  expect(report.interrupted).toBe('SIGINT');
});

it('starts no fast-check run once the run is stopped', async () => {
  const contract = await loadContract();
  const controller = new AbortController();
  let sends = 0;
  let sendsAfterAbort = 0;
  const context = {
    contract,
    seed: 7,
    runId: 'abort-test',
    examplesPerOperation: 50,
    includes: () => true,
    remainingRequests: () => 1000,
    stopped: controller.signal,
    note: () => {},
    record: () => {},
    conforms: () => true,
    send: async () => {
      if (controller.signal.aborted) sendsAfterAbort += 1;
      sends += 1;
      if (sends === 3) controller.abort('SIGINT');
      return undefined;
    },
  } as unknown as ProbeContext;
  await generatedProbe(context);
  expect(sends).toBe(3);
  expect(sendsAfterAbort).toBe(0);
});
