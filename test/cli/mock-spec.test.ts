/**
 * `evidence-harness mock --spec FILE` as a client team runs it to try a proposed version: the
 * built mock serves the document's version (a new field, a tighter limit), says at start what it
 * serves differently, and `conformance --spec FILE` against it exits 0. A document it cannot
 * serve is a usage error naming why.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { executablePath } from '../../src/openapi/package-root.js';
import { runCli } from '../conformance/cli-process.js';
import { contractVersions, writeVersion } from '../fixtures/contract-versions/versions.js';
import { evaluationRequest, jsonPost } from '../support/fixtures.js';
import { testTimeout } from '../support/time-limits.js';

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function startMock(args: string[]): Promise<{ url: string; output: () => string }> {
  const child = spawn(process.execPath, [executablePath(), 'mock', '--port', '0', '--quiet', ...args], { stdio: 'pipe' });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match && output.includes('press Ctrl+C')) resolve({ url: match[1]!, output: () => output });
    });
    child.on('exit', (code) => reject(new Error(`mock exited with ${code} before listening: ${output}`)));
  });
}

it(
  'serves a proposed version and passes the runner given the same document',
  async () => {
    const file = writeVersion(contractVersions.find((version) => version.name === 'v02-proposal')!);
    const mock = await startMock(['--spec', file]);
    expect(mock.output()).toContain(`contract: ${file} (version 0.2.0-draft)`);
    const create = (body: unknown, key: string) => fetch(`${mock.url}/v0/evaluations`, jsonPost(body, { 'idempotency-key': key }));
    expect((await create({ ...evaluationRequest(), priority: 'low' }, 'spec-1')).status).toBe(202);
    expect((await create({ ...evaluationRequest(), operationId: 'o'.repeat(65) }, 'spec-2')).status).toBe(413);
    const run = await runCli([
      'conformance',
      '--base-url',
      mock.url,
      '--spec',
      file,
      '--seed',
      '3',
      '--replay-wait',
      '0',
      '--header',
      'Authorization: Bearer team-a',
      '--second-caller-header',
      'Authorization: Bearer team-b',
    ]);
    expect(run.code, run.stdout.slice(-2000) + run.stderr.slice(-1000)).toBe(0);
  },
  testTimeout({ processes: 4 }),
);

it('lists the operations it serves from examples at start', async () => {
  const file = writeVersion(contractVersions.find((version) => version.name === 'new-operation')!);
  const mock = await startMock(['--spec', file]);
  expect(mock.output()).toContain('served from examples: cancelJob');
});

it('refuses a document it cannot serve, naming where, with exit 2', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'eh-mock-spec-'));
  const unsupported = join(folder, 'openapi.yaml');
  writeFileSync(
    unsupported,
    [
      'openapi: 3.1.0',
      'info: { title: t, version: "1" }',
      'paths:',
      '  /health:',
      '    get:',
      '      operationId: health',
      '      responses: { "200": { description: ok } }',
      '  /v0/evaluations:',
      '    post:',
      '      operationId: createEvaluation',
      '      requestBody:',
      '        content:',
      '          application/json:',
      '            schema: { type: object, unevaluatedProperties: false }',
      '      responses: { "202": { description: ok } }',
    ].join('\n'),
  );
  const run = await runCli(['mock', '--spec', unsupported, '--port', '0']);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(
    '--spec: createEvaluation/requestBody/unevaluatedProperties: the keyword unevaluatedProperties is not supported by the mock',
  );
  const missing = await runCli(['mock', '--spec', join(folder, 'nope.yaml'), '--port', '0']);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain('--spec: file not found');
});
