/**
 * `proxy --profile FILE` (A-68, docs/drift.md): a server behind the proxy with its own learnt
 * profile shows no drift over a client's traffic on the points the contract leaves "not shown";
 * with another server's profile (the bundled mock's, learnt the same way), every declared entry
 * the traffic exercises and the two servers decide differently is reported once, with its count,
 * in the Profile-Drift header, the log line, the report and its JUnit form. Credentials never
 * appear in a finding.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Exchange } from '../../src/conformance/exchange.js';
import { holdToProfile, profileDepartures } from '../../src/conformance/profile/profile-checks.js';
import { renderJunit } from '../../src/conformance/report/junit-report.js';
import { type EntryName, entryNames } from '../../src/profile/entries.js';
import { readProfileFile } from '../../src/profile/load.js';
import { resolveProfile, type ServerProfile } from '../../src/profile/profile.js';
import { type RunningProxy, startProxyServer } from '../../src/proxy/proxy-server.js';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';
import { type OwnDecisionsServer, startOwnDecisionsServer } from '../fixtures/profile-server/own-decisions-server.js';
import { cliChildrenKilledAfterEach } from '../support/cli-child.js';
import { evaluationRequest } from '../support/fixtures.js';
import { runMain } from '../support/run-main.js';

const folder = mkdtempSync(join(tmpdir(), 'eh-profile-drift-'));
const ownFile = join(folder, 'own.yaml');
const mockFile = join(folder, 'mock.yaml');
/** Credentials long enough for the scrubber (8 characters or more), and easy to find in a text. */
const aliceKey = 'alice-key-0f3a9c';
const bearer = 'Bearer drift-secret-7d41e2';
const spawnCli = cliChildrenKilledAfterEach();

let server: OwnDecisionsServer;
let mock: RunningMockServer;
let own: ServerProfile;
let mocks: ServerProfile;

beforeAll(async () => {
  server = await startOwnDecisionsServer();
  mock = await startMockServer({ port: 0, host: '127.0.0.1' });
  const conformance = (url: string, file: string, callers: string[]) =>
    runMain('conformance', '--base-url', url, ...callers, '--seed', '7', '--replay-wait', '0', '--quiet', '--write-profile', file);
  const learntOwn = await conformance(server.url, ownFile, [
    '--header',
    `X-Api-Key: ${aliceKey}`,
    '--second-caller-header',
    'X-Api-Key: bob-key-88e1b2',
  ]);
  expect(learntOwn.code, learntOwn.stderr).toBe(0);
  const learntMock = await conformance(mock.url, mockFile, [
    '--header',
    'Authorization: Bearer alice-token-1',
    '--second-caller-header',
    'Authorization: Bearer bob-token-22',
  ]);
  expect(learntMock.code, learntMock.stderr).toBe(0);
  own = await readProfileFile(ownFile);
  mocks = await readProfileFile(mockFile);
}, 180_000);
afterAll(async () => {
  await server.close();
  await mock.close({ graceMs: 100 });
  rmSync(folder, { recursive: true, force: true });
});

