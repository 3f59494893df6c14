/**
 * Codes per condition and per operation (issue 41, format 2): a server that answers a missing
 * Idempotency-Key `key_missing` and an empty one `key_invalid`, a limit on verifyReport with
 * another code than on createEvaluation, a left-out value apart from other invalid input and
 * an empty jobId apart from other unknown routes is learnt into entries with parts (never
 * dropped), served alike by the profiled mock, and held to its own profile: exit 0 and no
 * failed check, error_code_documented included, against the server and the profiled mock.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readProfileFile } from '../../src/profile/load.js';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';
import { type PerConditionServer, startPerConditionServer } from '../fixtures/profile-server/per-condition-server.js';
import { evaluationRequest } from '../support/fixtures.js';
import { runMain } from '../support/run-main.js';

const folder = mkdtempSync(join(tmpdir(), 'eh-per-condition-'));
const profileFile = join(folder, 'p.yaml');
const callers = ['--header', 'Authorization: Bearer alice-token', '--second-caller-header', 'Authorization: Bearer bob-token'];
const run = (url: string, ...more: string[]) =>
  runMain('conformance', '--base-url', url, ...callers, '--seed', '7', '--replay-wait', '0', '--quiet', ...more);

let server: PerConditionServer;
let mock: RunningMockServer | undefined;
let learnt: Awaited<ReturnType<typeof run>>;

beforeAll(async () => {
  server = await startPerConditionServer();
  learnt = await run(server.url, '--write-profile', profileFile);
}, 120_000);
afterAll(async () => {
  await server.close();
  await mock?.close({ graceMs: 100 });
});

it('learns answers that differ by condition or operation as parts of their entry, never dropping it', async () => {
  expect(learnt.code, learnt.stderr).toBe(0);
  expect(learnt.stderr).not.toContain('different answers');
  const profile = await readProfileFile(profileFile);
  expect(profile.format).toBe(2);
  const missingKey = profile.entries['A-16.missing-key'];
  const byCondition = (value: { code: string; conditions?: Record<string, { code: string } | undefined> }, condition: string) =>
    value.conditions?.[condition]?.code ?? value.code;
  expect(byCondition(missingKey, 'required')).toBe('key_missing');
  expect(byCondition(missingKey, 'minLength')).toBe('key_invalid');
  expect(profile.entries['A-2.over-maximum']).toEqual({
    status: 413,
    code: 'value_too_large',
    operations: { verifyReport: { status: 400, code: 'too_long' } },
  });
  expect(profile.entries['A-7.invalid-request']).toEqual({
    status: 400,
    code: 'field_invalid',
    operations: { verifyReport: { status: 400, code: 'report_invalid' } },
    conditions: { required: { status: 400, code: 'field_missing' } },
  });
  expect(profile.entries['A-20.unknown-route']).toEqual({
    status: 404,
    code: 'no_route',
    conditions: { 'empty-path-parameter': { status: 400, code: 'job_id_empty' } },
  });
  const text = readFileSync(profileFile, 'utf8');
  expect(text).toContain('# operations.verifyReport: seen');
  expect(text.trimEnd().split('\n').at(-1)).toBe('# - nothing this run saw.');
}, 30_000);

it('holds the server to its own profile: exit 0, no failed check, its own codes documented', async () => {
  const held = await run(server.url, '--profile', profileFile);
  expect(held.code, held.stdout).toBe(0);
  expect(held.stdout).not.toMatch(/\bFAIL\b/);
  expect(held.stdout).toMatch(/error_code_documented\s+advisory\s+pass/);
  expect(held.stdout).toMatch(/profile:A-16\.missing-key\s+required\s+pass/);
}, 120_000);

/** Requests whose answers the server decides per condition or per operation. */
async function answers(base: string): Promise<string[]> {
  const auth = { authorization: 'Bearer alice-token', 'content-type': 'application/json' };
  const body = JSON.stringify(evaluationRequest());
  const { operationId: _left, ...withoutOperationId } = evaluationRequest();
  const requests: [string, string, RequestInit][] = [
    ['no key', '/v0/evaluations', { method: 'POST', headers: auth, body }],
    ['empty key', '/v0/evaluations', { method: 'POST', headers: { ...auth, 'idempotency-key': '' }, body }],
    [
      'over a maximum, create',
      '/v0/evaluations',
      {
        method: 'POST',
        headers: { ...auth, 'idempotency-key': 'k-over' },
        body: JSON.stringify(evaluationRequest({ operationId: 'x'.repeat(129) })),
      },
    ],
    [
      'over a maximum, verify',
      '/v0/verifications',
      { method: 'POST', headers: auth, body: JSON.stringify({ artifact: 'a', expectedOperationId: 'x'.repeat(129), expectedIssuer: 'i' }) },
    ],
    [
      'a value left out, create',
      '/v0/evaluations',
      { method: 'POST', headers: { ...auth, 'idempotency-key': 'k-left' }, body: JSON.stringify(withoutOperationId) },
    ],
    [
      'an invalid value, verify',
      '/v0/verifications',
      { method: 'POST', headers: auth, body: JSON.stringify({ artifact: 7, expectedOperationId: 'o', expectedIssuer: 'i' }) },
    ],
    ['a value left out, verify', '/v0/verifications', { method: 'POST', headers: auth, body: JSON.stringify({ artifact: 'a' }) }],
    ['empty jobId', '/v0/jobs/', { headers: auth }],
    ['unknown route', '/v1/nothing', { headers: auth }],
  ];
  const seen: string[] = [];
  for (const [name, path, init] of requests) {
    const response = await fetch(`${base}${path}`, init);
    const json = (await response.json()) as { code?: string };
    seen.push(`${name}: ${response.status} ${json.code}`);
  }
  return seen;
}

it('serves the parts: the profiled mock answers each condition and operation as the server does', async () => {
  mock = await startMockServer({ port: 0, host: '127.0.0.1', profile: await readProfileFile(profileFile) });
  const fromServer = await answers(server.url);
  expect(fromServer).toEqual([
    'no key: 400 key_missing',
    'empty key: 400 key_invalid',
    'over a maximum, create: 413 value_too_large',
    'over a maximum, verify: 400 too_long',
    'a value left out, create: 400 field_missing',
    'an invalid value, verify: 400 report_invalid',
    'a value left out, verify: 400 field_missing',
    'empty jobId: 400 job_id_empty',
    'unknown route: 404 no_route',
  ]);
  expect(await answers(mock.url)).toEqual(fromServer);
}, 30_000);

it('passes the profiled mock with the same profile: exit 0, no failed check', async () => {
  mock ??= await startMockServer({ port: 0, host: '127.0.0.1', profile: await readProfileFile(profileFile) });
  const held = await run(mock.url, '--profile', profileFile);
  expect(held.code, held.stdout).toBe(0);
  expect(held.stdout).not.toMatch(/\bFAIL\b/);
}, 120_000);

it('fails a held run when a part is not honoured, naming the part and the answer seen', async () => {
  const changed = join(folder, 'changed.yaml');
  writeFileSync(changed, readFileSync(profileFile, 'utf8').replace('code: too_long}', 'code: over_limit}'));
  const held = await run(server.url, '--profile', changed, '--checks', 'status_code_documented');
  expect(held.code).toBe(1);
  expect(held.stdout).toMatch(/profile:A-2\.over-maximum\s+required\s+FAIL/);
  expect(held.stdout).toContain('A-2.over-maximum on verifyReport: {status: 400, code: over_limit} (its part operations.verifyReport)');
  expect(held.stdout).toMatch(/→ 400 too_long/);
}, 120_000);
