/**
 * The timing entries of profile format 2 (docs/profiles.md, "Jobs over time and body limits"):
 * what a file may declare, how the MSW handlers serve a job moved by time and the body limits
 * per operation, and the tolerance `--profile` judges a read with (docs/assumptions.md A-3).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { setupMockService } from '../../mocks/node.js';
import { timingDeparture } from '../../src/conformance/profile/hold-timing.js';
import type { Observation } from '../../src/conformance/profile/observe.js';
import { VirtualClock } from '../../src/engine/clock.js';
import { ProfileError, resolveProfile } from '../../src/profile/profile.js';
import { evaluationRequest } from '../support/fixtures.js';

const baseUrl = 'http://timed.test';
const clock = new VirtualClock();
const mock = setupMockService({
  baseUrl,
  clock,
  profile: {
    profile: 2,
    'A-3': { progression: { by: 'time', ms: { QUEUED: 500, RUNNING: 1000 } } },
    'A-4': { limitations: { complete: 'present' } },
    'A-13': { 'body-limits': { createEvaluation: 2 * 1024 * 1024, verifyReport: 1024 * 1024 } },
  },
});

beforeAll(() => mock.server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => mock.server.close());

function problemsOf(document: unknown): string[] {
  try {
    resolveProfile(document, 'test');
    return [];
  } catch (error) {
    if (!(error instanceof ProfileError)) throw error;
    return error.problems.map((problem) => `${problem.entry}: ${problem.message}`);
  }
}

it('under MSW, moves a job by the virtual clock, not by reads, and puts limitations on COMPLETE', async () => {
  const created = await fetch(`${baseUrl}/v0/evaluations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': 'timed-1' },
    body: JSON.stringify(evaluationRequest()),
  });
  const { jobId, status } = (await created.json()) as { jobId: string; status: string };
  expect(status).toBe('QUEUED');
  const read = async () => (await (await fetch(`${baseUrl}/v0/jobs/${jobId}`)).json()) as Record<string, unknown>;
  // Ten reads at once move nothing.
  for (let index = 0; index < 10; index += 1) expect((await read()).status).toBe('QUEUED');
  clock.advance(600);
  expect((await read()).status).toBe('RUNNING');
  clock.advance(1000);
  const done = await read();
  expect(done.status).toBe('COMPLETE');
  expect(done.limitations).toEqual([expect.any(String)]);
});

it('under MSW, refuses a verifyReport body over its own limit with 400, and takes one at it', async () => {
  const valid = JSON.stringify({ artifact: 'a', expectedOperationId: 'op', expectedIssuer: 'i' });
  const sized = (bytes: number) => `${' '.repeat(bytes - valid.length)}${valid}`;
  const over = await fetch(`${baseUrl}/v0/verifications`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: sized(1024 * 1024 + 1),
  });
  expect([over.status, ((await over.json()) as { code: string }).code]).toEqual([400, 'body_too_large']);
  const at = await fetch(`${baseUrl}/v0/verifications`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: sized(1024 * 1024),
  });
  expect(at.status).toBe(200);
});

it('refuses a timing entry outside its bounds or against the contract, naming the entry and the rule', () => {
  expect(problemsOf({ profile: 2, 'A-3': { progression: { by: 'time', ms: { QUEUED: 600_001 } } } })).toEqual([
    'A-3.progression: ms.QUEUED: at most 600000 ms (10 minutes) in one state',
  ]);
  expect(problemsOf({ profile: 2, 'A-3': { progression: { by: 'reads', reads: { RUNNING: 101 } } } })).toEqual([
    'A-3.progression: reads.RUNNING: at most 100 reads in one state',
  ]);
  expect(problemsOf({ profile: 2, 'A-13': { 'body-limits': { verifyReport: 1000 } } })[0]).toContain(
    'a verifyReport body limit is at least 16384 bytes',
  );
  expect(problemsOf({ profile: 2, 'A-13': { 'body-limits': { createEvaluation: 1024 * 1024 } } })[0]).toContain(
    'createEvaluation 1048576 would refuse a valid request',
  );
  expect(
    problemsOf({
      profile: 2,
      'A-13': {
        'body-limits': { createEvaluation: 4 * 1024 * 1024 },
        'body-too-large': { status: 413, code: 'big', limitBytes: 2 * 1024 * 1024 },
      },
    }),
  ).toEqual([
    "A-13.body-limits: createEvaluation 4194304 differs from A-13.body-too-large's limitBytes 2097152: declare the limit once (or the same in both)",
  ]);
  expect(problemsOf({ profile: 1, 'A-4': { limitations: { complete: 'present' } } })).toEqual([
    'A-4.limitations: is an entry of profile format 2: set profile: 2 (profile --upgrade FILE rewrites a format 1 file)',
  ]);
});

const timed = resolveProfile({ profile: 2, 'A-3': { progression: { by: 'time', ms: { QUEUED: 500, RUNNING: 1000 } } } });

/** A read of the timing step: its state, when it was sent and answered (ms after the create was sent). */
function read(state: string, sentMs: number, answeredMs: number, createAnsweredMs = 5): Observation {
  return { entry: 'A-3.progression', value: { state, read: 1, sentMs, answeredMs, createAnsweredMs }, seen: 'a read', use: 'hold' };
}

