/**
 * From a real server to your mock (A-50, docs/profiles.md): against a server of its own
 * decisions (test/fixtures/profile-server), `conformance --write-profile` learns its profile,
 * `conformance --profile` holds it to it, the mock serves it, and the same requests on points
 * the contract leaves "not shown" get the same status and Error code from both; the runner then
 * passes the profiled mock too. A profile entry the server does not honour fails the run,
 * naming the entry and the answer seen.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readProfileFile } from '../../src/profile/load.js';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';
import { type OwnDecisionsServer, startOwnDecisionsServer } from '../fixtures/profile-server/own-decisions-server.js';
import { cliChildrenKilledAfterEach } from '../support/cli-child.js';
import { evaluationRequest } from '../support/fixtures.js';
import { runMain } from '../support/run-main.js';

const folder = mkdtempSync(join(tmpdir(), 'eh-server-to-mock-'));
const profileFile = join(folder, 'p.yaml');
const callers = ['--header', 'X-Api-Key: alice-key', '--second-caller-header', 'X-Api-Key: bob-key'];
const run = (url: string, ...more: string[]) =>
  runMain('conformance', '--base-url', url, ...callers, '--seed', '7', '--replay-wait', '0', '--quiet', ...more);

const spawnCli = cliChildrenKilledAfterEach();
let server: OwnDecisionsServer;
let mock: RunningMockServer | undefined;
let learnt: Awaited<ReturnType<typeof run>>;

beforeAll(async () => {
  server = await startOwnDecisionsServer();
  learnt = await run(server.url, '--write-profile', profileFile);
}, 120_000);
afterAll(async () => {
  await server.close();
  await mock?.close({ graceMs: 100 });
});

it('learns the server’s profile, each entry with what was seen, and nothing it did not see', () => {
  expect(learnt.code).toBe(0);
  expect(learnt.stderr).not.toContain('different answers');
  const text = readFileSync(profileFile, 'utf8');
  expect(text).toContain('# seen 8×: POST /v0/evaluations, no Content-Type → 400 UNSUPPORTED_CONTENT');
  expect(text).toContain('media-type: {status: 400, code: UNSUPPORTED_CONTENT}');
  expect(text).toContain('replay: {compare: raw-bytes}');
  expect(text).toContain('undeclared-method: {status: 404, code: NOT_FOUND, allow: false}');
  expect(text).toContain('without-credentials: {status: 401, code: UNAUTHENTICATED}');
  expect(text).toContain('timeline: {first: RUNNING, through: [RUNNING, COMPLETE]}');
  // No 429 or 500 came: left out, and said so.
  expect(text).not.toMatch(/^ {2}rate-limited:/m);
  expect(text.replace(/\n# {3}/g, ' ')).toMatch(/# Not learnt .*\n# - not seen in this run: .*A-11\.rate-limited/);
  // The file ends with what format 2 cannot express.
  expect(text.trimEnd().split('\n').slice(-2)).toEqual([
    '# Not expressible in profile format 2 (what this run saw that no entry can hold):',
    '# - nothing this run saw.',
  ]);
  // The credentials never reach the file.
  expect(text).not.toContain('alice-key');
});

it('holds the server to its own profile: exit 0, no failed check', async () => {
  const held = await run(server.url, '--profile', profileFile);
  expect(held.code, held.stdout).toBe(0);
  expect(held.stdout).not.toMatch(/\bFAIL\b/);
  expect(held.stdout).toMatch(/profile:A-21\.media-type\s+required\s+pass/);
  // A declared point is never an advisory failure: its advisory check gives way.
  expect(held.stdout).not.toMatch(/unsupported_media_type_rejected/);
});

/** Requests on points the contract leaves "not shown", each with its own caller's key. */
function notShownRequests(): { name: string; path: string; init: RequestInit; before?: 'create' }[] {
  const alice = { 'x-api-key': 'alice-key' };
  const body = JSON.stringify(evaluationRequest());
  const post = (headers: Record<string, string>, data: string): RequestInit => ({ method: 'POST', headers, body: data });
  const json = { ...alice, 'content-type': 'application/json' };
  const key = () => ({ 'idempotency-key': `k-${Math.random().toString(36).slice(2)}` });
  return [
    { name: 'malformed JSON', path: '/v0/evaluations', init: post({ ...json, ...key() }, '{"profile":') },
    { name: 'text/plain', path: '/v0/evaluations', init: post({ ...alice, 'content-type': 'text/plain', ...key() }, body) },
    {
      name: 'form encoding',
      path: '/v0/evaluations',
      init: post({ ...alice, 'content-type': 'application/x-www-form-urlencoded', ...key() }, body),
    },
    { name: 'no Idempotency-Key', path: '/v0/evaluations', init: post(json, body) },
    { name: 'empty Idempotency-Key', path: '/v0/evaluations', init: post({ ...json, 'idempotency-key': '' }, body) },
    {
      name: 'invalid body',
      path: '/v0/evaluations',
      init: post({ ...json, ...key() }, JSON.stringify({ ...evaluationRequest(), profile: 'nope' })),
    },
    {
      name: 'value over a maximum',
      path: '/v0/evaluations',
      init: post({ ...json, ...key() }, JSON.stringify(evaluationRequest({ operationId: 'x'.repeat(129) }))),
    },
    { name: 'a JSON array', path: '/v0/evaluations', init: post({ ...json, ...key() }, '[]') },
    { name: 'a body over 2 MiB', path: '/v0/evaluations', init: post({ ...json, ...key() }, `${' '.repeat(2 * 1024 * 1024)}${body}`) },
    {
      name: 'verifyReport over a maximum',
      path: '/v0/verifications',
      init: post(json, JSON.stringify({ artifact: 'a', expectedOperationId: 'x'.repeat(129), expectedIssuer: 'i' })),
    },
    { name: 'unknown job', path: '/v0/jobs/job_unknown', init: { headers: alice } },
    { name: '129-character jobId', path: `/v0/jobs/${'j'.repeat(129)}`, init: { headers: alice } },
    { name: "another caller's job", path: '/v0/jobs/{created}', init: { headers: { 'x-api-key': 'bob-key' } }, before: 'create' },
    { name: 'DELETE on a contract path', path: '/v0/evaluations', init: { method: 'DELETE', headers: alice } },
    { name: 'a path outside the contract', path: '/v1/nothing', init: { headers: alice } },
    { name: 'getJob without credentials', path: '/v0/jobs/{created}', init: {}, before: 'create' },
    {
      name: 'createEvaluation without credentials',
      path: '/v0/evaluations',
      init: post({ 'content-type': 'application/json', ...key() }, body),
    },
    { name: 'health', path: '/health', init: {} },
  ];
}

