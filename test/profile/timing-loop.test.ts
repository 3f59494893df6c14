/**
 * Jobs over time and body limits, from a server to its twin (docs/profiles.md, "Jobs over time
 * and body limits"): against a stand-in whose jobs move by time (on a clock the test drives:
 * no real wait), that puts limitations on COMPLETE jobs and limits bodies to 2 MiB on
 * createEvaluation and 1 MiB on verifyReport, `--write-profile`'s learning phase learns
 * A-3.progression, A-4.limitations and A-13.body-limits; the mock with that profile (on a
 * VirtualClock) answers like the stand-in at the same virtual times; and `--profile` passes
 * both, no check failed, advisory included. Against the bundled mock the step sends no wait.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type LearntProfile, ProfileLearner } from '../../src/conformance/profile/learn.js';
import { bodyLimitStep, jobProgressionStep } from '../../src/conformance/profile/learning/timing.js';
import { runConformance } from '../../src/conformance/run.js';
import { VirtualClock } from '../../src/engine/clock.js';
import type { EntryName } from '../../src/profile/entries.js';
import { resolveProfile, type ServerProfile, splitEntryName } from '../../src/profile/profile.js';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';
import { startTimedServer, type TimedServer, timedDecisions } from '../fixtures/profile-server/timed-server.js';
import { evaluationRequest } from '../support/fixtures.js';

const headers = { 'X-Api-Key': 'alice-key' };
const callers = { headers, secondCallerHeaders: { 'X-Api-Key': 'bob-key' } };
const serverClock = new VirtualClock({ start: 1_000_000 });
let server: TimedServer;
let learnt: LearntProfile;
let profile: ServerProfile;

/** The learnt entries as a profile document. */
function documentOf(entries: LearntProfile['entries']): Record<string, unknown> {
  const document: Record<string, Record<string, unknown>> = {};
  for (const [name, value] of Object.entries(entries)) {
    const [group, entry] = splitEntryName(name as EntryName);
    document[group] ??= {};
    document[group][entry] = value;
  }
  return { profile: 2, ...document };
}

/** Every check that failed, required or advisory. */
function failedChecks(report: Awaited<ReturnType<typeof runConformance>>): string[] {
  return report.checks
    .filter((check) => check.status === 'failed')
    .map((check) => `${check.name}: ${check.failures.map((failure) => `${failure.title} (${failure.received})`).join('; ')}`);
}

beforeAll(async () => {
  server = await startTimedServer({ clock: serverClock });
  const learner = new ProfileLearner();
  await runConformance({
    baseUrl: server.url,
    ...callers,
    seed: 7,
    replayWaitMs: 0,
    learn: true,
    clock: serverClock,
    onExchange: (exchange) => learner.record(exchange),
  });
  learnt = learner.result({ caller: { header: 'X-Api-Key', scheme: 'any' } });
  profile = resolveProfile(documentOf(learnt.entries), 'learnt');
}, 120_000);
afterAll(async () => {
  await server.close();
});

it('learns that jobs move by time, the ms of each state measured, with what was measured in the comment', () => {
  const progression = learnt.entries['A-3.progression'];
  expect(progression?.by).toBe('time');
  const ms = (progression as { ms: Record<string, number> }).ms;
  // Read at a third of the time since the create: within that of the true 500 and 1000 ms.
  expect(ms.QUEUED).toBeGreaterThanOrEqual(400);
  expect(ms.QUEUED).toBeLessThanOrEqual(700);
  expect(ms.RUNNING).toBeGreaterThanOrEqual(700);
  expect(ms.RUNNING).toBeLessThanOrEqual(1500);
  expect(learnt.comments['A-3.progression']?.[0]).toMatch(
    /^seen 1×: by time, \d+ reads .*: RUNNING first at \d+ ms, COMPLETE first at \d+ ms; QUEUED ≈ \d+ ± \d+ ms, RUNNING ≈ \d+ ± \d+ ms$/,
  );
  // One line of the file: a comment is cut at 200 characters.
  expect(learnt.comments['A-3.progression']?.[0]?.length).toBeLessThanOrEqual(200);
  expect(learnt.entries['A-3.timeline']).toEqual({ first: 'QUEUED', through: ['QUEUED', 'RUNNING', 'COMPLETE'] });
});

