/**
 * The loop for the method, strictness and order entries (docs/profiles.md, "Methods,
 * strictness and order"): against a stand-in server whose decisions differ from the mock's on
 * each of them, `conformance --write-profile` learns them, `mock --profile` answers like the
 * stand-in, and `conformance --profile` with the same file passes both, advisory checks included.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readProfileFile } from '../../src/profile/load.js';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';
import { type MethodsServer, startMethodsServer } from '../fixtures/methods-server/methods-server.js';
import { evaluationRequest, newKey } from '../support/fixtures.js';
import { runMain } from '../support/run-main.js';

const folder = mkdtempSync(join(tmpdir(), 'eh-methods-to-mock-'));
const profileFile = join(folder, 'methods.yaml');
const callers = ['--header', 'Authorization: Bearer alice-token', '--second-caller-header', 'Authorization: Bearer bob-token'];
const run = (url: string, ...more: string[]) =>
  runMain('conformance', '--base-url', url, ...callers, '--seed', '11', '--replay-wait', '0', '--quiet', ...more);

let standIn: MethodsServer;
let mock: RunningMockServer | undefined;
let learnt: Awaited<ReturnType<typeof run>>;

beforeAll(async () => {
  standIn = await startMethodsServer();
  learnt = await run(standIn.url, '--write-profile', profileFile);
}, 180_000);
afterAll(async () => {
  await standIn.close();
  await mock?.close({ graceMs: 100 });
});

it('learns the stand-in’s method handling, strictness and order, each with what was seen', () => {
  expect(learnt.code, learnt.stderr).toBe(0);
  const text = readFileSync(profileFile, 'utf8');
  expect(text).toContain('options: {status: 204, allow: true}');
  expect(text).toContain('head: {status: 405}');
  expect(text).toContain('allow: {adds: [HEAD, OPTIONS]}');
  expect(text).toContain('duplicate-members: {status: 400, code: duplicate_member}');
  expect(text).toContain('charset: {status: 415, code: unsupported_charset}');
  expect(text).toContain('non-ascii-key: {status: 400, code: invalid_key}');
  expect(text).toMatch(
    /precedence: \{order: \[missing-key, media-type, body-too-large, malformed-json, not-an-object, over-maximum, invalid-request\]\}/,
  );
  // A comment is wrapped whole over indented lines: read as one.
  expect(text.replace(/\n *# {3}/g, ' ')).toMatch(
    /# missing-key judged before media-type, body-too-large, malformed-json, not-an-object, over-maximum, invalid-request/,
  );
});

/** Requests on the points these entries decide, each answered as `status code Allow`. */
async function answers(base: string): Promise<string[]> {
  const auth = { authorization: 'Bearer carol-token' };
  const json = { ...auth, 'content-type': 'application/json' };
  const key = () => ({ 'idempotency-key': newKey() });
  const valid = JSON.stringify(evaluationRequest());
  const [firstName, ...others] = Object.entries(evaluationRequest());
  const rest = others.map(([name, value]) => `,${JSON.stringify(name)}:${JSON.stringify(value)}`).join('');
  const duplicated = `{${JSON.stringify(firstName![0])}:${JSON.stringify(firstName![1])},${JSON.stringify(firstName![0])}:7${rest}}`;
  const requests: [string, string, RequestInit][] = [
    ['OPTIONS on a POST path', '/v0/evaluations', { method: 'OPTIONS', headers: auth }],
    ['OPTIONS on a GET path', '/v0/jobs/job_x', { method: 'OPTIONS', headers: auth }],
    ['HEAD /health', '/health', { method: 'HEAD' }],
    ['DELETE on a POST path', '/v0/evaluations', { method: 'DELETE', headers: auth }],
    ['POST on a GET path', '/health', { method: 'POST', headers: json, body: '{}' }],
    ['duplicate members', '/v0/evaluations', { method: 'POST', headers: { ...json, ...key() }, body: duplicated }],
    [
      'a non-UTF-8 charset',
      '/v0/evaluations',
      { method: 'POST', headers: { ...auth, 'content-type': 'application/json; charset=iso-8859-1', ...key() }, body: valid },
    ],
    ['a key outside ASCII', '/v0/evaluations', { method: 'POST', headers: { ...json, 'idempotency-key': 'clé-1' }, body: valid }],
    ['no key and malformed JSON', '/v0/evaluations', { method: 'POST', headers: json, body: '{"profile":' }],
    ['no key and text/plain', '/v0/evaluations', { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: valid }],
    [
      'text/plain and malformed JSON',
      '/v0/evaluations',
      { method: 'POST', headers: { ...auth, 'content-type': 'text/plain', ...key() }, body: '{' },
    ],
    ['a valid create', '/v0/evaluations', { method: 'POST', headers: { ...json, ...key() }, body: valid }],
  ];
  const seen: string[] = [];
  for (const [name, path, init] of requests) {
    const response = await fetch(`${base}${path}`, init);
    const text = await response.text();
    let code = '';
    try {
      code = text ? ((JSON.parse(text) as { code?: string }).code ?? '') : '';
    } catch {
      code = '(not JSON)';
    }
    seen.push(`${name}: ${response.status} ${code} Allow: ${response.headers.get('allow') ?? '-'}`);
  }
  return seen;
}

