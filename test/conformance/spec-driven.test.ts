/**
 * The runner is driven by the OpenAPI document: an edit to the spec changes what is generated
 * and checked, with no code change. Here a copy of the spec lowers operationId's maxLength to
 * 100; the mock still allows 128, so the new 101-character mutation is accepted and the runner
 * reports it, naming the new limit.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { runConformance } from '../../src/conformance/run.js';
import { createMockEngine } from '../../src/engine/index.js';
import { bundledSpecPath } from '../../src/openapi/package-root.js';

function editedSpec(edit: (document: ReturnType<typeof parseDocument>) => void): string {
  const document = parseDocument(readFileSync(bundledSpecPath(), 'utf8'));
  edit(document);
  const file = join(mkdtempSync(join(tmpdir(), 'eh-conformance-spec-')), 'openapi.yaml');
  writeFileSync(file, document.toString());
  return file;
}

async function run(spec: string | undefined) {
  const engine = createMockEngine();
  return runConformance({
    baseUrl: 'http://mock.test',
    ...(spec ? { spec } : {}),
    seed: 5,
    checks: ['negative_data_rejection', 'positive_data_acceptance'],
    fetch: (request) => engine.handle(request),
  });
}

it('checks a limit the spec states, and follows the spec when the limit changes', async () => {
  const original = await run(undefined);
  expect(original.checks.map((check) => check.status)).toEqual(['passed', 'passed']);

  const spec = editedSpec((document) =>
    document.setIn(['components', 'schemas', 'EvaluationRequest', 'properties', 'operationId', 'maxLength'], 100),
  );
  const edited = await run(spec);
  const negative = edited.checks.find((check) => check.name === 'negative_data_rejection')!;
  expect(negative.status).toBe('failed');
  expect(negative.failures.map((failure) => failure.input)).toContain('invalid input: body /operationId: 101 characters (maxLength 100)');
  expect(negative.failures[0]!.received).toMatch(/^202 /);
});

it('rejects a document that is not valid OpenAPI 3.1', async () => {
  const spec = editedSpec((document) => document.delete('info'));
  await expect(run(spec)).rejects.toThrow(/InvalidSpec|info/);
});

it('says once that the spec lacks an operation the stateful checks need, and which checks did not run', async () => {
  const spec = editedSpec((document) => document.deleteIn(['paths', '/v0/jobs/{jobId}']));
  const engine = createMockEngine();
  const report = await runConformance({
    baseUrl: 'http://mock.test',
    spec,
    seed: 5,
    secondCallerHeaders: { Authorization: 'Bearer bob' },
    fetch: (request) => engine.handle(request),
  });
  const missing = report.notes.filter((note) => note.includes("no operation 'getJob'"));
  expect(missing).toEqual(["the spec has no operation 'getJob'; its stateful checks do not run"]);
  expect(report.verdict).toBe('incomplete');
  const created = report.checks.find((check) => check.name === 'created_job_readable')!;
  expect(created.status).toBe('skipped');
  expect(created.note).toContain("no operation 'getJob'");
});
