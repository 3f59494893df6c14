/**
 * A runner that says what to do (issue 34, A-59): one cause behind many failures is said once,
 * first, with the failures grouped under it; a long list repeated is said once; the first
 * example of `conformance --help` passes a correct server, saying what it could not check and
 * how to enable it; --strict passes a correct server whose jobs are final at once.
 */
import { afterEach, expect, it } from 'vitest';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';
import { bothCallers } from '../support/conformance-runs.js';
import { runMain } from '../support/run-main.js';

const started: RunningMockServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.close({ graceMs: 100 })));
});
async function mock(options: Parameters<typeof startMockServer>[0] = {}): Promise<RunningMockServer> {
  const server = await startMockServer({ port: 0, host: '127.0.0.1', ...options });
  started.push(server);
  return server;
}
const callers = bothCallers;

it('starts with one line naming the cause when a scenario answers 30% of calls with 503, and groups the failures under it', async () => {
  const server = await mock({ engineOptions: { scenario: 'flaky-503', seed: 5 } });
  const run = await runMain('conformance', '--base-url', server.url, '--quiet', '--seed', '3', ...callers);
  expect(run.code).toBe(1);
  const lines = run.stdout.split('\n');
  expect(lines[0]).toMatch(/^Cause: transient failures: \d+ failing answers were 503 ×\d+, from your server or a mock scenario/);
  expect(lines.filter((line) => line.startsWith('Cause:'))).toHaveLength(1);
  expect(run.stdout).toMatch(/\nFrom one cause, transient failures \(\d+\):\n/);
  // The failures under the cause are the 503s.
  const grouped = run.stdout.split(/\nFrom one cause, transient failures \(\d+\):\n/)[1]!.split(/\nOther failures|\nNotes:/)[0]!;
  for (const received of grouped.match(/ {3}received: .*/g) ?? []) expect(received).toMatch(/received: 503\b/);
}, 120_000);

it('says the server wants credentials, once, when every /v0 answer is 401, and groups them', async () => {
  const server = await mock({ profile: { profile: 1, 'A-10': { 'without-credentials': { status: 401, code: 'unauthenticated' } } } });
  const run = await runMain('conformance', '--base-url', server.url, '--quiet', '--seed', '3');
  expect(run.code).toBe(1);
  expect(run.stdout.split('\n')[0]).toMatch(
    /^Cause: the server wants credentials: \d+ failing answers were 401 ×\d+\. Pass them with --header/,
  );
  expect(run.stdout).toMatch(/\nFrom one cause, the server wants credentials \(\d+\):\n/);
}, 120_000);

it('says a long expected list once, and refers to it after', async () => {
  const server = await mock({
    profile: { profile: 1, 'A-16': { conflict: { status: 409, code: 'DUP' } }, 'A-21': { 'malformed-json': { status: 400, code: 'BAD' } } },
  });
  const run = await runMain(
    'conformance',
    '--base-url',
    server.url,
    '--quiet',
    '--seed',
    '3',
    '--checks',
    'error_code_documented,malformed_json_rejected',
    ...callers,
  );
  const full = run.stdout.match(/expected: one of invalid_json, invalid_body/g) ?? [];
  expect(full).toHaveLength(1);
  expect(run.stdout).toMatch(/expected: as in failure 1\b/);
}, 120_000);

it('passes the first example of --help against a correct server, saying what it could not check and how', async () => {
  const help = await runMain('conformance', '--help');
  const first = /Examples:\n {2}evidence-harness conformance (.*)\n/.exec(help.stdout)![1]!;
  expect(first).toBe('--base-url http://127.0.0.1:4010');
  const server = await mock();
  const run = await runMain('conformance', '--base-url', server.url, '--quiet', '--seed', '3');
  expect(run.code, run.stdout).toBe(0);
  expect(run.stdout).toMatch(
    /second_caller_isolation\s+required\s+skip\s+0\s+\(not checked without a second caller: give --second-caller-header/,
  );
}, 120_000);

it('passes --strict against a correct server whose jobs are final at once: the moves it cannot see are reported, not incomplete', async () => {
  const server = await mock({ profile: { profile: 1, 'A-3': { timeline: { first: 'COMPLETE', through: ['COMPLETE'] } } } });
  const run = await runMain('conformance', '--base-url', server.url, '--quiet', '--seed', '3', '--strict', ...callers);
  expect(run.code, run.stdout).toBe(0);
  expect(run.stdout).toMatch(/job_status_moves_forward\s+advisory\s+skip\s+0\s+\(nothing to judge/);
  // Asked for by name, it is incomplete all the same.
  const named = await runMain(
    'conformance',
    '--base-url',
    server.url,
    '--quiet',
    '--seed',
    '3',
    '--strict',
    '--checks',
    'job_status_moves_forward',
    ...callers,
  );
  expect(named.code).toBe(3);
}, 120_000);
