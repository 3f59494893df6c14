/**
 * Consumer coverage (src/engine/coverage.ts): which behaviours the engine's answers have shown
 * a client, through `control.coverage()`. Each test drives the engine in process, on a virtual
 * clock, and reads what a suite author would read.
 */
import { expect, it } from 'vitest';
import { createMockEngine, type MockEngine, VirtualClock } from '../../src/engine/index.js';
import { evaluationRequest, jsonPost } from '../support/fixtures.js';

const base = 'http://mock.test';

function engineOn(scenario = 'default'): { engine: MockEngine; clock: VirtualClock } {
  const clock = new VirtualClock({ start: Date.UTC(2026, 10, 23) });
  return { engine: createMockEngine({ clock, seed: 3, scenario }), clock };
}

async function create(engine: MockEngine, options: { key: string; auth?: string; body?: unknown }): Promise<Response> {
  const headers: Record<string, string> = { 'idempotency-key': options.key, ...(options.auth ? { authorization: options.auth } : {}) };
  return engine.handle(new Request(`${base}/v0/evaluations`, jsonPost(options.body ?? evaluationRequest(), headers)));
}

function covered(engine: MockEngine): string[] {
  return engine.control
    .coverage()
    .behaviours.filter((behaviour) => behaviour.covered)
    .map((behaviour) => behaviour.id);
}

it('starts with nothing covered, and every behaviour has an id, an operation and a description', () => {
  const { engine } = engineOn();
  const report = engine.control.coverage();
  expect(report.covered).toBe(0);
  expect(report.total).toBe(report.behaviours.length);
  expect(new Set(report.behaviours.map((behaviour) => behaviour.id)).size).toBe(report.total);
  for (const behaviour of report.behaviours) {
    expect(behaviour.operationId).toMatch(/^(health|createEvaluation|verifyReport|getJob|\*)$/);
    expect(behaviour.description.length).toBeGreaterThan(10);
  }
  expect(report.clientFindings).toEqual([]);
});

it('after creating and polling a PASS job, covers 202, 200 and the states seen, and lists 409, 413, FAILED and INDETERMINATE as missing', async () => {
  const { engine, clock } = engineOn();
  const { jobId } = await (await create(engine, { key: 'k-1' })).json();
  for (let poll = 0; poll < 3; poll += 1) {
    clock.advance(500);
    await engine.handle(new Request(`${base}/v0/jobs/${jobId}`));
  }
  const report = engine.control.coverage();
  expect(covered(engine)).toEqual(
    expect.arrayContaining(['createEvaluation 202', 'getJob 200', 'job QUEUED', 'job COMPLETE', 'evaluation PASS']),
  );
  const missing = report.behaviours.filter((behaviour) => !behaviour.covered).map((behaviour) => behaviour.id);
  expect(missing).toEqual(
    expect.arrayContaining(['createEvaluation 409', 'createEvaluation 413', 'job FAILED', 'evaluation INDETERMINATE']),
  );
  expect(report.covered).toBe(report.behaviours.filter((behaviour) => behaviour.covered).length);
});

it('counts a replay, a real conflict and its Error code, and not a forced 409 as a conflict', async () => {
  const { engine } = engineOn();
  await create(engine, { key: 'same' });
  await create(engine, { key: 'same' });
  expect(covered(engine)).toContain('idempotency replay');
  expect(covered(engine)).not.toContain('idempotency conflict');

  const forced = await engine.handle(
    new Request(`${base}/v0/evaluations`, jsonPost(evaluationRequest(), { 'idempotency-key': 'other', prefer: 'code=409' })),
  );
  expect(forced.status).toBe(409);
  expect(covered(engine)).toContain('createEvaluation 409');
  expect(covered(engine)).not.toContain('idempotency conflict');

  await create(engine, { key: 'same', body: evaluationRequest({ operationId: 'op-2026-0099' }) });
  expect(covered(engine)).toEqual(expect.arrayContaining(['idempotency conflict', 'error idempotency_key_conflict']));
});

it("covers another caller's 404 only for a job that exists and belongs to someone else", async () => {
  const { engine } = engineOn();
  const { jobId } = await (await create(engine, { key: 'k', auth: 'Bearer alice' })).json();
  await engine.handle(new Request(`${base}/v0/jobs/job-that-does-not-exist`, { headers: { authorization: 'Bearer bob' } }));
  expect(covered(engine)).toContain('getJob 404');
  expect(covered(engine)).not.toContain('getJob other caller');
  await engine.handle(new Request(`${base}/v0/jobs/${jobId}`, { headers: { authorization: 'Bearer bob' } }));
  expect(covered(engine)).toContain('getJob other caller');
});

it('covers Retry-After and the codes of forced 429 and 503 answers', async () => {
  const { engine } = engineOn();
  engine.control.useScenario({ name: 'busy', faults: [{ operation: 'getJob', status: 429, times: 1 }] });
  await engine.handle(new Request(`${base}/v0/jobs/any`));
  expect(covered(engine)).toEqual(expect.arrayContaining(['getJob 429', 'getJob Retry-After', 'error rate_limited']));
  expect(covered(engine)).not.toContain('createEvaluation Retry-After');
});

it('keeps coverage across reset (A-26) and forgets it on resetCoverage', async () => {
  const { engine } = engineOn();
  await engine.handle(new Request(`${base}/health`));
  await engine.control.reset();
  expect(covered(engine)).toEqual(['health 200']);
  engine.control.resetCoverage();
  expect(engine.control.coverage().covered).toBe(0);
});

it('keeps no credential and no unbounded text from hostile requests', async () => {
  const { engine } = engineOn();
  const secret = `Bearer ${'s3cr3t'.repeat(2000)}`;
  const hugeKey = 'k'.repeat(5000);
  // A tight loop on a long path by a caller with a long credential.
  const path = `/v0/jobs/${'x'.repeat(4000)}`;
  for (let poll = 0; poll < 3; poll += 1) await engine.handle(new Request(`${base}${path}`, { headers: { authorization: secret } }));
  await engine.handle(
    new Request(`${base}/v0/evaluations`, {
      method: 'POST',
      headers: { authorization: secret, 'idempotency-key': hugeKey, 'content-type': 'text/plain' },
      body: 'x',
    }),
  );
  const text = JSON.stringify(engine.control.coverage());
  expect(text).not.toContain('s3cr3t');
  expect(text).not.toContain('k'.repeat(200));
  expect(text.length).toBeLessThan(20_000);
  const findings = engine.control.coverage().clientFindings;
  expect(findings.map((finding) => finding.rule)).toEqual(expect.arrayContaining(['poll_too_fast', 'content_type_not_json']));
  for (const finding of findings) expect(finding.example.caller).toMatch(/^sha256:[0-9a-f]{32}$/);
});

it('takes a job id a seeded mock gives again after a reset for a new job, not a replay or another caller’s', async () => {
  const { engine } = engineOn();
  const first = (await (await create(engine, { key: 'k', auth: 'Bearer alice' })).json()).jobId;
  await engine.control.reset();
  const again = (await (await create(engine, { key: 'other', auth: 'Bearer bob' })).json()).jobId;
  expect(again).toBe(first);
  await engine.handle(new Request(`${base}/v0/jobs/${again}`, { headers: { authorization: 'Bearer bob' } }));
  expect(covered(engine)).not.toContain('idempotency replay');
  await engine.handle(new Request(`${base}/v0/jobs/${again}`, { headers: { authorization: 'Bearer alice' } }));
  expect(covered(engine)).toContain('getJob other caller');
});
