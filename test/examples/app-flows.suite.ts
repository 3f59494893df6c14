/**
 * The example app's flows, one shared suite run against two targets: the engine under MSW's
 * setupServer (app-msw.test.ts) and the `evidence-harness mock` server over HTTP
 * (app-over-http.test.ts). Polling runs on a virtual clock, so no case sleeps.
 */

import type { PollClock } from 'evidence-harness/client';
import { afterEach, expect, it } from 'vitest';
import type { ShownFailure } from '../../examples/app/src/describe-failure.js';
import { type AppContext, errorDemos, type JobStep, runEvaluation, verifyDemoArtifact } from '../../examples/app/src/flows.js';
import type { MockControl } from '../../src/engine/index.js';

export interface AppFlowTarget {
  /** The app's context for this target; `scenario` is sent as Prefer: scenario=NAME. */
  context(options?: { scenario?: string; timeoutMs?: number }): AppContext;
  /** The engine behind the target. */
  control(): MockControl;
}

/** Time that moves only when waitForJob sleeps. */
export function instantClock(start = Date.UTC(2026, 10, 22)): PollClock {
  let now = start;
  return {
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
  };
}

let keys = 0;
/** Idempotency-Keys unique within a run, so targets never see a replay by accident. */
export function testKeys(): () => string {
  return () => {
    keys += 1;
    return `app-test-key-${keys}`;
  };
}

const expectedCodes: Record<(typeof errorDemos)[number]['status'], string> = {
  400: 'invalid_request',
  404: 'job_not_found',
  409: 'idempotency_key_conflict',
  413: 'limit_exceeded',
  503: 'service_unavailable',
};

export function appFlowCases(target: () => AppFlowTarget): void {
  afterEach(async () => {
    await target().control().reset();
  });

  it('follows a job from QUEUED to COMPLETE, reporting each state as it arrives', async () => {
    const steps: JobStep[] = [];
    const outcome = await runEvaluation(target().context(), { onStep: (step) => steps.push(step) });
    expect(steps.map(({ status, seenAt }) => [status, seenAt])).toEqual([
      ['QUEUED', 'created'],
      ['RUNNING', 1],
      ['COMPLETE', 3],
    ]);
    expect(steps.at(-1)?.evaluation).toBe('PASS');
    expect(outcome).toMatchObject({ kind: 'finished', job: { status: 'COMPLETE', evaluation: 'PASS' } });
  });

  it('follows a job to FAILED under the job-failed scenario', async () => {
    const steps: JobStep[] = [];
    const outcome = await runEvaluation(target().context({ scenario: 'job-failed' }), { onStep: (step) => steps.push(step) });
    expect(steps.map(({ status }) => status)).toEqual(['QUEUED', 'RUNNING', 'FAILED']);
    expect(outcome).toMatchObject({ kind: 'finished', job: { status: 'FAILED' } });
  });

  it('gives up with a readable timeout when the job never moves', async () => {
    // fake-time: each target polls on a virtual clock.
    const outcome = await runEvaluation(target().context({ scenario: 'manual', timeoutMs: 5000 }), { onStep: () => {} });
    if (outcome.kind !== 'gave-up') throw new Error(`expected gave-up, got ${outcome.kind}`);
    expect(outcome.failure.headline).toBe('Timed out');
    expect(outcome.failure.message).toContain('still QUEUED');
    expect(outcome.lastJob?.status).toBe('QUEUED');
  });

  it('reports a poll refused with 503 and Retry-After, then finishes', async () => {
    target()
      .control()
      .useScenario({ name: 'one-busy-poll', faults: [{ operation: 'getJob', status: 503, times: 1, retryAfter: 2 }] });
    const notices: string[] = [];
    const outcome = await runEvaluation(target().context(), { onStep: () => {}, onNotice: (text) => notices.push(text) });
    expect(notices).toEqual(['Poll 1: 503 service_unavailable; polling again in 2 s (as Retry-After asks).']);
    expect(outcome).toMatchObject({ kind: 'finished', job: { status: 'COMPLETE' } });
  });

  it('shows why an evaluation was refused', async () => {
    const outcome = await runEvaluation(target().context({ scenario: 'error-413' }), { onStep: () => {} });
    if (outcome.kind !== 'refused') throw new Error(`expected refused, got ${outcome.kind}`);
    expect(outcome.failure).toMatchObject({ status: 413, code: 'limit_exceeded' });
    expect(outcome.failure.headline).toMatch(/^413 [A-Z]/);
  });

  it('verifies a genuine artifact as VALID and a tampered one as INVALID', async () => {
    const genuine = await verifyDemoArtifact(target().context(), { tampered: false });
    expect(genuine).toMatchObject({ kind: 'verified', result: { integrity: 'VALID', evaluation: 'PASS' } });
    const tampered = await verifyDemoArtifact(target().context(), { tampered: true });
    if (tampered.kind !== 'verified') throw new Error('expected a verification result');
    expect(tampered.result.integrity).toBe('INVALID');
    expect(tampered.result.reasons.join(' ')).toMatch(/signature/i);
  });

  it.each(errorDemos.map((demo) => ({ status: demo.status, demo })))(
    'shows the $status error a person can read',
    async ({ status, demo }) => {
      const outcome = await demo.run(target().context());
      if (outcome.kind !== 'failure') throw new Error(`expected ${status}, the call succeeded with ${outcome.status}`);
      const failure: ShownFailure = outcome.failure;
      expect(failure.status).toBe(status);
      expect(failure.headline).toMatch(new RegExp(`^${status} [A-Z]`));
      expect(failure.code).toBe(expectedCodes[status]);
      expect(failure.message.length).toBeGreaterThan(10);
      expect(failure.advice.length).toBeGreaterThan(10);
      if (status === 503) {
        expect(failure.retryAfterSeconds).toBe(1);
        expect(failure.advice).toContain('Retry after 1 s.');
      } else {
        expect(failure.retryAfterSeconds).toBeUndefined();
      }
    },
  );
}
