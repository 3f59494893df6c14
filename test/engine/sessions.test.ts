/**
 * Sessions and request verification in process (docs/assumptions.md ):
 * `control.session(name)`, the journal's filters and newest-first pages, `control.calls`.
 */
import { expect, it } from 'vitest';
import { createMockEngine, handleControl, VirtualClock } from '../../src/engine/index.js';
import { evaluationRequest, jsonPost } from '../support/fixtures.js';

const base = 'http://mock.test';

function engineWith(options: Parameters<typeof createMockEngine>[0] = {}) {
  const engine = createMockEngine({ clock: new VirtualClock({ start: 1_000 }), ...options });
  const create = (key: string, session?: string) =>
    engine.handle(
      new Request(
        `${base}/v0/evaluations`,
        jsonPost(evaluationRequest(), { 'idempotency-key': key, ...(session ? { 'x-mock-session': session } : {}) }),
      ),
    );
  return { engine, create };
}

it('gives control.session(name) the state that requests with the header reach', async () => {
  const { engine, create } = engineWith();
  const session = engine.control.session('team-a');
  session.useScenario('job-failed');
  expect(engine.control.scenario).toBe('default');
  const created = (await (await create('k1', 'team-a')).json()) as { jobId: string };
  expect((await session.listJobs()).map((job) => job.job.jobId)).toEqual([created.jobId]);
  expect(await engine.control.listJobs()).toEqual([]);
  expect(session.sessionName).toBe('team-a');
  expect(engine.control.session('default')).toBe(engine.control);
  expect(engine.control.sessions().map((summary) => summary.name)).toEqual(['default', 'team-a']);
  expect(() => engine.control.session('no spaces')).toThrow(/X-Mock-Session must be 1 to 64/);
});

it('draws different job ids in two sessions of a seeded engine, the same ones run after run', async () => {
  const ids = async () => {
    const { create } = engineWith({ seed: 7 });
    const one = (await (await create('k', 'one')).json()) as { jobId: string };
    const two = (await (await create('k', 'two')).json()) as { jobId: string };
    return [one.jobId, two.jobId];
  };
  const first = await ids();
  expect(first[0]).not.toBe(first[1]);
  expect(await ids()).toEqual(first);
});

it('forgets a session left idle past sessionIdleMs, and says so', async () => {
  const lines: string[] = [];
  const clock = new VirtualClock({ start: 0 });
  const engine = createMockEngine({ clock, limits: { sessionIdleMs: 60_000 }, log: (line) => lines.push(line) });
  engine.control.session('sleepy').useScenario('job-failed');
  clock.advance(60_000);
  expect(engine.control.sessions().map((summary) => summary.name)).toEqual(['default']);
  expect(lines).toEqual([expect.stringMatching(/^session 'sleepy' forgotten: idle for 60 s/)]);
  expect(engine.control.session('sleepy').scenario).toBe('default');
});

it('filters the journal and pages it newest first, through control.calls and GET /__mock/journal', async () => {
  const { engine, create } = engineWith();
  for (const key of ['k1', 'k2', 'k3', 'k1']) await create(key);
  await engine.handle(new Request(`${base}/v0/jobs/nope`));
  const calls = engine.control.calls({ operation: 'createEvaluation', idempotencyKey: 'k1' });
  expect(calls.map((call) => call.seq)).toEqual([4, 1]);
  expect(engine.control.calls({ status: 404 }).map((call) => call.path)).toEqual(['/v0/jobs/nope']);
  expect(engine.control.calls({ jobId: calls[0]!.jobId! })).toHaveLength(2);

  const page = async (query: string) => {
    const response = await handleControl(new Request(`${base}/__mock/journal?${query}`), { engine });
    return {
      status: response.status,
      body: (await response.json()) as { entries: Array<{ seq: number }>; nextCursor?: string; message?: string },
    };
  };
  const first = await page('order=newest&limit=2&operation=createEvaluation');
  expect(first.body.entries.map((entry) => entry.seq)).toEqual([4, 3]);
  const second = await page(`order=newest&limit=2&operation=createEvaluation&cursor=${first.body.nextCursor}`);
  expect(second.body.entries.map((entry) => entry.seq)).toEqual([2, 1]);
  expect(second.body.nextCursor).toBeUndefined();
  expect((await page('since=1000&status=202')).body.entries).toHaveLength(4);
  expect((await page('since=1001')).body.entries).toHaveLength(0);
  for (const bad of ['status=2000', 'since=-1', 'order=sideways', 'operation=']) {
    const answer = await page(bad);
    expect(answer.status, bad).toBe(400);
    expect(answer.body.message).toMatch(/^(status|since|order|operation) must/);
  }
});
