/**
 * The evidence-harness executable as a person uses it: help, version, the spec summary, and
 * clear exit-2 errors for a bad command line or an invalid document.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { commands } from '../../src/cli/main.js';
import { executablePath, packageRoot } from '../../src/openapi/package-root.js';
import { startMockServer } from '../../src/server/index.js';
import { runMain } from '../support/run-main.js';

const run = runMain;

const version = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')).version;

it('lists its commands with --help', async () => {
  const result = await run('--help');
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/^Usage: evidence-harness <command>/);
  expect(result.stdout).toMatch(/\n {2}spec +validate an OpenAPI document/);
});

it('prints its version with --version', async () => {
  expect(await run('--version')).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
});

it('shows a command’s help with <command> --help and help <command>', async () => {
  const a = await run('spec', '--help');
  const b = await run('help', 'spec');
  expect(a.stdout).toMatch(/^Usage: evidence-harness spec/);
  expect(b.stdout).toBe(a.stdout);
});

it('answers an unknown command with exit 2, the nearest command and the list of commands', async () => {
  const result = await run('mokc');
  expect(result.code).toBe(2);
  expect(result.stderr).toBe(
    "evidence-harness: unknown command 'mokc'. Did you mean 'mock'? Commands: mock, conformance, proxy, artifact, spec, profile, diff, mcp. See 'evidence-harness --help'.\n",
  );
  expect((await run('zzzzzz')).stderr).toBe(
    "evidence-harness: unknown command 'zzzzzz'. Commands: mock, conformance, proxy, artifact, spec, profile, diff, mcp. See 'evidence-harness --help'.\n",
  );
});

it('answers an unknown option with exit 2 and a pointer to the command’s help', async () => {
  const result = await run('spec', '--bogus');
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/^evidence-harness: spec: Unknown option '--bogus'\..*See 'evidence-harness spec --help'\.\n$/);
});

it('summarises the bundled contract: its four operations, their statuses and the schemas', async () => {
  const result = await run('spec');
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('Evidence Evaluation and Verification Service 0.1.0-draft (design-only, not implemented)');
  expect(result.stdout).toMatch(/POST \/v0\/evaluations +createEvaluation +202 400 409 413 default/);
  expect(result.stdout).toMatch(/GET {2}\/health +health +200\n/);
  expect(result.stdout).toMatch(/required header: Idempotency-Key \(1–128 chars\)/);
  expect(result.stdout).toMatch(/evidence +required +array of EvidenceReference, 1–64 items/);
});

it('prints the summary as JSON with --json', async () => {
  const result = await run('spec', '--json');
  const summary = JSON.parse(result.stdout);
  expect(summary.operations.map((operation: { operationId: string }) => operation.operationId)).toEqual([
    'health',
    'createEvaluation',
    'verifyReport',
    'getJob',
  ]);
});

it('rejects an invalid document with exit 2 and says where it is wrong', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'eh-spec-'));
  const file = join(folder, 'broken.yaml');
  writeFileSync(file, 'openapi: 3.1.0\ninfo:\n  title: x\npaths: {}\n');
  const result = await run('spec', '--spec', file);
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/^evidence-harness: spec: invalid OpenAPI document: .*broken\.yaml: .*version/);
});

it('runs as the installed executable (package.json "bin", bundled by npm run build): every command loads', async () => {
  const bin = executablePath();
  expect(existsSync(bin), 'run `npm run build` first (npm test does)').toBe(true);
  const exec = (...args: string[]) => promisify(execFile)(process.execPath, [bin, ...args]);
  expect((await exec('--version')).stdout).toBe(`${version}\n`);
  // Each command is a chunk of its own in the bundle, loaded on demand with its packages.
  for (const entry of commands) {
    expect((await exec(entry.name, '--help')).stdout).toMatch(new RegExp(`^Usage: evidence-harness ${entry.name}`));
  }
  expect((await exec('spec')).stdout).toMatch(/createEvaluation/);
  // The runner's packages (swagger-parser, ajv, fast-check) are left outside the bundle.
  const server = await startMockServer({ port: 0, host: '127.0.0.1' });
  try {
    // Two checks the mock passes in few requests (a run that leaves required checks out is incomplete, exit 3).
    const run = await exec('conformance', '--base-url', server.url, '--checks', 'status_code_documented,created_job_readable', '--quiet');
    expect(run.stdout).toMatch(/PASSED/);
  } finally {
    await server.close();
  }
});

it('lists each command with the name and summary the command itself states', async () => {
  for (const entry of commands) {
    const command = await entry.load();
    expect([command.name, command.summary]).toEqual([entry.name, entry.summary]);
  }
});

it('has an executable bin that runs by itself, as npx and a shell run it (a committed launcher, mode 755, so no rebuild can change it)', async () => {
  const { stdout } = await promisify(execFile)(executablePath(), ['--version']);
  expect(stdout.trim()).toContain(version);
});
