/**
 * The options Schemathesis and Dredd users reach for, through the CLI: filters by operation,
 * path and method (issue 12 point 4). Each run goes against a fault-zoo server whose handler
 * also counts what reached it, so "not sent" is seen from the server's side.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { Exchange } from '../../src/conformance/exchange.js';
import { CassetteRecorder } from '../../src/conformance/report/cassette.js';
import { type RunningFaultServer, startFaultServer } from '../fixtures/fault-zoo/fault-server.js';
import { cleanHandler, faults } from '../fixtures/fault-zoo/faults.js';
import { reportOf, runWithBothCallers as run } from '../support/conformance-runs.js';

/** What reached a server: "METHOD /path" per request. */
const seen: string[] = [];
let clean: RunningFaultServer;
let rejectsJws: RunningFaultServer;
const folder = mkdtempSync(join(tmpdir(), 'eh-run-selection-'));

beforeAll(async () => {
  const handler = cleanHandler();
  clean = await startFaultServer(async (request, engine) => {
    seen.push(`${request.method} ${new URL(request.url).pathname}`);
    return handler(request, engine);
  });
  rejectsJws = await startFaultServer(faults.find((fault) => fault.name === 'verification-rejects-jws')!.create());
});
afterAll(async () => {
  await clean.close();
  await rejectsJws.close();
});

it('--exclude-operation sends nothing to the operation; its only checks are left out, and the run still passes', async () => {
  seen.length = 0;
  const json = join(folder, 'exclude.json');
  const result = await run(
    'conformance',
    '--base-url',
    clean.url,
    '--seed',
    '3',
    '--quiet',
    '--exclude-operation',
    'verifyReport',
    '--report',
    `json=${json}`,
  );
  expect(result.code, result.stdout).toBe(0);
  expect(seen.filter((line) => line.startsWith('POST /v0/verifications'))).toEqual([]);
  expect(seen.some((line) => line.startsWith('POST /v0/evaluations'))).toBe(true);
  const report = reportOf(json);
  const verification = report.checks.find((check) => check.name === 'verification_result')!;
  expect(verification).toMatchObject({ status: 'skipped', leftOut: true, applied: 0 });
  expect(verification.note).toContain('left out by --exclude-operation verifyReport');
  expect(report.incomplete).toEqual([]);
  expect(report.settings.operationFilters).toBe('--exclude-operation verifyReport');
  expect(report.notes.some((note) => /planned request\(s\) left out by --exclude-operation verifyReport/.test(note))).toBe(true);
  expect(result.stdout).toMatch(/verification_result +required +skip .*left out by --exclude-operation verifyReport/);
});

it('a server broken only on a left-out operation passes, and fails once the operation is back', async () => {
  const without = await run('conformance', '--base-url', rejectsJws.url, '--seed', '3', '--quiet', '--exclude-operation', 'verifyReport');
  expect(without.code, without.stdout).toBe(0);
  const withIt = await run('conformance', '--base-url', rejectsJws.url, '--seed', '3', '--quiet', '--checks', 'verification_result');
  expect(withIt.code, withIt.stdout).toBe(1);
});

it('--include-operation sends only to the operations named (the reachability GET aside), and is not incomplete for the rest', async () => {
  seen.length = 0;
  const json = join(folder, 'include.json');
  const result = await run(
    'conformance',
    '--base-url',
    clean.url,
    '--seed',
    '3',
    '--quiet',
    '--include-operation',
    'createEvaluation',
    '--report',
    `json=${json}`,
  );
  expect(result.code, result.stdout).toBe(0);
  // The preflight asks the root when the filters leave out the spec's simplest GET.
  expect(new Set(seen)).toEqual(new Set(['GET /', 'POST /v0/evaluations']));
  const report = reportOf(json);
  expect(report.checks.find((check) => check.name === 'unknown_job_not_found')).toMatchObject({ status: 'skipped', leftOut: true });
  expect(report.checks.find((check) => check.name === 'undeclared_path_not_found')).toMatchObject({ status: 'skipped', leftOut: true });
  expect(report.checks.find((check) => check.name === 'idempotency_conflict')).toMatchObject({ status: 'passed' });
  expect(report.verdict).toBe('passed');
});

it('--include-path and --include-method keep the operations that match both', async () => {
  seen.length = 0;
  const result = await run(
    'conformance',
    '--base-url',
    clean.url,
    '--seed',
    '3',
    '--quiet',
    '--include-path',
    '/v0/jobs/{jobId},/health',
    '--include-method',
    'get',
    '--checks',
    'not_a_server_error,response_schema_conformance',
  );
  expect(result.code, result.stdout).toBe(0);
  expect(seen.length).toBeGreaterThan(0);
  expect(seen.every((line) => line === 'GET /health' || line.startsWith('GET /v0/jobs/'))).toBe(true);
});