it('holds a timeline with a tolerance a busy machine keeps: only a read impossible under it fails', () => {
  // A read answered 3 s late, or a state seen a little early or late: all possible.
  expect(timingDeparture(read('QUEUED', 100, 3100), timed).problem).toBeUndefined();
  expect(timingDeparture(read('RUNNING', 50, 60), timed).problem).toBeUndefined();
  expect(timingDeparture(read('RUNNING', 3900, 3950), timed).problem).toBeUndefined();
  expect(timingDeparture(read('QUEUED', 2000, 2010), timed).problem).toBeUndefined();
  // Still QUEUED after 2 × 500 + 1000 ms: impossible.
  expect(timingDeparture(read('QUEUED', 2100, 2110), timed).problem).toMatch(/^still QUEUED at least 2095 ms after the job was created/);
  // COMPLETE before 1500 − 1000 ms could have passed: impossible.
  const early = resolveProfile({ profile: 2, 'A-3': { progression: { by: 'time', ms: { QUEUED: 3000, RUNNING: 3000 } } } });
  expect(timingDeparture(read('COMPLETE', 2000, 2900), early).problem).toMatch(
    /^COMPLETE at 2900 ms after the create was sent, before its declared 6000 ms/,
  );
  expect(timingDeparture(read('COMPLETE', 2000, 3100), early).problem).toBeUndefined();
});

it('holds a progression by reads to its read count, and a body limit within its resolution', () => {
  const byReads = resolveProfile({ profile: 2, 'A-3': { progression: { by: 'reads', reads: { QUEUED: 0, RUNNING: 2 } } } });
  const at = (state: string, readNumber: number) =>
    timingDeparture(
      { ...read(state, 10, 12), value: { state, read: readNumber, sentMs: 10, answeredMs: 12, createAnsweredMs: 5 } },
      byReads,
    ).problem;
  expect(at('RUNNING', 1)).toBeUndefined();
  expect(at('COMPLETE', 3)).toBeUndefined();
  expect(at('RUNNING', 3)).toMatch(/^still RUNNING at read 3/);
  expect(at('COMPLETE', 2)).toMatch(/^already COMPLETE at read 2/);
  const limits = resolveProfile({ profile: 2, 'A-13': { 'body-limits': { verifyReport: 1024 * 1024 } } });
  const body = (bytes: number, refused: boolean) =>
    timingDeparture(
      {
        entry: 'A-13.body-limits',
        value: { operation: 'verifyReport', bytes, refused, status: refused ? 400 : 200 },
        seen: '',
        use: 'hold',
      },
      limits,
    ).problem;
  expect(body(1024 * 1024, false)).toBeUndefined();
  expect(body(1024 * 1024 + 1, true)).toBeUndefined();
  // Within the 1 KiB the bisection resolves to, either answer keeps the profile.
  expect(body(1024 * 1024 + 500, false)).toBeUndefined();
  expect(body(1024 * 1024, true)).toMatch(/refused a body of 1048576 bytes \(400\), within its declared limit/);
  expect(body(1024 * 1024 + 2048, false)).toMatch(/accepted a body of 1050624 bytes/);
});