/** A client's traffic on the points the contract leaves open, and its ordinary flow: each request's name and its answer's Profile-Drift. */
async function clientTraffic(base: string): Promise<Map<string, string | null>> {
  const drift = new Map<string, string | null>();
  const alice = { 'x-api-key': aliceKey, authorization: bearer };
  const json = { ...alice, 'content-type': 'application/json' };
  let keys = 0;
  const key = () => {
    keys += 1;
    return { 'idempotency-key': `drift-key-${keys}` };
  };
  const body = JSON.stringify(evaluationRequest());
  const send = async (name: string, path: string, init: RequestInit = {}) => {
    const response = await fetch(`${base}${path}`, { ...init, headers: { ...alice, ...(init.headers as Record<string, string>) } });
    const text = await response.text();
    drift.set(name, response.headers.get('profile-drift'));
    return { status: response.status, json: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : undefined };
  };
  const post = (headers: Record<string, string>, data: string): RequestInit => ({ method: 'POST', headers, body: data });
  await send('malformed JSON', '/v0/evaluations', post({ ...json, ...key() }, '{"profile":'));
  await send('text/plain', '/v0/evaluations', post({ ...alice, 'content-type': 'text/plain', ...key() }, body));
  await send('form encoding', '/v0/evaluations', post({ ...alice, 'content-type': 'application/x-www-form-urlencoded', ...key() }, body));
  await send('no Idempotency-Key', '/v0/evaluations', post(json, body));
  await send('empty Idempotency-Key', '/v0/evaluations', post({ ...json, 'idempotency-key': '' }, body));
  await send('invalid body', '/v0/evaluations', post({ ...json, ...key() }, JSON.stringify({ ...evaluationRequest(), profile: 'nope' })));
  await send(
    'value over a maximum',
    '/v0/evaluations',
    post({ ...json, ...key() }, JSON.stringify(evaluationRequest({ operationId: 'x'.repeat(129) }))),
  );
  await send('a JSON array', '/v0/evaluations', post({ ...json, ...key() }, '[]'));
  await send('a body over 2 MiB', '/v0/evaluations', post({ ...json, ...key() }, `${' '.repeat(2 * 1024 * 1024)}${body}`));
  // A job the proxy did not see created may be another client's: not A-10.unknown-job (A-68).
  await send('unknown job', '/v0/jobs/job_unknown');
  await send('129-character jobId', `/v0/jobs/${'j'.repeat(129)}`);
  await send('DELETE on a contract path', '/v0/evaluations', { method: 'DELETE' });
  await send('a path outside the contract', '/v1/nothing');
  // The ordinary flow: a create, its reads until final, a replay and a conflict under its key.
  const createKey = key();
  const created = await send('create', '/v0/evaluations', post({ ...json, ...createKey }, body));
  const jobId = String(created.json?.jobId);
  for (let read = 1; read <= 5; read += 1) {
    const seen = await send(`read ${read}`, `/v0/jobs/${jobId}`);
    if (seen.json?.status === 'COMPLETE' || seen.json?.status === 'FAILED') break;
  }
  await send('replay', '/v0/evaluations', post({ ...json, ...createKey }, body));
  await send('conflict', '/v0/evaluations', post({ ...json, ...createKey }, JSON.stringify(evaluationRequest({ operationId: 'other' }))));
  await send("another caller's job", `/v0/jobs/${jobId}`, {
    headers: { 'x-api-key': 'bob-key-88e1b2', authorization: 'Bearer bob-secret-5c20aa' },
  });
  // Without any credentials at all: the own server refuses it, the mock serves an anonymous caller.
  const bare = await fetch(`${base}/v0/evaluations`, post({ 'content-type': 'application/json', ...key() }, body));
  await bare.text();
  drift.set('create without credentials', bare.headers.get('profile-drift'));
  return drift;
}

function proxyBefore(profile: ServerProfile, log: string[]): Promise<RunningProxy> {
  return startProxyServer({ upstream: server.url, port: 0, host: '127.0.0.1', profile, log: (line) => log.push(line) });
}

it('reports no drift when the server is behind its own learnt profile', async () => {
  const log: string[] = [];
  const proxy = await proxyBefore(own, log);
  try {
    const drift = await clientTraffic(proxy.url);
    expect([...drift.values()].filter((value) => value !== null)).toEqual([]);
    const report = proxy.report();
    expect(report.drift).toEqual([]);
    expect(report.driftCount).toBe(0);
    expect(log.join('\n')).not.toContain('drift:');
    // The server's own codes are its declared vocabulary: no advisory failure under its profile (A-53).
    expect(log.join('\n')).not.toContain('error_code_documented');
    // The traffic was judged: the entries it showed are passed cases, not skipped ones.
    const cases = proxy.conformanceReport().checks.filter((check) => check.name.startsWith('profile:'));
    const passed = cases.filter((check) => check.status === 'passed').map((check) => check.name);
    expect(passed).toEqual(
      expect.arrayContaining(['profile:A-21.media-type', 'profile:A-16.missing-key', 'profile:A-10.other-callers-job']),
    );
    expect(cases.filter((check) => check.status === 'failed')).toEqual([]);
  } finally {
    await proxy.close({ graceMs: 100 });
  }
}, 60_000);

/** The entries the client's traffic exercises on which the own server and the mock decide differently, and the requests showing each. */
const expectedDrift: Readonly<Partial<Record<EntryName, readonly string[]>>> = {
  'A-21.malformed-json': ['malformed JSON'],
  'A-21.media-type': ['text/plain', 'form encoding'],
  'A-16.missing-key': ['no Idempotency-Key', 'empty Idempotency-Key'],
  'A-7.invalid-request': ['invalid body'],
  'A-2.over-maximum': ['value over a maximum'],
  'A-21.not-an-object': ['a JSON array'],
  'A-13.body-too-large': ['a body over 2 MiB'],
  'A-23.invalid-job-id': ['129-character jobId'],
  'A-20.undeclared-method': ['DELETE on a contract path'],
  'A-20.unknown-route': ['a path outside the contract'],
  'A-10.other-callers-job': ["another caller's job"],
  'A-16.conflict': ['conflict'],
  'A-10.without-credentials': ['create without credentials'],
  'A-3.timeline': ['create'],
};