it('serves the profile: the mock answers these points like the stand-in, and unlike the plain mock', async () => {
  mock = await startMockServer({ port: 0, host: '127.0.0.1', profile: await readProfileFile(profileFile) });
  const fromStandIn = await answers(standIn.url);
  expect(await answers(mock.url)).toEqual(fromStandIn);
  expect(fromStandIn).toContain('OPTIONS on a POST path: 204  Allow: POST, OPTIONS');
  expect(fromStandIn).toContain('no key and malformed JSON: 400 missing_idempotency_key Allow: -');
  const plain = await startMockServer({ port: 0, host: '127.0.0.1' });
  try {
    const fromPlain = await answers(plain.url);
    expect(fromPlain.filter((answer, index) => answer !== fromStandIn[index]).length).toBeGreaterThanOrEqual(9);
  } finally {
    await plain.close({ graceMs: 100 });
  }
}, 60_000);

it('holds the stand-in to its own profile: exit 0, no failed check, advisory included', async () => {
  const held = await run(standIn.url, '--profile', profileFile);
  expect(held.code, held.stdout).toBe(0);
  expect(held.stdout).not.toMatch(/\bFAIL\b/);
  expect(held.stdout).toMatch(/profile:A-7\.precedence\s+required\s+pass/);
  expect(held.stdout).toMatch(/profile:A-21\.duplicate-members\s+required\s+pass/);
}, 180_000);

it('passes the profiled mock with the same profile: exit 0, no failed check', async () => {
  mock ??= await startMockServer({ port: 0, host: '127.0.0.1', profile: await readProfileFile(profileFile) });
  const held = await run(mock.url, '--profile', profileFile);
  expect(held.code, held.stdout).toBe(0);
  expect(held.stdout).not.toMatch(/\bFAIL\b/);
  expect(held.stdout).toMatch(/profile:A-20\.head\s+required\s+pass/);
}, 180_000);

it('fails the run when the stand-in does not judge problems in the declared order, naming the entry and the answer', async () => {
  const changed = join(folder, 'changed.yaml');
  writeFileSync(
    changed,
    readFileSync(profileFile, 'utf8').replace(
      /precedence: \{order: \[[^\]]*\]\}/,
      'precedence: {order: [media-type, body-too-large, malformed-json, not-an-object, over-maximum, invalid-request, missing-key]}',
    ),
  );
  const held = await run(standIn.url, '--profile', changed, '--checks', 'status_code_documented');
  expect(held.code).toBe(1);
  expect(held.stdout).toMatch(/profile:A-7\.precedence\s+required\s+FAIL/);
  expect(held.stdout).toContain('A-7.precedence: missing-key judged before');
}, 180_000);
