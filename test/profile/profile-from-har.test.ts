/**
 * `profile --from-har FILE.har --out PROFILE`: the proxy's recorded cassette, or a
 * browser's HAR export, replayed through the proxy's pipeline into the runner's learner. The
 * profile it writes makes `mock --profile` answer like the server on the points the traffic
 * exercised; entries of other servers are skipped and counted; a credential never reaches the
 * file; a file that is no HAR, or too large, is one line and exit 2.
 */
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readProfileFile } from '../../src/profile/load.js';
import { startProxyServer } from '../../src/proxy/proxy-server.js';
import { startMockServer } from '../../src/server/index.js';
import { type OwnDecisionsServer, startOwnDecisionsServer } from '../fixtures/profile-server/own-decisions-server.js';
import { evaluationRequest } from '../support/fixtures.js';
import { notShownAnswers } from '../support/not-shown-points.js';
import { runMain } from '../support/run-main.js';

const folder = mkdtempSync(join(tmpdir(), 'eh-from-har-'));
const alice = { 'x-api-key': 'alice-key-0123456789' };
let server: OwnDecisionsServer;
const cassette = join(folder, 'cassette.har');

beforeAll(async () => {
  server = await startOwnDecisionsServer();
  const proxy = await startProxyServer({ upstream: server.url, port: 0, record: true });
  await notShownAnswers(proxy.url, { caller: alice });
  await proxy.close({ graceMs: 100 });
  await proxy.writeCassette(cassette);
}, 60_000);

afterAll(async () => {
  await server.close();
  rmSync(folder, { recursive: true, force: true });
});

/** `mock --profile FILE`'s answers to the points, next to the server's. */
async function mockAndServer(profileFile: string): Promise<{ fromMock: string[]; fromServer: string[] }> {
  const mock = await startMockServer({ port: 0, host: '127.0.0.1', profile: await readProfileFile(profileFile) });
  try {
    return {
      fromMock: await notShownAnswers(mock.url, { caller: alice }),
      fromServer: await notShownAnswers(server.url, { caller: alice }),
    };
  } finally {
    await mock.close({ graceMs: 100 });
  }
}

