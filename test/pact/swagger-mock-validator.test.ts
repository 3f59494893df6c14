/**
 * Bi-directional contract testing: PactFlow's swagger-mock-validator compares a pact the mock
 * wrote with spec/openapi.yaml (what PactFlow does when a consumer publishes it) and accepts
 * it; a pact that breaks the contract (a create answered 200) is refused.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PactV4 } from '../../src/engine/index.js';
import { packageRoot } from '../../src/openapi/package-root.js';
import { startMockServer } from '../../src/server/index.js';
import { runClientFlow } from './client-flow.js';

const run = promisify(execFile);
const root = packageRoot();
const validatorBin = join(root, 'node_modules/@pactflow/swagger-mock-validator/bin/swagger-mock-validator.mjs');

let folder: string;
let pact: PactV4;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'eh-smv-'));
  const server = await startMockServer({ port: 0, host: '127.0.0.1' });
  try {
    await runClientFlow({ baseUrl: server.url });
    // An invalid create too: its 400 is part of what the consumer relies on.
    await (
      await fetch(`${server.url}/v0/evaluations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'bad-1' },
        body: '{}',
      })
    ).text();
    pact = server.engine.control.pact();
  } finally {
    await server.close({ graceMs: 100 });
  }
});
afterAll(() => rm(folder, { recursive: true, force: true }));

async function validate(document: unknown): Promise<{ code: number; output: string }> {
  const file = join(folder, `pact-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify(document));
  try {
    const { stdout, stderr } = await run(process.execPath, [validatorBin, join(root, 'spec/openapi.yaml'), file], { timeout: 60_000 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

it('accepts the pact the mock wrote against spec/openapi.yaml', async () => {
  const result = await validate(pact);
  expect(result.code, result.output).toBe(0);
  expect(result.output).toMatch(/\b0 error\(s\)\s+0 warning\(s\)/);
});

it('refuses a pact whose create is answered 200', async () => {
  const broken = structuredClone(pact) as unknown as {
    interactions: { request: { method: string; path: string }; response: { status: number } }[];
  };
  const create = broken.interactions.find((interaction) => interaction.request.method === 'POST' && interaction.response.status === 202)!;
  create.response.status = 200;
  const result = await validate(broken);
  expect(result.code).not.toBe(0);
  // 200 falls under the create's default (an Error): the Job body is what breaks it.
  expect(result.output).toMatch(/response\.body\.incompatible/);
});
