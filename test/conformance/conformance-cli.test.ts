/**
 * `evidence-harness conformance` as a person or a CI job uses it: --help lists every check,
 * exit 0/1/2/3, progress on stderr, a summary on stdout, report files, durations with units, and
 * no credentials in any output.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { durationOption } from '../../src/cli/command.js';
import { checks } from '../../src/conformance/checks/registry.js';
import { type RunningMockServer, startMockServer } from '../../src/server/mock-server.js';
import { type RunningFaultServer, startFaultServer } from '../fixtures/fault-zoo/fault-server.js';
import { faults } from '../fixtures/fault-zoo/faults.js';
import { runMain } from '../support/run-main.js';
import { runnerTimeoutMs } from '../support/time-limits.js';
import { freePort } from './prism-support.js';

const run = runMain;

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
    // An advisory check cites its decision in docs/assumptions.md, but max_response_time, whose limit is the user's own.
    expect(line).toContain(check.severity === 'required' ? 'required' : check.assumption ? `advisory ${check.assumption}` : 'advisory');
    if (check.severity === 'advisory' && !check.assumption) expect(check.name).toBe('max_response_time');
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
  expect(result.stdout).toMatch(/^check +kind +result +judged +failed\n/);
  expect(result.stdout).toMatch(/\nidempotency_conflict +required +pass /);
  expect(result.stdout).toMatch(
    /seed 7, run id [\w-]+ \(rerun with --seed 7; add --run-id [\w-]+ for the same Idempotency-Keys, on a fresh server\) · PASSED \(exit 0\)\n$/,
  );
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
  // max_response_time runs only with --max-response-time, workflow_success_criteria only with --workflows.
  expect(json.checks.map((check: { name: string }) => check.name)).toEqual(
    checks.map((check) => check.name).filter((name) => name !== 'max_response_time' && name !== 'workflow_success_criteria'),
  );
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
  const result = await run('conformance', '--base-url', `http://127.0.0.1:${port}`, '--quiet', '--timeout', String(runnerTimeoutMs));
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

it('calls a run cut short by --max-requests incomplete (exit 3), never passed, and says which required checks did not run', async () => {
  const result = await run('conformance', '--base-url', mock.url, '--seed', '7', '--quiet', '--max-requests', '3');
  expect(result.code, result.stdout).toBe(3);
  expect(result.stdout).toMatch(/\nIncomplete: the verdict cannot be PASSED because\n {2}- [a-z_]+ \(required\) /);
  expect(result.stdout).toMatch(
    /\n {2}- negative_data_rejection \(required\) did not run: \d+ requests not sent: --max-requests 3 was reached\n/,
  );
  // Checks that judged the few answers sent, and failed none, ran only in part: not passed either.
  expect(result.stdout).toMatch(
    /\n {2}- status_code_documented \(required\) ran only in part: judged 3 exchanges, none failing; \d+ requests not sent: --max-requests 3 was reached\n/,
  );
  expect(result.stdout).toMatch(/\nstatus_code_documented +required +skip +3 +\(ran only in part: judged 3 exchanges/);
  expect(result.stdout).toMatch(/· INCOMPLETE \(exit 3\)\n$/);
});

it('reads --timeout, --job-timeout and --time-budget as durations (30s, 30000ms, 10m)', () => {
  expect(durationOption({ value: '30s', name: 'job-timeout', bareUnit: 's', minMs: 0, maxMs: 86_400_000 })).toBe(30_000);
  expect(durationOption({ value: '30000ms', name: 'job-timeout', bareUnit: 's', minMs: 0, maxMs: 86_400_000 })).toBe(30_000);
  expect(durationOption({ value: '30', name: 'job-timeout', bareUnit: 's', minMs: 0, maxMs: 86_400_000 })).toBe(30_000);
  expect(durationOption({ value: '5000', name: 'timeout', bareUnit: 'ms', minMs: 1, maxMs: 600_000 })).toBe(5000);
  expect(durationOption({ value: '10m', name: 'time-budget', minMs: 1000, maxMs: 86_400_000 })).toBe(600_000);
  expect(() => durationOption({ value: '600', name: 'time-budget', minMs: 1000, maxMs: 86_400_000 })).toThrow(
    /--time-budget must be a duration such as 500ms, 30s or 10m, got '600'/,
  );
});

it.each([
  [
    ['conformance', '--base-url', 'http://127.0.0.1:9', '--job-timeout', 'soon'],
    /--job-timeout must be a duration such as 500ms, 30s or 10m \(a bare number is in s\)/,
  ],
  [['conformance', '--base-url', 'http://127.0.0.1:9', '--time-budget', '0s'], /--time-budget must be from 1s to 1440m, got '0s'/],
  [
    ['conformance', '--base-url', 'http://127.0.0.1:9', '--max-response-bytes', '10'],
    /--max-response-bytes must be a size from 1KiB to 1GiB/,
  ],
])('exits 2 for a bad duration or limit: %j', async (argv, message) => {
  const result = await run(...argv);
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(message);
});

it('never echoes a credential in a usage error: a header line without a colon, a base URL that does not parse', async () => {
  const badHeader = await run('conformance', '--base-url', 'http://127.0.0.1:9', '--header', 'Authorization Bearer s3cret-value');
  expect(badHeader.code).toBe(2);
  expect(badHeader.stderr).toMatch(/a --header value is not a header line/);
  const badUrl = await run('conformance', '--base-url', 'http://admin:hunter2-pw@[not-a-host');
  expect(badUrl.code).toBe(2);
  expect(badUrl.stderr).toMatch(/--base-url is not a URL/);
  expect(badHeader.stderr + badUrl.stderr).not.toMatch(/s3cret-value|hunter2-pw/);
});

it('refuses userinfo in --base-url together with an Authorization header', async () => {
  const result = await run('conformance', '--base-url', 'http://admin:pw-1234@127.0.0.1:9', '--header', 'Authorization: Bearer x');
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/--base-url has a user name and password, and --header gives an Authorization header too/);
  expect(result.stderr).not.toContain('pw-1234');
});

it('refuses, before any request, a report it could not write, a header value HTTP cannot carry, and a selection of no check (exit 2)', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'eh-conformance-paths-'));
  const inTheWay = join(folder, 'a-file');
  writeFileSync(inTheWay, 'not a folder');
  const before = (await (await fetch(`${mock.url}/__mock/journal?limit=1000`)).json()).entries.length;
  const refusals = [
    { argv: ['--report', `json=${join(inTheWay, 'report.json')}`], says: /--report json=.*cannot write there \(a file is in the way/ },
    { argv: ['--report', 'json=/proc/nope/report.json'], says: /--report json=\/proc\/nope\/report\.json: cannot write there/ },
    { argv: ['--header', 'Authorization: Bearer t€st'], says: /--header 'Authorization' has a character a header value cannot hold/ },
    { argv: ['--checks', 'error_body', '--exclude-checks', 'error_body'], says: /leave no check to run/ },
  ];
  for (const { argv, says } of refusals) {
    const result = await run('conformance', '--base-url', mock.url, ...argv);
    expect(result.code, `${argv.join(' ')}: ${result.stderr}`).toBe(2);
    expect(result.stderr).toMatch(says);
    expect(result.stderr).not.toContain('t€st');
  }
  // Nothing was sent to the server.
  expect((await (await fetch(`${mock.url}/__mock/journal?limit=1000`)).json()).entries.length).toBe(before);
});

it('keeps a JUnit report well-formed XML and check names whole when the credential is a common word (Bearer test)', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'eh-conformance-short-'));
  const junit = join(folder, 'junit.xml');
  const result = await run(
    'conformance',
    '--base-url',
    mock.url,
    '--seed',
    '3',
    '--checks',
    'status_code_documented,error_body',
    '--header',
    'Authorization: Bearer test',
    '--report',
    `junit=${junit}`,
    '--max-response-bytes',
    '8MiB',
  );
  expect(result.code).toBe(0);
  const xml = readFileSync(junit, 'utf8');
  expect(xml).toMatch(/^<\?xml[^>]*>\s*<testsuites /);
  expect(xml).not.toContain('Bearer test');
  expect(result.stdout).toContain('status_code_documented');
  expect(result.stderr).toMatch(/4 character\(s\) is too short to be scrubbed/);
});
