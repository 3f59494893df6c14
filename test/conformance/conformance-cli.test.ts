/**
 * `evidence-harness conformance` as a person or a CI job uses it: --help lists every check,
 * exit 0/1/2, progress on stderr, a summary on stdout, report files, and no credentials in any
 * output.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { checks } from '../../src/conformance/checks/registry.js';
import { type RunningMockServer, startMockServer } from '../../src/server/mock-server.js';
import { type RunningFaultServer, startFaultServer } from '../fixtures/fault-zoo/fault-server.js';
import { faults } from '../fixtures/fault-zoo/faults.js';
import { freePort } from './prism-support.js';

async function run(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

let mock: RunningMockServer;
let faulty: RunningFaultServer;
beforeAll(async () => {
  mock = await startMockServer({ port: 0 });
  faulty = await startFaultServer(faults.find((fault) => fault.name === 'no-409-on-conflict')!.create());
});
afterAll(async () => {
  await mock.close();
  await faulty.close();
});

it('lists every check in --help with its one-line description and whether it is required', async () => {
  const { code, stdout } = await run('conformance', '--help');
  expect(code).toBe(0);
  expect(stdout).toMatch(/^Usage: evidence-harness conformance --base-url URL/);
  for (const check of checks) {
    const line = stdout.split('\n').find((candidate) => candidate.trimStart().startsWith(`${check.name} `));
    expect(line, check.name).toBeDefined();
    expect(line).toContain(check.description);
    expect(line).toContain(check.severity === 'required' ? 'required' : `advisory ${check.assumption}`);
  }
});

it('passes the mock: exit 0, progress on stderr, the summary table on stdout, and the reports written', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'eh-conformance-cli-'));
  const files = { junit: join(folder, 'junit.xml'), json: join(folder, 'report.json'), html: join(folder, 'report.html') };
  const result = await run(
    'conformance',
    '--base-url',
    mock.url,
    '--seed',
    '7',
    '--max-requests',
    '120',
    '--header',
    'Authorization: Bearer alice-secret',
    '--second-caller-header',
    'Authorization: Bearer bob-secret',
    '--report',
    `junit=${files.junit}`,
    '--report',
    `json=${files.json}`,
    '--report',
    `html=${files.html}`,
  );
  expect(result.code, result.stdout + result.stderr).toBe(0);
  expect(result.stderr).toMatch(/^evidence-harness: conformance: checking http:\/\/127\.0\.0\.1:\d+ against .*openapi\.yaml \(seed 7/);
  expect(result.stderr).toMatch(/evidence-harness: conformance: job lifecycle: \d+ requests/);
  expect(result.stdout).toMatch(/^check +kind +result +judged +failures\n/);
  expect(result.stdout).toMatch(/\nidempotency_conflict +required +pass /);
  expect(result.stdout).toMatch(/seed 7 \(rerun with --seed 7\) · PASSED \(exit 0\)\n$/);
  for (const file of Object.values(files)) expect(existsSync(file), file).toBe(true);
  const everything =
    result.stdout +
    result.stderr +
    Object.values(files)
      .map((file) => readFileSync(file, 'utf8'))
      .join('');
  expect(everything).not.toMatch(/alice-secret|bob-secret/);
  const json = JSON.parse(readFileSync(files.json, 'utf8'));
  expect(json.seed).toBe(7);
  expect(json.checks.map((check: { name: string }) => check.name)).toEqual(checks.map((check) => check.name));
  expect(json.settings.headers).toEqual(['Authorization']);
});

it('fails a server with no 409: exit 1, the failure with expected, received and a redacted curl', async () => {
  const result = await run(
    'conformance',
    '--base-url',
    faulty.url,
    '--seed',
    '7',
    '--quiet',
    '--header',
    'Authorization: Bearer alice-secret',
    '--checks',
    'idempotency_conflict',
  );
  expect(result.code).toBe(1);
  expect(result.stderr).toBe('');
  expect(result.stdout).toMatch(/1\. \[required\] idempotency_conflict · createEvaluation · key reused with another body answered 202/);
  expect(result.stdout).toMatch(/ {3}expected: 409\n {3}received: 202 \{"jobId":/);
  expect(result.stdout).toMatch(
    / {3}reproduce: curl -i -X POST 'http:\/\/127\.0\.0\.1:\d+\/v0\/evaluations' -H "Authorization: \$EH_AUTH"/,
  );
  expect(result.stdout).not.toContain('alice-secret');
  expect(result.stdout).toMatch(
    /The curl commands read credentials from the environment: EH_AUTH \(the value of Authorization \(--header\)\)\./,
  );
  expect(result.stdout).toMatch(/FAILED \(exit 1\)\n$/);
});

it('fails only on required checks unless --strict', async () => {
  const fault = await startFaultServer(faults.find((candidate) => candidate.name === 'error-code-not-listed')!.create());
  try {
    const args = [
      'conformance',
      '--base-url',
      fault.url,
      '--seed',
      '7',
      '--quiet',
      '--checks',
      'error_code_documented,unknown_job_not_found',
    ];
    expect((await run(...args)).code).toBe(0);
    expect((await run(...args, '--strict')).code).toBe(1);
  } finally {
    await fault.close();
  }
});

it('exits 2 for an unreachable target, naming it', async () => {
  const port = await freePort();
  const result = await run('conformance', '--base-url', `http://127.0.0.1:${port}`, '--quiet', '--timeout', '2000');
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(
    new RegExp(
      `^evidence-harness: conformance: http://127\\.0\\.0\\.1:${port} is unreachable: the connection was refused: nothing listens at 127\\.0\\.0\\.1:${port}\\.`,
    ),
  );
});

it('exits 2 for an invalid spec', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'eh-conformance-cli-')), 'broken.yaml');
  writeFileSync(file, 'openapi: 3.1.0\ninfo:\n  title: x\npaths: {}\n');
  const result = await run('conformance', '--base-url', mock.url, '--spec', file, '--quiet');
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/^evidence-harness: invalid OpenAPI document: .*broken\.yaml/);
});

it.each([
  [['conformance'], /--base-url is required\./],
  [['conformance', '--base-url', 'ftp://x'], /--base-url must be http or https/],
  [
    ['conformance', '--base-url', 'http://127.0.0.1:9', '--checks', 'no_such_check'],
    /no check named 'no_such_check'; the checks are: status_code_documented, /,
  ],
  [['conformance', '--base-url', 'http://127.0.0.1:9', '--header', 'no colon'], /a --header value is not a header line/],
  [['conformance', '--base-url', 'http://127.0.0.1:9', '--report', 'pdf=x.pdf'], /--report 'pdf=x\.pdf' is not FORMAT=FILE/],
  [['conformance', '--base-url', 'http://127.0.0.1:9', '--seed', 'abc'], /--seed must be an integer/],
  [['conformance', '--base-url', 'http://127.0.0.1:9', '--seed', ''], /--seed must be an integer from 0 to 2147483647, got ''\./],
])('exits 2 for a bad command line: %j', async (argv, message) => {
  const result = await run(...argv);
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).toMatch(/See 'evidence-harness conformance --help'\.\n$/);
});
