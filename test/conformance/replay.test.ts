/**
 * `conformance replay REPORT.json` and `--rerun-failed REPORT.json` (issue 12 point 4): a
 * failure recorded against a fault-zoo server still fails when replayed there, and no longer
 * fails once pointed at the clean mock; --rerun-failed runs only the checks that failed.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { replayableRequest } from '../../src/conformance/replay.js';
import type { ConformanceReport } from '../../src/conformance/report/report.js';
import { type RunningMockServer, startMockServer } from '../../src/server/mock-server.js';
import { type RunningFaultServer, startFaultServer } from '../fixtures/fault-zoo/fault-server.js';
import { faults } from '../fixtures/fault-zoo/faults.js';
import { runMain } from '../support/run-main.js';

const run = runMain;

const secret = [
  '--header',
  'Authorization: Bearer alice-replay-secret',
  '--second-caller-header',
  'Authorization: Bearer bob-replay-secret',
];
const folder = mkdtempSync(join(tmpdir(), 'eh-replay-'));
let rejectsJws: RunningFaultServer;
let noConflict: RunningFaultServer;
let fixed: RunningMockServer;
const recorded = join(folder, 'rejects-jws.json');
const conflicts = join(folder, 'no-409.json');

beforeAll(async () => {
  rejectsJws = await startFaultServer(faults.find((fault) => fault.name === 'verification-rejects-jws')!.create());
  noConflict = await startFaultServer(faults.find((fault) => fault.name === 'no-409-on-conflict')!.create());
  fixed = await startMockServer({ port: 0 });
  const first = await run('conformance', '--base-url', rejectsJws.url, '--seed', '9', '--quiet', ...secret, '--report', `json=${recorded}`);
  expect(first.code, first.stdout).toBe(1);
  const second = await run(
    'conformance',
    '--base-url',
    noConflict.url,
    '--seed',
    '9',
    '--quiet',
    ...secret,
    '--report',
    `json=${conflicts}`,
  );
  expect(second.code, second.stdout).toBe(1);
});
afterAll(async () => {
  await rejectsJws.close();
  await noConflict.close();
  await fixed.close();
});

function reportOf(file: string): ConformanceReport {
  return JSON.parse(readFileSync(file, 'utf8')) as ConformanceReport;
}

it("keeps each standalone failure's request in the JSON report, without the credentials", () => {
  const text = readFileSync(recorded, 'utf8');
  expect(text).not.toContain('alice-replay-secret');
  const failure = reportOf(recorded)
    .checks.flatMap((check) => check.failures)
    .find((one) => one.check === 'verification_result')!;
  expect(failure.replay).toMatchObject({ caller: 1, method: 'POST', path: '/v0/verifications', intent: { kind: 'verification-example' } });
  expect(Object.keys(failure.replay!.headers).map((name) => name.toLowerCase())).not.toContain('authorization');
});

it('replay says "still fails" against the same server (exit 1), with the new answer', async () => {
  const result = await run('conformance', 'replay', recorded, ...secret);
  expect(result.code, result.stdout + result.stderr).toBe(1);
  expect(result.stdout).toMatch(new RegExp(`^Replaying 1 failure\\(s\\) of .* against ${rejectsJws.url}:`));
  expect(result.stdout).toMatch(/1\. verification_result · verifyReport · .*\n {3}still fails: .*400/);
  expect(result.stdout).toContain('1 still fail(s), 0 no longer fail(s), 0 not judged');
  expect(result.stdout + result.stderr).not.toContain('alice-replay-secret');
});

it('replay --base-url at the fixed server says "no longer fails" (exit 0)', async () => {
  const result = await run('conformance', 'replay', recorded, '--failure', '1', '--base-url', fixed.url, ...secret);
  expect(result.code, result.stdout + result.stderr).toBe(0);
  expect(result.stdout).toMatch(/1\. verification_result · verifyReport · .*\n {3}no longer fails — 200 /);
});

it('replay names a failure that builds on an earlier job as not replayed, and exits 3 when nothing else still fails', async () => {
  const report = reportOf(conflicts);
  const failures = report.checks.flatMap((check) => check.failures);
  const index = failures.findIndex((failure) => failure.check === 'idempotency_conflict') + 1;
  expect(index).toBeGreaterThan(0);
  expect(failures[index - 1]!.replay).toBeUndefined();
  const result = await run('conformance', 'replay', conflicts, '--failure', String(index), '--base-url', fixed.url, ...secret);
  expect(result.code, result.stdout).toBe(3);
  expect(result.stdout).toContain('not replayed — its request builds on a job or key made earlier in the recorded run');
});

it('replay refuses a failure number the report does not have, and a file that is not a report', async () => {
  const missing = await run('conformance', 'replay', recorded, '--failure', '7');
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain("--failure must be an integer from 1 to 1, got '7'");
  const notReport = await run('conformance', 'replay', join(folder, 'nothing.json'));
  expect(notReport.code).toBe(2);
  expect(notReport.stderr).toContain('give a report written by --report json=FILE');
});

it('--rerun-failed runs only the checks that failed in the report: failing still on the broken server, passing once fixed', async () => {
  const again = join(folder, 'rerun.json');
  const broken = await run(
    'conformance',
    '--base-url',
    noConflict.url,
    '--quiet',
    ...secret,
    '--rerun-failed',
    conflicts,
    '--report',
    `json=${again}`,
  );
  expect(broken.code, broken.stdout).toBe(1);
  const failed = reportOf(conflicts)
    .checks.filter((check) => check.status === 'failed')
    .map((check) => check.name);
  expect(reportOf(again).checks.map((check) => check.name)).toEqual(failed);
  const repaired = await run(
    'conformance',
    '--base-url',
    fixed.url,
    '--quiet',
    ...secret,
    '--rerun-failed',
    conflicts,
    '--report',
    `json=${again}`,
  );
  expect(repaired.code, repaired.stdout).toBe(0);
  expect(reportOf(again).checks.every((check) => check.status === 'passed')).toBe(true);
});

it('--help explains replay and --rerun-failed, with their Schemathesis names', async () => {
  const { code, stdout } = await run('conformance', 'replay', '--help');
  expect(code).toBe(0);
  expect(stdout).toContain('Usage: evidence-harness conformance replay REPORT.json [options]');
  expect(stdout).toMatch(/--failure N +only failure N, as the summary numbers them/);
  expect(stdout).toMatch(/--rerun-failed REPORT.json +run only the checks that failed .*\n.*Schemathesis: --rerun-failed-checks/);
});

it('keeps a long body out of the report: its replay reads the body file its curl line uses', () => {
  const exchange = {
    id: 7,
    caller: 1 as const,
    intent: { kind: 'oversized-body' as const, bytes: 3_000_000, expected: { status: 413, because: 'over the limit' } },
    request: {
      method: 'POST',
      url: 'http://target.test/v0/evaluations',
      headers: { authorization: 'Bearer x' },
      body: 'x'.repeat(3_000_000),
    },
    notes: [],
    rateLimited: false,
    durationMs: 1,
  };
  const kept = replayableRequest({
    exchange,
    baseUrl: 'http://target.test',
    credentialHeaders: ['authorization'],
    bodyFile: '/tmp/exchange-7.json',
  });
  expect(kept).toMatchObject({ path: '/v0/evaluations', bodyFile: '/tmp/exchange-7.json' });
  expect(kept).not.toHaveProperty('body');
  expect(kept?.headers).toEqual({});
  // Without a file to point at (no --report folder), it is not replayable rather than inlined.
  expect(replayableRequest({ exchange, baseUrl: 'http://target.test', credentialHeaders: ['authorization'] })).toBeUndefined();
});
