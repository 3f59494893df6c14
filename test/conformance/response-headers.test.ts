/**
 * response_headers_conformance: a document that promises a header on an answer is held to it.
 * The engine built from a document sends no header the document adds, so it is the server that
 * leaves a required one out; the same engine with the header added is the one that keeps it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/run.js';
import { createMockEngine, VirtualClock } from '../../src/engine/index.js';
import { loadBundledDocument } from '../../src/openapi/bundled-document.js';
import { bundledSpecPath } from '../../src/openapi/package-root.js';

let specFile: string;
beforeAll(async () => {
  const document = structuredClone((await loadBundledDocument({ source: bundledSpecPath() })).document) as Record<string, any>;
  document.paths['/v0/evaluations'].post.responses['202'].headers = {
    'X-Request-Id': { required: true, schema: { type: 'string', pattern: '^req_[0-9]+$' } },
    'X-Queue-Depth': { schema: { type: 'integer', minimum: 0 } },
  };
  specFile = join(mkdtempSync(join(tmpdir(), 'eh-response-headers-')), 'openapi.json');
  writeFileSync(specFile, JSON.stringify(document));
});

/** A run of createEvaluation against the bundled engine whose 202s get `headers` added. */
async function run(headers: Record<string, string>) {
  const engine = createMockEngine({ clock: new VirtualClock({ start: Date.UTC(2026, 10, 27) }) });
  const report = await runConformance({
    baseUrl: 'http://mock.test',
    spec: specFile,
    seed: 3,
    replayWaitMs: 0,
    checks: ['response_headers_conformance'],
    operations: { includeOperations: ['createEvaluation'] },
    fetch: async (request) => {
      const answer = await engine.handle(request);
      if (answer.status !== 202) return answer;
      const reshaped = new Headers(answer.headers);
      for (const [name, value] of Object.entries(headers)) reshaped.set(name, value);
      return new Response(await answer.text(), { status: answer.status, headers: reshaped });
    },
  });
  const check = report.checks.find((entry) => entry.name === 'response_headers_conformance');
  return { verdict: report.verdict, failures: check?.failures ?? [] };
}

it('fails a 202 without the header its document marks required, naming it', async () => {
  const { verdict, failures } = await run({});
  expect(verdict).toBe('failed');
  expect(failures[0]).toMatchObject({ operation: 'createEvaluation', title: '202 without its required x-request-id header' });
});

it('passes when the required header is sent and every documented header holds to its schema', async () => {
  expect(await run({ 'X-Request-Id': 'req_42', 'X-Queue-Depth': '3' })).toEqual({ verdict: 'passed', failures: [] });
});

it('reads a header as its schema types it, and fails a value that breaks the schema', async () => {
  const { failures } = await run({ 'X-Request-Id': 'req_42', 'X-Queue-Depth': 'many' });
  expect(failures[0]?.title).toBe('202 x-queue-depth header breaks its schema: type');
  expect(failures[0]?.received).toContain('x-queue-depth: many');
  const pattern = await run({ 'X-Request-Id': 'request-42' });
  expect(pattern.failures[0]?.title).toBe('202 x-request-id header breaks its schema: pattern');
});