/** Each request's status and Error code from `base`; a replay and a conflict after a create. */
async function answers(base: string): Promise<string[]> {
  const seen: string[] = [];
  const show = async (name: string, response: Response) => {
    const text = await response.text();
    let code = '';
    try {
      code = (JSON.parse(text) as { code?: string }).code ?? '';
    } catch {
      code = '(not JSON)';
    }
    seen.push(`${name}: ${response.status} ${code}`);
  };
  const create = async (key: string, body: string) =>
    fetch(`${base}/v0/evaluations`, {
      method: 'POST',
      headers: { 'x-api-key': 'alice-key', 'content-type': 'application/json', 'idempotency-key': key },
      body,
    });
  for (const request of notShownRequests()) {
    let path = request.path;
    if (request.before === 'create') {
      const created = (await (await create(`k-${Math.random()}`, JSON.stringify(evaluationRequest()))).json()) as { jobId: string };
      path = path.replace('{created}', created.jobId);
    }
    await show(request.name, await fetch(`${base}${path}`, request.init));
  }
  // The replay of an equal body written another way, and another body under a used key.
  const key = `k-${Math.random()}`;
  await create(key, JSON.stringify(evaluationRequest()));
  await show('re-serialised replay', await create(key, JSON.stringify(evaluationRequest(), null, 2)));
  await show('another body, same key', await create(key, JSON.stringify(evaluationRequest({ operationId: 'other' }))));
  return seen;
}

it('serves the profile: the same not-shown requests get the same status and Error code from the mock as from the server', async () => {
  mock = await startMockServer({ port: 0, host: '127.0.0.1', profile: await readProfileFile(profileFile) });
  const fromServer = await answers(server.url);
  const fromMock = await answers(mock.url);
  expect(fromServer).toHaveLength(20);
  expect(fromMock).toEqual(fromServer);
  // And it differs from the mock without a profile, where these are the register's decisions.
  const plain = await startMockServer({ port: 0, host: '127.0.0.1' });
  try {
    const fromPlain = await answers(plain.url);
    expect(fromPlain.filter((answer, index) => answer !== fromServer[index]).length).toBeGreaterThan(12);
  } finally {
    await plain.close({ graceMs: 100 });
  }
  const profile = await (await fetch(`${mock.url}/__mock/profile`)).json();
  expect(profile.source).toBe(profileFile);
  expect(profile.entries['A-21.media-type']).toEqual({ status: 400, code: 'UNSUPPORTED_CONTENT' });
}, 60_000);

it('passes the profiled mock with the same profile: exit 0', async () => {
  mock ??= await startMockServer({ port: 0, host: '127.0.0.1', profile: await readProfileFile(profileFile) });
  const held = await run(mock.url, '--profile', profileFile);
  expect(held.code, held.stdout).toBe(0);
  expect(held.stdout).not.toMatch(/\bFAIL\b/);
}, 120_000);

it('fails the run when the server does not honour an entry, naming the entry and the answer seen', async () => {
  const changed = join(folder, 'changed.yaml');
  writeFileSync(
    changed,
    readFileSync(profileFile, 'utf8').replace(
      'media-type: {status: 400, code: UNSUPPORTED_CONTENT}',
      'media-type: {status: 415, code: UNSUPPORTED_CONTENT}',
    ),
  );
  const held = await run(server.url, '--profile', changed, '--checks', 'status_code_documented');
  expect(held.code).toBe(1);
  expect(held.stdout).toMatch(/profile:A-21\.media-type\s+required\s+FAIL/);
  expect(held.stdout).toContain('A-21.media-type: status 400, not 415');
  expect(held.stdout).toMatch(/→ 400 UNSUPPORTED_CONTENT/);
}, 120_000);

it('refuses `mock --profile` with a profile that breaks a rule of the contract, naming the file, line and entry', async () => {
  const bad = join(folder, 'bad.yaml');
  writeFileSync(bad, 'profile: 1\nA-13:\n  body-too-large: {status: 413, code: BIG, limitBytes: 1024}\n');
  const refused = await runMain('mock', '--port', '0', '--profile', bad);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain(`${bad}:3: A-13.body-too-large: limitBytes 1024 would refuse a valid request`);
});

it('serves the profile from `evidence-harness mock --profile FILE` (the built command), and says so at start', async () => {
  const child = spawnCli(['mock', '--port', '0', '--quiet', '--profile', profileFile]);
  const [, url] = await child.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  await child.waitFor(/profile: .*p\.yaml \(\d+ entries declared; GET \/__mock\/profile shows it\)/);
  expect(await answers(url!)).toEqual(await answers(server.url));
}, 60_000);
