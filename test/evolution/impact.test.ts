/**
 * `diff --coverage`: a real coverage document, made by running the mock engine as a client that
 * created and polled jobs but never verified an artifact, weighs each client-breaking change.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { createMockEngine, VirtualClock } from '../../src/engine/index.js';
import { diffDocuments, parseCoverageInput, withImpact } from '../../src/evolution/index.js';
import { loadBundledDocument } from '../../src/openapi/bundled-document.js';
import { bundledSpecPath } from '../../src/openapi/package-root.js';
import { evaluationRequest, jsonPost } from '../support/fixtures.js';
import { runMain } from '../support/run-main.js';

let spec: Record<string, any>;
let coverageText: string;

/** A client's suite: create an evaluation and poll it until it completes; never verifyReport. */
async function createAndPollCoverage(): Promise<string> {
  const clock = new VirtualClock({ start: Date.UTC(2026, 10, 23) });
  const engine = createMockEngine({ clock, seed: 3 });
  const created = await engine.handle(
    new Request('http://mock.test/v0/evaluations', jsonPost(evaluationRequest(), { 'idempotency-key': 'k-1' })),
  );
  const { jobId } = (await created.json()) as { jobId: string };
  for (let poll = 0; poll < 8; poll += 1) {
    clock.advance(2000);
    const job = (await (await engine.handle(new Request(`http://mock.test/v0/jobs/${jobId}`))).json()) as { status: string };
    if (job.status === 'COMPLETE' || job.status === 'FAILED') break;
  }
  return JSON.stringify(engine.control.coverage(), null, 2);
}

beforeAll(async () => {
  spec = (await loadBundledDocument({ source: bundledSpecPath() })).document;
  coverageText = await createAndPollCoverage();
});

function impactOf(edit: (doc: Record<string, any>) => void) {
  const after = structuredClone(spec);
  edit(after);
  const report = diffDocuments({ old: { document: spec, source: 'old' }, new: { document: after, source: 'new' } });
  return withImpact({ report, coverage: parseCoverageInput(coverageText), source: 'coverage.json' });
}

it('the coverage document is the one a create-and-poll client makes', () => {
  const seen = parseCoverageInput(coverageText)
    .behaviours.filter((behaviour) => behaviour.covered)
    .map((behaviour) => behaviour.id);
  expect(seen).toEqual(expect.arrayContaining(['createEvaluation 202', 'getJob 200', 'job QUEUED']));
  expect(seen.some((id) => id.startsWith('verifyReport'))).toBe(false);
});

it('marks a new job state exercised: the tests read job states from getJob', () => {
  const report = impactOf((doc) => doc.components.schemas.Job.properties.status.enum.push('CANCELLED'));
  const getJob = report.changes.find((change) => change.operation?.operationId === 'getJob')!;
  expect(getJob.impact).toMatchObject({ level: 'exercised' });
  expect(getJob.impact?.evidence).toContain('getJob 200');
  expect(report.counts.exercised).toBe(2);
});

it('marks removing verifyReport unexercised: the tests never called it', () => {
  const report = impactOf((doc) => delete doc.paths['/v0/verifications']);
  expect(report.changes).toHaveLength(1);
  expect(report.changes[0]).toMatchObject({ rule: 'operation-removed', impact: { level: 'unexercised', evidence: [] } });
});

it('gives an added operation impact none: it breaks no client', () => {
  const report = impactOf((doc) => {
    doc.paths['/v0/jobs/{jobId}'].delete = { operationId: 'deleteJob', responses: { '204': { description: 'Deleted.' } } };
  });
  expect(report.changes[0]).toMatchObject({
    rule: 'operation-added',
    breaks: { clients: false, servers: true },
    impact: { level: 'none' },
  });
});

it('leads the text summary with what the tests exercise', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'evolution-impact-'));
  const next = structuredClone(spec);
  next.components.schemas.Job.properties.status.enum.push('CANCELLED');
  delete next.paths['/v0/verifications'];
  writeFileSync(join(folder, 'new.json'), JSON.stringify(next));
  writeFileSync(join(folder, 'coverage.json'), coverageText);
  const result = await runMain(
    'diff',
    bundledSpecPath(),
    join(folder, 'new.json'),
    '--coverage',
    join(folder, 'coverage.json'),
    '--fail-on',
    'clients',
  );
  expect(result.code).toBe(1);
  const exercised = result.stdout.indexOf('Breaks clients, exercised by the tests');
  const unexercised = result.stdout.indexOf('Breaks clients, not exercised by the tests');
  expect(exercised).toBeGreaterThan(0);
  expect(unexercised).toBeGreaterThan(exercised);
  expect(result.stdout.slice(exercised, unexercised)).toContain('gained the value `CANCELLED`');
  expect(result.stdout.slice(unexercised)).toContain('verifyReport (POST /v0/verifications): was removed');
});

it.each([
  ['not JSON', '{"behaviours": [', /is not JSON/],
  ['no behaviours', '{"covered": 3}', /has no "behaviours" list/],
  ['a behaviour without an id', '{"behaviours": [{"covered": true}]}', /behaviours\[0\]\.id must be/],
  ['covered not a boolean', '{"behaviours": [{"id": "getJob 200", "covered": "yes"}]}', /behaviours\[0\]\.covered must be true or false/],
  [
    'too many behaviours',
    JSON.stringify({ behaviours: Array.from({ length: 10_001 }, () => ({ id: 'x', covered: true })) }),
    /more than the 10000/,
  ],
])('refuses a coverage file that is %s with exit 2 and what it expected', async (_name, text, message) => {
  const folder = mkdtempSync(join(tmpdir(), 'evolution-coverage-'));
  writeFileSync(join(folder, 'coverage.json'), text);
  const result = await runMain('diff', bundledSpecPath(), bundledSpecPath(), '--coverage', join(folder, 'coverage.json'));
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).not.toMatch(/\n\s+at /);
});
