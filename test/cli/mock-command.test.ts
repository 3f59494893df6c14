/**
 * `evidence-harness mock` as a person runs it: the built executable starts, prints where it
 * listens, answers /health, serves a job from QUEUED to COMPLETE as a client polls, logs each
 * request, and stops cleanly on SIGTERM and SIGINT. Usage errors exit 2 with a clear message.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { executablePath } from '../../src/openapi/package-root.js';
import { evaluationRequest, jsonPost } from '../support/fixtures.js';

const bin = executablePath();
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

interface Started {
  child: ChildProcessWithoutNullStreams;
  url: string;
  output: () => string;
  exit: Promise<number | null>;
}

/** Starts the CLI and resolves once it prints its listening line. */
function startMock(args: string[]): Promise<Started> {
  const child = spawn(process.execPath, [bin, 'mock', '--port', '0', ...args], { stdio: 'pipe' });
  children.push(child);
  let stdout = '';
  let stderr = '';
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match) resolve({ child, url: match[1]!, output: () => stdout, exit });
    });
    void exit.then((code) => reject(new Error(`mock exited with ${code} before listening: ${stdout}${stderr}`)));
  });
}

/** Runs the CLI to completion. */
function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [bin, ...args], { stdio: 'pipe' });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

it('starts, answers /health, moves a job from QUEUED to COMPLETE as it is polled, and stops on SIGTERM', async () => {
  const mock = await startMock([]);
  expect(mock.output()).toContain('scenario: default');
  const health = await fetch(`${mock.url}/health`);
  expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
  const created = await fetch(`${mock.url}/v0/evaluations`, jsonPost(evaluationRequest(), { 'idempotency-key': 'cli-1' }));
  const job = await created.json();
  expect([created.status, job.status]).toEqual([202, 'QUEUED']);
  const seen: string[] = [];
  for (let poll = 0; poll < 10 && seen.at(-1) !== 'COMPLETE'; poll += 1) {
    const read = await (await fetch(`${mock.url}/v0/jobs/${job.jobId}`)).json();
    seen.push(read.status);
    if (read.status === 'COMPLETE') expect(read.evaluation).toBe('PASS');
  }
  expect(seen.at(-1)).toBe('COMPLETE');
  expect(seen[0]).toBe('RUNNING');
  expect(mock.output()).toMatch(/POST \/v0\/evaluations 202 [\d.]+ms scenario=default/);
  mock.child.kill('SIGTERM');
  expect(await mock.exit).toBe(0);
  expect(mock.output()).toContain('SIGTERM: stopping');
});

it('runs a scenario file and logs nothing per request with --quiet; stops on SIGINT', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'eh-scenario-'));
  const file = join(folder, 'quick-fail.yaml');
  writeFileSync(
    file,
    'name: quick-fail\ndescription: every job fails at its first read\njob:\n  timeline:\n    - { status: FAILED, at: { reads: 1 } }\n',
  );
  const mock = await startMock(['--scenario', file, '--quiet', '--seed', '7']);
  expect(mock.output()).toContain('scenario: quick-fail, seed: 7');
  const created = await fetch(`${mock.url}/v0/evaluations`, jsonPost(evaluationRequest(), { 'idempotency-key': 'cli-2' }));
  const { jobId } = await created.json();
  expect((await (await fetch(`${mock.url}/v0/jobs/${jobId}`)).json()).status).toBe('FAILED');
  expect(mock.output()).not.toMatch(/GET \/v0\/jobs/);
  mock.child.kill('SIGINT');
  expect(await mock.exit).toBe(0);
});

it('refuses an invalid scenario file with exit 2, naming the file and the path inside it', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'eh-scenario-'));
  const file = join(folder, 'broken.json');
  writeFileSync(file, JSON.stringify({ name: 'broken', faults: [{ status: 418 }] }));
  const result = await runCli(['mock', '--port', '0', '--scenario', file]);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(`${file}: invalid scenario:`);
  expect(result.stderr).toMatch(/faults\.0\.status: /);
});

it('refuses an unknown scenario name, a bad port, an empty seed and a bad base path with exit 2', async () => {
  const unknown = await runCli(['mock', '--scenario', 'nope']);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toMatch(/unknown scenario 'nope'; known: .*slow-pass/);
  const port = await runCli(['mock', '--port', '70000']);
  expect(port.code).toBe(2);
  expect(port.stderr).toContain("--port must be an integer from 0 to 65535, got '70000'.");
  const seed = await runCli(['mock', '--seed', '']);
  expect(seed.code).toBe(2);
  expect(seed.stderr).toContain("--seed must be an integer from 0 to 4294967295, got ''.");
  const basePath = await runCli(['mock', '--base-path', '/a b']);
  expect(basePath.code).toBe(2);
  expect(basePath.stderr).toContain("--base-path must be a path such as '/api', got '/a b'.");
});

it('serves under a base path given without its leading slash, and prints where', async () => {
  const mock = await startMock(['--base-path', 'api/', '--quiet']);
  expect(mock.output()).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+\/api \(/);
  expect(mock.output()).toMatch(/try: curl -s http:\/\/127\.0\.0\.1:\d+\/api\/health\n/);
  expect((await fetch(`${mock.url}/api/health`)).status).toBe(200);
  expect((await fetch(`${mock.url}/health`)).status).toBe(404);
});

it('says so and exits 1 when the port is taken', async () => {
  const first = await startMock(['--quiet']);
  const port = new URL(first.url).port;
  const second = await runCli(['mock', '--port', port]);
  expect(second.code).toBe(1);
  expect(second.stderr).toContain(`port ${port} is already in use`);
});

it('mints a test artifact with `artifact` that the mock verifies as VALID / PASS', async () => {
  const minted = await runCli(['artifact', '--outcome', 'valid-pass']);
  expect(minted.code).toBe(0);
  const mock = await startMock(['--quiet']);
  const verified = await fetch(
    `${mock.url}/v0/verifications`,
    jsonPost({ artifact: minted.stdout.trim(), expectedOperationId: 'op-2026-0001', expectedIssuer: 'https://issuer.example' }),
  );
  expect(verified.status).toBe(200);
  expect(await verified.json()).toMatchObject({ integrity: 'VALID', evaluation: 'PASS' });
});

it('mints every outcome with `artifact --json`, each with a ready request and its expected result', async () => {
  const result = await runCli(['artifact', '--json', '--operation-id', 'op-9']);
  const document = JSON.parse(result.stdout);
  expect(Object.keys(document)).toEqual([
    'valid-pass',
    'valid-fail',
    'valid-indeterminate',
    'wrong-operation',
    'invalid-signature',
    'invalid-claims',
    'undecodable',
    'unknown-issuer',
  ]);
  expect(document['invalid-signature'].expected).toEqual({ integrity: 'INVALID', evaluation: 'FAIL' });
  expect(document['valid-fail'].request).toEqual({
    artifact: document['valid-fail'].artifact,
    expectedOperationId: 'op-9',
    expectedIssuer: 'https://issuer.example',
  });
  const bad = await runCli(['artifact', '--outcome', 'valid']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toMatch(/unknown --outcome 'valid'; use one of valid-pass, /);
});