it("reports each entry the other server's profile decides differently, once, with its count", async () => {
  const log: string[] = [];
  const proxy = await proxyBefore(mocks, log);
  try {
    const drift = await clientTraffic(proxy.url);
    const report = proxy.report();
    const found = Object.fromEntries((report.drift ?? []).map((finding) => [finding.entry, finding.count]));
    const exercised = Object.fromEntries(Object.entries(expectedDrift).map(([entry, requests]) => [entry, requests!.length]));
    expect(found).toMatchObject(exercised);
    // Every entry reported is one the two profiles declare differently.
    for (const entry of Object.keys(found) as EntryName[]) {
      expect(mocks.declared.has(entry), entry).toBe(true);
      expect(JSON.stringify(mocks.entries[entry]), entry).not.toBe(JSON.stringify(own.entries[entry]));
    }
    // Each request answered the client with the entries it drifted from.
    for (const [entry, requests] of Object.entries(expectedDrift))
      for (const request of requests!) expect(drift.get(request) ?? '', `${request}: ${entry}`).toContain(entry);
    expect(report.driftCount).toBe([...drift.values()].filter((value) => value !== null).length);
    // Each exchange kept in `recent` names the entries it drifted from.
    expect(report.recent.filter((exchange) => exchange.drift).length).toBe(report.driftCount);
    // One finding: the profile's word, the server's answer, the request as a curl.
    const media = report.drift!.find((finding) => finding.entry === 'A-21.media-type')!;
    expect(media.expected).toContain(`A-21.media-type ${'{'}status: ${mocks.entries['A-21.media-type'].status}`);
    expect(media.seen).toBe('POST /v0/evaluations, text/plain → 400 UNSUPPORTED_CONTENT');
    expect(media.lastSeen).toMatch(/application\/x-www-form-urlencoded → 400 UNSUPPORTED_CONTENT/);
    expect(media.request).toMatch(/^curl -i -X POST '.*\/v0\/evaluations' .*-H 'content-type: text\/plain'/);
    expect(media.request).toContain('"authorization: $EH_AUTH"');
    // The log line names drift as its own kind.
    expect(log.join('\n')).toMatch(/POST \/v0\/evaluations 400 [\d.]+ms request:request_media_type .*drift:A-21\.media-type/);
    // JUnit: each drift entry a failed test case.
    const junit = renderJunit(proxy.conformanceReport());
    expect(junit).toMatch(
      /name="profile:A-21\.media-type"[^<]*>\s*<properties>.*<\/properties>\s*<failure message="1 distinct failure\(s\): A-21\.media-type: /,
    );
    expect(junit).toContain('(2 exchange(s) drifted)');
  } finally {
    await proxy.close({ graceMs: 100 });
  }
}, 60_000);

it('never shows a credential in a finding, the report, its JUnit form or the log', async () => {
  const log: string[] = [];
  const proxy = await proxyBefore(mocks, log);
  try {
    await clientTraffic(proxy.url);
    const texts = [JSON.stringify(proxy.report()), renderJunit(proxy.conformanceReport()), log.join('\n')];
    expect(proxy.report().drift!.length).toBeGreaterThan(0);
    for (const text of texts) {
      expect(text).not.toContain('drift-secret-7d41e2');
      expect(text).not.toContain(aliceKey);
    }
  } finally {
    await proxy.close({ graceMs: 100 });
  }
}, 60_000);