it("learns from the proxy's cassette what the proxy learns live: the mock then answers like the server", async () => {
  const out = join(folder, 'from-cassette.yaml');
  const learnt = await runMain('profile', '--from-har', cassette, '--out', out);
  expect(learnt.code, learnt.stderr).toBe(0);
  expect(learnt.stderr).toMatch(/profile: --from-har .*cassette\.har: 16 of 16 entries read\n/);
  expect(learnt.stderr).toMatch(/profile: wrote the server's profile to .*from-cassette\.yaml: \d+ entries learnt from 16 exchanges/);
  const text = readFileSync(out, 'utf8');
  expect(text).toContain('caller: {header: X-Api-Key, scheme: any}');
  expect(text).toContain('media-type: {status: 400, code: UNSUPPORTED_CONTENT}');
  expect(text).not.toContain('alice-key');
  const { fromMock, fromServer } = await mockAndServer(out);
  expect(fromMock).toEqual(fromServer);
  // An existing --out is kept without --force, as profile --init's and --merge's.
  const again = await runMain('profile', '--from-har', cassette, '--out', out);
  expect(again.code).toBe(2);
  expect(again.stderr.trim().split('\n')).toEqual([expect.stringMatching(/from-cassette\.yaml exists; give --force/)]);
  expect((await runMain('profile', '--from-har', cassette, '--out', out, '--force')).code).toBe(0);
}, 60_000);

/** A HAR entry as a browser's developer tools export it: header arrays, a base64 answer, HTTP/2 pseudo-headers. */
function browserEntry(options: {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
  status: number;
  answer: unknown;
  base64?: boolean;
}) {
  const text = JSON.stringify(options.answer);
  return {
    startedDateTime: '2026-01-01T00:00:00.000Z',
    time: 12.5,
    request: {
      method: options.method,
      url: options.url,
      httpVersion: 'h2',
      headers: [
        { name: ':authority', value: new URL(options.url).host },
        { name: ':method', value: options.method },
        ...Object.entries(options.headers ?? {}).map(([name, value]) => ({ name, value })),
      ],
      queryString: [],
      cookies: [],
      headersSize: -1,
      bodySize: options.body?.length ?? 0,
      ...(options.body === undefined
        ? {}
        : { postData: { mimeType: options.headers?.['Content-Type'] ?? 'application/json', text: options.body } }),
    },
    response: {
      status: options.status,
      statusText: '',
      httpVersion: 'h2',
      headers: [
        { name: 'content-type', value: 'application/json' },
        { name: 'content-encoding', value: 'br' },
      ],
      cookies: [],
      content: {
        size: text.length,
        mimeType: 'application/json',
        ...(options.base64 ? { text: Buffer.from(text).toString('base64'), encoding: 'base64' } : { text }),
      },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: 12.5, receive: 0 },
  };
}

it("learns from a browser's HAR export: base64 bodies, header arrays, other sites' entries skipped and counted", async () => {
  const secret = 'Bearer s3cret-browser-token-0123456789';
  const api = 'https://api.example.test';
  const auth = { Authorization: secret, 'Content-Type': 'application/json' };
  const har = {
    log: {
      version: '1.2',
      creator: { name: 'WebInspector', version: '537.36' },
      entries: [
        browserEntry({ method: 'GET', url: 'https://cdn.example.test/app.js', status: 200, answer: {} }),
        browserEntry({
          method: 'POST',
          url: `${api}/v0/evaluations`,
          headers: { ...auth, 'Idempotency-Key': 'k-1' },
          body: JSON.stringify(evaluationRequest()),
          status: 202,
          answer: { jobId: 'job_1', status: 'QUEUED' },
        }),
        browserEntry({
          method: 'POST',
          url: `${api}/v0/evaluations`,
          headers: { ...auth, 'Idempotency-Key': 'k-2' },
          body: '{"profile":',
          status: 400,
          answer: { code: 'unparseable_body', message: 'no' },
          base64: true,
        }),
        browserEntry({
          method: 'GET',
          url: `${api}/v0/jobs/job_nobody_has`,
          headers: { Authorization: secret },
          status: 404,
          answer: { code: 'no_such_job', message: `no job for ${secret}` },
          base64: true,
        }),
        browserEntry({
          method: 'POST',
          url: `${api}/v0/evaluations`,
          headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'k-3' },
          body: JSON.stringify(evaluationRequest()),
          status: 401,
          answer: { code: 'login_first', message: 'no' },
        }),
        {
          ...browserEntry({
            method: 'POST',
            url: `${api}/v0/evaluations`,
            headers: { ...auth, 'Idempotency-Key': 'k-4' },
            body: '{"profile":',
            status: 400,
            answer: { code: 'invalid_request', message: 'The request breaks the contract' },
          }),
          comment: 'blocked: not sent upstream (request_json_valid)',
        },
        { request: { method: 'GET' }, response: {} },
      ],
    },
  };
  const file = join(folder, 'browser.har');
  writeFileSync(file, JSON.stringify(har));
  const out = join(folder, 'from-browser.yaml');
  const learnt = await runMain('profile', '--from-har', file, '--out', out);
  expect(learnt.code, learnt.stderr).toBe(0);
  expect(learnt.stderr).toContain(`4 of 7 entries read; skipped: 1 outside ${api}, 1 answered by the proxy itself, 1 malformed`);
  const text = readFileSync(out, 'utf8');
  expect(text).toContain('malformed-json: {status: 400, code: unparseable_body}');
  expect(text).toContain('unknown-job: {status: 404, code: no_such_job}');
  expect(text).toContain('without-credentials: {status: 401, code: login_first}');
  expect(text).toContain('caller: {header: Authorization, scheme: Bearer}');
  expect(text).not.toContain('s3cret');
  const profile = await readProfileFile(out);
  expect(profile.entries['A-21.malformed-json']).toEqual({ status: 400, code: 'unparseable_body' });
});

it('refuses a file that is not JSON, not a HAR, or too large: one line, exit 2', async () => {
  const out = join(folder, 'never.yaml');
  const notJson = join(folder, 'not-json.har');
  writeFileSync(notJson, '<html>not a HAR</html>');
  const notHar = join(folder, 'not-har.har');
  writeFileSync(notHar, '{"entries": []}');
  const large = join(folder, 'large.har');
  writeFileSync(large, '');
  truncateSync(large, 64 * 1024 * 1024 + 1);
  for (const [file, reason] of [
    [notJson, /it is not JSON/],
    [notHar, /it is JSON but not a HAR: no log\.entries list/],
    [large, /is 64\.0 MiB|files of at most 64/],
    [join(folder, 'missing.har'), /missing\.har/],
  ] as const) {
    const refused = await runMain('profile', '--from-har', file, '--out', out);
    expect(refused.code).toBe(2);
    const lines = refused.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(reason);
    expect(lines[0]).toMatch(/^evidence-harness: profile: --from-har /);
  }
  expect((await runMain('profile', '--from-har', notJson)).stderr).toContain('--from-har writes a file: give --out FILE.');
  expect(() => readFileSync(out)).toThrow();
});
