/**
 * Issue 32's attacks on `--workflows`: a file nested 100,000 deep (once a SIGABRT of the whole
 * CLI, "RegExpCompiler Allocation failed"), `--input __proto__=…` (once accepted where every
 * other undeclared name exits 2), and a small file that builds a huge request from an input it
 * names many times (once a 160 MB body and 880 MB of memory).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/run.js';
import { parseWorkflowDocument, WorkflowDocumentError } from '../../src/conformance/workflows/index.js';
import { type RunningMockServer, startMockServer } from '../../src/server/mock-server.js';
import { runCli } from '../conformance/cli-process.js';
import { runMain } from '../support/run-main.js';

let mock: RunningMockServer;
let folder: string;
beforeAll(async () => {
  mock = await startMockServer({ port: 0 });
  folder = mkdtempSync(join(tmpdir(), 'eh-workflow-attacks-'));
});
afterAll(async () => {
  await mock.close();
});

const header = `arazzo: 1.0.1
info: { title: test, version: '1' }
sourceDescriptions: [{ name: evidence, url: ./openapi.yaml, type: openapi }]
`;

it.each([
  ['100,000 [', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, /nests more than 256 '\[' or '\{' deep/],
  ['a thousand - on one line', `${'- '.repeat(1000)}x\n`, /opens more than 32 nested block collections/],
  ['40,000 nested JSON objects', `${'{"a":'.repeat(40_000)}1${'}'.repeat(40_000)}`, /nests more than 256/],
])('refuses a workflow file of %s before a parser sees it', (_, text, message) => {
  expect(() => parseWorkflowDocument(text, 'deep.arazzo.yaml')).toThrow(WorkflowDocumentError);
  expect(() => parseWorkflowDocument(text, 'deep.arazzo.yaml')).toThrow(message);
});

it('the built CLI exits 2 with one line on a 200 kB workflow file nested 100,000 deep, no abort', async () => {
  const file = join(folder, 'deep.arazzo.yaml');
  writeFileSync(file, `${'['.repeat(100_000)}${']'.repeat(100_000)}`);
  const result = await runCli(['conformance', '--base-url', mock.url, '--workflows', file], { killAfterMs: 60_000 });
  expect([result.code, result.signal]).toEqual([2, null]);
  expect(result.stderr).toMatch(/deep\.arazzo\.yaml: line 1 nests more than 256/);
  expect(result.stderr).not.toMatch(/FATAL|RegExpCompiler|\n\s+at /);
});

it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
  'refuses --input %s=… like any undeclared name, with exit 2',
  async (name) => {
    const result = await runMain(
      'conformance',
      '--base-url',
      mock.url,
      '--workflows',
      'spec/workflows.arazzo.yaml',
      '--input',
      `${name}={"polluted":true}`,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`no workflow has an input '${name}'`);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  },
);

it('fails the step, naming it, when its request would be built from more than the budget, and sends nothing', async () => {
  const payload = `{ ${Array.from({ length: 400 }, (_, index) => `f${index}: $inputs.big`).join(', ')} }`;
  const document = parseWorkflowDocument(
    `${header}workflows:
  - workflowId: amplify
    inputs: { type: object, properties: { big: { type: string } } }
    steps:
      - stepId: create
        operationId: createEvaluation
        requestBody: { contentType: application/json, payload: ${payload} }
        successCriteria: [{ condition: $statusCode == 202 }]
`,
    'amplify.arazzo.yaml',
  );
  const posts = () => mock.engine.control.journal().filter((entry) => entry.method === 'POST').length;
  const before = posts();
  const report = await runConformance({
    baseUrl: mock.url,
    seed: 1,
    workflows: { file: document, inputs: { big: 'x'.repeat(400_000) } },
  });
  expect(report.exitCode).toBe(1);
  const failures = report.checks.flatMap((check) => check.failures);
  expect(failures.map((failure) => failure.title)).toContain('amplify › create: cannot be built');
  expect(JSON.stringify(failures)).toMatch(/larger than 16777216 bytes; it is not sent/);
  expect(posts()).toBe(before);
});

it('still sends a request that names an input many times within the budget', async () => {
  const document = parseWorkflowDocument(
    `${header}workflows:
  - workflowId: within
    inputs: { type: object, properties: { key: { type: string } } }
    steps:
      - stepId: ping
        operationId: health
        parameters: [{ name: X-Trace, in: header, value: "{$inputs.key}-{$inputs.key}-{$inputs.key}" }]
        successCriteria: [{ condition: $statusCode == 200 }]
`,
    'within.arazzo.yaml',
  );
  const report = await runConformance({ baseUrl: mock.url, seed: 1, workflows: { file: document, inputs: { key: 'abc' } } });
  expect(report.exitCode).toBe(0);
});

it('takes the request budget as an option (workflows.maxRequestBytes) and refuses a bad one', async () => {
  const document = parseWorkflowDocument(
    `${header}workflows:
  - workflowId: small
    inputs: { type: object, properties: { note: { type: string } } }
    steps:
      - stepId: ping
        operationId: health
        parameters: [{ name: X-Note, in: header, value: $inputs.note }]
        successCriteria: [{ condition: $statusCode == 200 }]
`,
    'small.arazzo.yaml',
  );
  const inputs = { note: 'n'.repeat(2000) };
  const refused = await runConformance({ baseUrl: mock.url, seed: 1, workflows: { file: document, inputs, maxRequestBytes: 1000 } });
  expect(JSON.stringify(refused.checks.flatMap((check) => check.failures))).toMatch(
    /small › ping: cannot be built.*larger than 1000 bytes/,
  );
  const sent = await runConformance({ baseUrl: mock.url, seed: 1, workflows: { file: document, inputs, maxRequestBytes: 4000 } });
  expect(sent.exitCode).toBe(0);
  await expect(runConformance({ baseUrl: mock.url, workflows: { file: document, maxRequestBytes: 0 } })).rejects.toThrow(
    /maxRequestBytes must be a positive integer/,
  );
});