it('learns limitations at COMPLETE and each operation’s body limit, exactly', () => {
  expect(learnt.entries['A-4.limitations']).toEqual({ complete: 'present' });
  expect(learnt.entries['A-13.body-limits']).toEqual({
    createEvaluation: timedDecisions.createLimit,
    verifyReport: timedDecisions.verifyLimit,
  });
  expect(learnt.comments['A-13.body-limits']?.[0]).toBe(
    'seen 1×: createEvaluation 2097152 accepted, 2097153 refused (exact, 2 probes); verifyReport 1048576 accepted, 1048577 refused (exact, 4 probes)',
  );
  expect(learnt.comments['A-4.limitations']?.[0]).toMatch(/^COMPLETE job, limitations present \(seen \d+×: GET getJob → 200 COMPLETE\)$/);
});

/** A job's status and limitations at the virtual times given (ms after its create), and the answers to bodies at the limits. */
async function answersOver(base: string, clock: VirtualClock): Promise<string[]> {
  const seen: string[] = [];
  const json = { ...headers, 'content-type': 'application/json' };
  const created = await fetch(`${base}/v0/evaluations`, {
    method: 'POST',
    headers: { ...json, 'idempotency-key': `k-${clock.now()}-${Math.random()}` },
    body: JSON.stringify(evaluationRequest()),
  });
  const job = (await created.json()) as { jobId: string; status: string };
  seen.push(`202 ${job.status}`);
  let at = 0;
  for (const time of [100, 250, 450, 700, 1200, 1400, 2500, 5000]) {
    clock.advance(time - at);
    at = time;
    const read = (await (await fetch(`${base}/v0/jobs/${job.jobId}`, { headers })).json()) as { status: string; limitations?: unknown };
    seen.push(`at ${time} ms: ${read.status}${read.limitations ? ' with limitations' : ''}`);
  }
  const verify = JSON.stringify({ artifact: 'a', expectedOperationId: 'op', expectedIssuer: 'i' });
  for (const [path, limit] of [
    ['/v0/verifications', timedDecisions.verifyLimit],
    ['/v0/evaluations', timedDecisions.createLimit],
  ] as const) {
    const valid = path === '/v0/verifications' ? verify : JSON.stringify(evaluationRequest());
    for (const size of [limit, limit + 1]) {
      const response = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { ...json, 'idempotency-key': `k-${size}-${Math.random()}` },
        body: `${' '.repeat(size - valid.length)}${valid}`,
      });
      const text = await response.text();
      const code = response.status >= 400 ? (JSON.parse(text) as { code: string }).code : '';
      seen.push(`${path} ${size} bytes: ${response.status} ${code}`);
    }
  }
  return seen;
}

it('serves it: the profiled mock on a VirtualClock answers like the server at the same virtual times', async () => {
  const mockClock = new VirtualClock({ start: 5_000 });
  const mock = await startMockServer({ port: 0, host: '127.0.0.1', profile, engineOptions: { clock: mockClock } });
  const plain = await startMockServer({ port: 0, host: '127.0.0.1', engineOptions: { clock: new VirtualClock() } });
  try {
    const fromServer = await answersOver(server.url, serverClock);
    expect(fromServer.slice(0, 9)).toEqual([
      '202 QUEUED',
      'at 100 ms: QUEUED',
      'at 250 ms: QUEUED',
      'at 450 ms: QUEUED',
      'at 700 ms: RUNNING',
      'at 1200 ms: RUNNING',
      'at 1400 ms: RUNNING',
      'at 2500 ms: COMPLETE with limitations',
      'at 5000 ms: COMPLETE with limitations',
    ]);
    expect(await answersOver(mock.url, mockClock)).toEqual(fromServer);
    // The mock without a profile moves by reads: another answer on the same points.
    const plainAnswers = await answersOver(plain.url, new VirtualClock());
    expect(plainAnswers).not.toEqual(fromServer);
  } finally {
    await mock.close({ graceMs: 100 });
    await plain.close({ graceMs: 100 });
  }
}, 60_000);

