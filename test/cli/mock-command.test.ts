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
  // Log lines are written in batches, a few milliseconds after their request.
  await expect.poll(() => mock.output()).toMatch(/POST \/v0\/evaluations 202 [\d.]+ms scenario=default/);
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
  expect(result.stderr).toMatch(/faults\.0\.status \(line 1, column \d+\): /);
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

it('refuses sizes and counts it cannot read with exit 2, naming the option and the forms it takes', async () => {
  for (const [option, value] of [
    ['--max-job-bytes', '12XB'],
    ['--max-key-bytes', '1.5MiB'],
    ['--max-journal-bytes', ''],
    ['--max-scenario-bytes', '0'],
    ['--max-job-bytes', '100'],
    ['--max-journal-bytes', '2048GiB'],
  ]) {
    const result = await runCli(['mock', '--port', '0', option!, value!]);
    expect(result.code, `${option} ${value}`).toBe(2);
    expect(result.stderr).toContain(
      `${option} must be a size from 1KiB to 1024GiB, such as 1048576, 512KiB, 64MiB or 1GiB, got '${value}'.`,
    );
  }
  const jobs = await runCli(['mock', '--max-jobs', '0']);
  expect(jobs.code).toBe(2);
  expect(jobs.stderr).toContain("--max-jobs must be an integer from 1 to 100000000, got '0'.");
});

it('keeps at most --max-jobs jobs and --max-job-bytes of them, evicting the oldest', async () => {
  const create = async (url: string, key: string) =>
    (await (await fetch(`${url}/v0/evaluations`, jsonPost(evaluationRequest(), { 'idempotency-key': key }))).json()).jobId as string;
  const counted = await startMock(['--quiet', '--max-jobs', '2']);
  const ids = [await create(counted.url, 'n-1'), await create(counted.url, 'n-2'), await create(counted.url, 'n-3')];
  const statuses = await Promise.all(ids.map(async (id) => (await fetch(`${counted.url}/v0/jobs/${id}`)).status));
  expect(statuses).toEqual([404, 200, 200]);
  const sized = await startMock(['--quiet', '--max-job-bytes', '4KiB']);
  const many: string[] = [];
  for (let index = 0; index < 40; index += 1) many.push(await create(sized.url, `b-${index}`));
  expect((await fetch(`${sized.url}/v0/jobs/${many[0]}`)).status).toBe(404);
  expect((await fetch(`${sized.url}/v0/jobs/${many.at(-1)}`)).status).toBe(200);
});

it('keeps the journal within --max-journal-bytes', async () => {
  const mock = await startMock(['--quiet', '--max-journal-bytes', '2KiB']);
  for (let index = 0; index < 60; index += 1) await (await fetch(`${mock.url}/v0/jobs/job_${index}`)).arrayBuffer();
  const journal = await (await fetch(`${mock.url}/__mock/journal`)).json();
  expect(journal.entries.length).toBeGreaterThan(0);
  expect(journal.entries.length).toBeLessThan(60);
  expect(journal.entries.at(-1).path).toBe('/v0/jobs/job_59');
});

it('lets exactly the origins given with --control-origin drive the control API from a browser', async () => {
  const mock = await startMock(['--quiet', '--control-origin', 'http://localhost:5173', '--control-origin', 'https://app.test']);
  for (const origin of ['http://localhost:5173', 'https://app.test']) {
    const allowed = await fetch(`${mock.url}/__mock/scenarios`, { headers: { origin } });
    expect([allowed.status, allowed.headers.get('access-control-allow-origin')]).toEqual([200, origin]);
  }
  const other = await fetch(`${mock.url}/__mock/scenarios`, { headers: { origin: 'http://localhost:5174' } });
  expect([other.status, other.headers.get('access-control-allow-origin')]).toEqual([403, null]);
  expect((await other.json()).code).toBe('control_origin_refused');
  const bad = await runCli(['mock', '--control-origin', '*']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain(
    "--control-origin: a control origin must be a scheme, host and optional port such as 'http://localhost:5173', got '*'.",
  );
});