it('a filter naming what the spec does not have is a usage error that lists what it has', async () => {
  const result = await run('conformance', '--base-url', clean.url, '--quiet', '--include-operation', 'createEvaluatoin');
  expect(result.code).toBe(2);
  expect(result.stderr).toContain("--include-operation: the spec has no 'createEvaluatoin'; it has: health, createEvaluation");
  const none = await run('conformance', '--base-url', clean.url, '--quiet', '--include-operation', 'health', '--include-method', 'POST');
  expect(none.code).toBe(2);
  expect(none.stderr).toContain('leave no operation');
});

it('--max-examples sets the generated inputs per operation: three more each from 2 to 5, none at 0', async () => {
  const sent = async (examples: string) => {
    seen.length = 0;
    const result = await run(
      'conformance',
      '--base-url',
      clean.url,
      '--seed',
      '3',
      '--quiet',
      '--checks',
      'positive_data_acceptance',
      '--max-examples',
      examples,
    );
    expect(result.code, result.stdout).toBe(0);
    return seen.length;
  };
  const none = await sent('0');
  const two = await sent('2');
  const five = await sent('5');
  // createEvaluation, getJob and verifyReport have inputs to generate; health has none.
  expect(two - none).toBe(2 * 3);
  expect(five - two).toBe(3 * 3);
  const bad = await run('conformance', '--base-url', clean.url, '--max-examples=-1');
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("--max-examples must be an integer from 0 to 100000, got '-1'");
});

let noConflict: RunningFaultServer;
beforeAll(async () => {
  noConflict = await startFaultServer(faults.find((fault) => fault.name === 'no-409-on-conflict')!.create());
});
afterAll(async () => {
  await noConflict.close();
});

it('--fail-fast stops sending at the first failing exchange: the run is failed, the rest counted as not sent', async () => {
  const json = join(folder, 'fail-fast.json');
  const result = await run(
    'conformance',
    '--base-url',
    noConflict.url,
    '--seed',
    '3',
    '--quiet',
    '--fail-fast',
    '--report',
    `json=${json}`,
  );
  expect(result.code, result.stdout).toBe(1);
  const report = reportOf(json);
  expect(report.verdict).toBe('failed');
  const failures = report.checks.flatMap((check) => check.failures);
  expect(failures).toHaveLength(1);
  expect(failures[0]!.check).toBe('idempotency_conflict');
  // Nothing went after the failing exchange.
  expect(report.requests).toBe(failures[0]!.exchange);
  expect(report.requestsNotSent).toBeGreaterThan(100);
  expect(report.notes.some((note) => note.includes('not sent: --max-failures 1 was reached (1 failing exchange)'))).toBe(true);
  expect(report.settings.maxFailures).toBe(1);
});

it('--max-failures N lets N failing exchanges through before it stops', async () => {
  const json = join(folder, 'max-failures.json');
  const full = await run('conformance', '--base-url', noConflict.url, '--seed', '3', '--quiet', '--report', `json=${json}`);
  const everything = reportOf(json);
  const failingInFull = everything.checks
    .filter((check) => check.severity === 'required')
    .reduce((total, check) => total + check.failedExchanges, 0);
  expect(full.code).toBe(1);
  expect(failingInFull).toBeGreaterThan(2);
  const result = await run(
    'conformance',
    '--base-url',
    noConflict.url,
    '--seed',
    '3',
    '--quiet',
    '--max-failures',
    '2',
    '--report',
    `json=${json}`,
  );
  expect(result.code, result.stdout).toBe(1);
  const report = reportOf(json);
  expect(report.checks.filter((check) => check.severity === 'required').reduce((total, check) => total + check.failedExchanges, 0)).toBe(2);
  expect(report.requests).toBeLessThan(everything.requests);
  const both = await run('conformance', '--base-url', noConflict.url, '--fail-fast', '--max-failures', '3');
  expect(both.code).toBe(2);
});