it('holds the server and the profiled mock to the profile: exit 0, no failed check, advisory included', async () => {
  const held = await runConformance({ baseUrl: server.url, ...callers, seed: 8, replayWaitMs: 0, profile, clock: serverClock });
  expect(failedChecks(held)).toEqual([]);
  expect(held.exitCode).toBe(0);
  for (const entry of ['A-3.progression', 'A-4.limitations', 'A-13.body-limits'])
    expect(held.checks.find((check) => check.name === `profile:${entry}`)?.status).toBe('passed');
  const mockClock = new VirtualClock();
  const mock: RunningMockServer = await startMockServer({ port: 0, host: '127.0.0.1', profile, engineOptions: { clock: mockClock } });
  try {
    const twin = await runConformance({ baseUrl: mock.url, ...callers, seed: 9, replayWaitMs: 0, profile, clock: mockClock });
    expect(failedChecks(twin)).toEqual([]);
    expect(twin.exitCode).toBe(0);
  } finally {
    await mock.close({ graceMs: 100 });
  }
}, 120_000);

it('fails a server whose job is already past a state long before the profile allows, naming the entry', async () => {
  const early = resolveProfile(documentOf({ ...learnt.entries, 'A-3.progression': { by: 'time', ms: { QUEUED: 5000, RUNNING: 5000 } } }));
  const held = await runConformance({
    baseUrl: server.url,
    ...callers,
    seed: 10,
    replayWaitMs: 0,
    profile: early,
    clock: serverClock,
    checks: ['status_code_documented'],
  });
  const check = held.checks.find((candidate) => candidate.name === 'profile:A-3.progression');
  expect(check?.status).toBe('failed');
  expect(check?.failures[0]?.title).toMatch(/A-3\.progression: RUNNING at \d+ ms after the create was sent, before its declared 5000 ms/);
}, 120_000);

it('against the bundled mock, learns by reads without a single wait, within its budget', async () => {
  // The mock's own jobs also move after 500 and 2000 ms: on a clock nobody moves, only reads move them.
  const mock = await startMockServer({ port: 0, host: '127.0.0.1', engineOptions: { clock: new VirtualClock() } });
  const sleeps: number[] = [];
  const sent: string[] = [];
  let learning = false;
  try {
    const learner = new ProfileLearner();
    // The clock records every wait the run asks for, and waits none of them.
    const clock = new VirtualClock();
    await runConformance({
      baseUrl: mock.url,
      seed: 7,
      replayWaitMs: 0,
      checks: ['status_code_documented'],
      learn: true,
      clock: {
        now: () => clock.now(),
        sleep: (ms) => {
          if (learning) sleeps.push(ms);
          return clock.sleep(ms);
        },
      },
      onExchange: (exchange) => {
        learner.record(exchange);
        if (exchange.intent.kind !== 'learning') return;
        learning = true;
        sent.push(exchange.intent.question);
      },
    });
    const progressionReads = sent.filter((question) => question === 'job-progression').length;
    const limitProbes = sent.filter((question) => question === 'body-limit').length;
    expect(progressionReads).toBeLessThanOrEqual(jobProgressionStep.budget);
    expect(progressionReads).toBe(4); // the create and three reads: RUNNING, RUNNING, COMPLETE
    // createEvaluation's 2 MiB and one byte more; verifyReport's 16 MiB, the most a profile holds.
    expect(limitProbes).toBe(3);
    expect(limitProbes).toBeLessThanOrEqual(bodyLimitStep.budget);
    const result = learner.result();
    expect(result.entries['A-3.progression']).toEqual({ by: 'reads', reads: { QUEUED: 0, RUNNING: 2 } });
    expect(result.entries['A-13.body-limits']).toEqual({ createEvaluation: 2 * 1024 * 1024, verifyReport: 16 * 1024 * 1024 });
    expect(result.entries['A-4.limitations']).toEqual({ complete: 'absent' });
    // The lifecycle probe polls with a backoff before; the learning phase waits for nothing.
    expect(sleeps).toEqual([]);
  } finally {
    await mock.close({ graceMs: 100 });
  }
}, 120_000);