it('adds the drift to an answer --errors replaces, as Contract-Violations speaks of the answer replaced', async () => {
  // An upstream whose create answers a state the contract does not have, and the profile does not declare.
  const upstream = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ jobId: 'job_1', status: 'DONE' }));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const timeline = resolveProfile(
    { profile: 2, 'A-3': { timeline: { first: 'QUEUED', through: ['QUEUED', 'RUNNING', 'COMPLETE'] } } },
    'timeline.yaml',
  );
  const proxy = await startProxyServer({
    upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    port: 0,
    host: '127.0.0.1',
    profile: timeline,
    errors: true,
  });
  try {
    const answer = await fetch(`${proxy.url}/v0/evaluations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'drift-errors-1' },
      body: JSON.stringify(evaluationRequest()),
    });
    expect(answer.status).toBe(502);
    expect(answer.headers.get('contract-violations')).toBeTruthy();
    expect(answer.headers.get('profile-drift')).toBe('A-3.timeline');
    expect(proxy.report().drift).toEqual([
      expect.objectContaining({ entry: 'A-3.timeline', problem: 'created as DONE, not QUEUED', count: 1 }),
    ]);
  } finally {
    await proxy.close({ graceMs: 100 });
    await new Promise((resolve) => upstream.close(resolve));
  }
});

it('refuses an unreadable profile and --fail-on-drift without one, exit 2 with one line', async () => {
  const bad = join(folder, 'bad.yaml');
  writeFileSync(bad, 'profile: 2\nA-21:\n  media-type: {status: 200, code: OK}\n');
  const refused = await runMain('proxy', '--upstream', 'http://127.0.0.1:9', '--port', '0', '--profile', bad);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('bad.yaml:3: A-21.media-type: status 200 breaks a rule the contract states');
  const absent = await runMain('proxy', '--upstream', 'http://127.0.0.1:9', '--port', '0', '--profile', join(folder, 'none.yaml'));
  expect(absent.code).toBe(2);
  expect(absent.stderr.trim().split('\n')).toEqual([expect.stringContaining('--profile: file not found:')]);
  const missing = await runMain('proxy', '--upstream', 'http://127.0.0.1:9', '--port', '0', '--fail-on-drift');
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain('--fail-on-drift needs --profile FILE');
});

/** An exchange as the runner or the proxy reads it: a media-type probe answered 400 X. */
function mediaTypeExchange(code: string): Exchange {
  return {
    id: 1,
    operationId: 'createEvaluation',
    caller: 1,
    intent: { kind: 'media-type', contentType: 'text/plain', expected: { status: 'any-4xx', because: 'a test' } },
    request: { method: 'POST', url: 'http://127.0.0.1:1/v0/evaluations', headers: {}, body: '{}' },
    response: {
      status: 400,
      headers: { 'content-type': 'application/json' },
      contentType: 'application/json',
      bodyText: JSON.stringify({ code, message: 'no' }),
      json: { code, message: 'no' },
    },
    notes: [],
    durationMs: 1,
  } as unknown as Exchange;
}

it('holds an exchange to a profile by one function: the entries it shows, and each departure with the declared answer', () => {
  const profile = resolveProfile({ profile: 2, 'A-21': { 'media-type': { status: 400, code: 'UNSUPPORTED_CONTENT' } } }, 'p.yaml');
  expect(holdToProfile(mediaTypeExchange('UNSUPPORTED_CONTENT'), profile)).toEqual({
    shown: new Set(['A-21.media-type']),
    departures: [],
  });
  expect(profileDepartures(mediaTypeExchange('WRONG'), profile)).toEqual([
    {
      entry: 'A-21.media-type',
      problem: 'code WRONG, not UNSUPPORTED_CONTENT',
      expected: 'A-21.media-type {status: 400, code: UNSUPPORTED_CONTENT}',
      seen: 'POST /v0/evaluations, text/plain → 400 WRONG',
    },
  ]);
  // An entry the profile leaves to its default is not the server's word: no departure from it.
  expect(profileDepartures(mediaTypeExchange('WRONG'), resolveProfile({ profile: 2 }, 'empty'))).toEqual([]);
  expect(entryNames).toContain('A-21.media-type');
});

it('as a command: says the drift when stopped, writes it to --report json, and exits 1 with --fail-on-drift', async () => {
  const reportFile = join(folder, 'reports', 'drift.json');
  const htmlFile = join(folder, 'reports', 'drift.html');
  const proxy = spawnCli([
    'proxy',
    '--upstream',
    server.url,
    '--port',
    '0',
    '--profile',
    mockFile,
    '--fail-on-drift',
    '--report',
    `json=${reportFile}`,
    '--report',
    `html=${htmlFile}`,
  ]);
  const [, url] = await proxy.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  expect(proxy.stdout()).toContain(`watching for drift from the profile ${mockFile}`);
  const answer = await fetch(`${url}/v0/evaluations`, {
    method: 'POST',
    headers: { 'x-api-key': aliceKey, 'content-type': 'text/plain', 'idempotency-key': 'drift-cli-1' },
    body: JSON.stringify(evaluationRequest()),
  });
  expect(answer.headers.get('profile-drift')).toBe('A-21.media-type');
  await expect.poll(() => proxy.stdout()).toMatch(/POST \/v0\/evaluations 400 [\d.]+ms .*drift:A-21\.media-type/);
  proxy.child.kill('SIGTERM');
  expect(await proxy.exit).toBe(1);
  expect(proxy.stdout()).toContain('1 exchange(s) drifted from the profile (A-21.media-type ×1)');
  expect(proxy.stderr()).toContain(`--fail-on-drift: 1 exchange(s) drifted from ${mockFile}`);
  const written = JSON.parse(readFileSync(reportFile, 'utf8'));
  expect(written.driftCount).toBe(1);
  expect(written.drift).toEqual([
    expect.objectContaining({ entry: 'A-21.media-type', count: 1, request: expect.stringMatching(/^curl /) }),
  ]);
  expect(JSON.stringify(written)).not.toContain(aliceKey);
  const html = readFileSync(htmlFile, 'utf8');
  expect(html).toContain('profile:A-21.media-type');
  expect(html).toContain('UNSUPPORTED_CONTENT');
}, 60_000);