it('--record writes every exchange as a HAR 1.2 cassette, in the order sent, with no credential anywhere in it', async () => {
  seen.length = 0;
  const har = join(folder, 'nested', 'run.har');
  const json = join(folder, 'recorded.json');
  const result = await main(
    [
      'conformance',
      '--base-url',
      clean.url,
      '--seed',
      '5',
      '--quiet',
      '--header',
      'X-Team-Token: alice-team-secret-1',
      '--second-caller-header',
      'Authorization: Bearer bob-secret-token-2',
      '--record',
      har,
      '--report',
      `json=${json}`,
    ],
    { stdout: () => {}, stderr: () => {} },
  );
  expect(result).toBe(0);
  const text = readFileSync(har, 'utf8');
  expect(text).not.toContain('alice-team-secret-1');
  expect(text).not.toContain('bob-secret-token-2');
  const cassette = JSON.parse(text) as {
    log: {
      version: string;
      creator: { name: string };
      entries: {
        request: { method: string; url: string; headers: { name: string; value: string }[]; postData?: { text: string } };
        response: { status: number; content: { text: string } };
        comment: string;
      }[];
    };
  };
  expect(cassette.log.version).toBe('1.2');
  expect(cassette.log.creator.name).toBe('evidence-harness conformance');
  const entries = cassette.log.entries;
  const report = reportOf(json);
  // One entry per exchange; against the mock no request is retried or redirected.
  expect(entries).toHaveLength(report.requests);
  const asSent = entries.map((entry) => `${entry.request.method} ${new URL(entry.request.url).pathname}`);
  expect([...asSent].sort()).toEqual([...seen].sort());
  expect(entries.map((entry) => entry.comment.split(';')[0])).toEqual(entries.map((_, index) => `exchange ${index + 1}`));
  const credentialHeaders = entries.flatMap((entry) =>
    entry.request.headers.filter((header) => /^(x-team-token|authorization)$/i.test(header.name)).map((header) => header.value),
  );
  // Every request carries one caller's credential header but ignored_auth's read without them.
  expect(credentialHeaders).toHaveLength(report.requests - 1);
  const bare = entries.filter((entry) => !entry.request.headers.some((header) => /^(x-team-token|authorization)$/i.test(header.name)));
  expect(bare.map((entry) => `${entry.request.method} ${new URL(entry.request.url).pathname.replace(/job_\w+/, 'JOB')}`)).toEqual([
    'GET /v0/jobs/JOB',
  ]);
  expect(new Set(credentialHeaders)).toEqual(new Set(['[scrubbed]']));
  expect(entries[0]).toMatchObject({ request: { method: 'GET' }, response: { status: 200 } });
  const created = entries.find((entry) => entry.request.method === 'POST' && entry.response.status === 202)!;
  expect(JSON.parse(created.response.content.text)).toHaveProperty('jobId');
  expect(JSON.parse(created.request.postData!.text)).toHaveProperty('operationId');
});

it('--record refuses a folder before the run starts', async () => {
  const result = await run('conformance', '--base-url', clean.url, '--quiet', '--record', folder);
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(`--record ${folder}: a folder is there`);
});

it('a cassette keeps bodies within its budget and says which it left out', () => {
  const recorder = new CassetteRecorder({
    secretHeaders: ['X-Key'],
    scrub: (text) => text.replaceAll('s3cret-value', '[scrubbed]'),
    bodyBudget: 40,
  });
  const exchange = (id: number, body: string): Exchange => ({
    id,
    caller: 1,
    intent: { kind: 'unknown-job' },
    request: { method: 'GET', url: 'http://127.0.0.1:1/v0/jobs/x', headers: { 'X-Key': 's3cret-value' } },
    response: {
      status: 404,
      headers: { 'content-type': 'application/json' },
      contentType: 'application/json',
      bodyText: body,
      json: undefined,
    },
    notes: [],
    rateLimited: false,
    durationMs: 1,
  });
  recorder.add(exchange(1, '{"echo":"s3cret-value","pad":"0123456"}'), { startedAt: 0 });
  recorder.add(exchange(2, '{"code":"not_found"}'), { startedAt: 1 });
  const har = JSON.parse(recorder.toHar({ name: 'test', version: '0' }));
  expect(har.log.entries[0].response.content.text).toBe('{"echo":"[scrubbed]","pad":"0123456"}');
  expect(har.log.entries[0].request.headers).toEqual([{ name: 'X-Key', value: '[scrubbed]' }]);
  expect(har.log.entries[1].response.content.text).toBe('');
  expect(har.log.entries[1].comment).toBe("exchange 2; response body of 20 bytes left out: the cassette's 40 bytes of bodies are used up");
});

it('ignored_auth: a server answering a job the same without credentials fails it (advisory: exit 1 only with --strict)', async () => {
  const server = await startFaultServer(faults.find((fault) => fault.name === 'job-readable-without-credentials')!.create());
  try {
    const advisory = await run('conformance', '--base-url', server.url, '--seed', '3', '--quiet', '--checks', 'ignored_auth');
    expect(advisory.code, advisory.stdout).toBe(0);
    expect(advisory.stdout).toMatch(/ignored_auth +advisory +FAIL/);
    expect(advisory.stdout).toContain('the job was answered 200, the same, without Authorization');
    const strict = await run('conformance', '--base-url', server.url, '--seed', '3', '--quiet', '--checks', 'ignored_auth', '--strict');
    expect(strict.code).toBe(1);
    const fixed = await run('conformance', '--base-url', clean.url, '--seed', '3', '--quiet', '--checks', 'ignored_auth', '--strict');
    expect(fixed.code, fixed.stdout).toBe(0);
  } finally {
    await server.close();
  }
});
