/**
 * Profile format 2's credentials and headers, the whole loop (docs/profiles.md, "Credentials and
 * headers"): a stand-in server whose decisions differ from the mock's on these points only (the
 * bundled mock behind a loopback proxy that refuses a malformed credential with 401 auth.invalid
 * and its own challenge, another scheme with 401 auth.scheme, sends an absolute Location on a
 * create's 202 on its own origin, Cache-Control: no-store on Job reads and errors, and marks a replay with
 * Idempotent-Replayed: true) is learnt by `conformance --write-profile`; `mock --profile` then
 * answers alike (statuses and header values, Location on the mock's own origin: A-3);
 * `conformance --profile` passes both.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { wellFormedCredentials } from '../../src/contract/authorization.js';
import { readProfileFile } from '../../src/profile/load.js';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';
import { evaluationRequest } from '../support/fixtures.js';
import { runMain } from '../support/run-main.js';

const folder = mkdtempSync(join(tmpdir(), 'eh-creds-headers-'));
const profileFile = join(folder, 'p.yaml');
const callers = ['--header', 'Authorization: Bearer alice-token-4417', '--second-caller-header', 'Authorization: Bearer bob-token-9921'];
const run = (url: string, ...more: string[]) =>
  runMain('conformance', '--base-url', url, ...callers, '--seed', '7', '--replay-wait', '0', '--quiet', ...more);

const malformedChallenge = 'Bearer realm="x", error="invalid_token"';
const schemeChallenge = 'Bearer realm="x"';

interface StandIn {
  readonly url: string;
  close(): Promise<void>;
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

/** The bundled mock behind a proxy with the stand-in's own decisions on credentials and headers. */
async function startStandIn(inner: RunningMockServer): Promise<StandIn> {
  const target = new URL(inner.url);
  const firstCreates = new Set<string>();
  let origin = '';
  const refuse = (response: ServerResponse, code: string, challenge: string) => {
    const text = JSON.stringify({ code, message: 'Send a Bearer token.' });
    response.writeHead(401, { 'content-type': 'application/json', 'cache-control': 'no-store', 'www-authenticate': challenge });
    response.end(text);
  };
  const server: Server = createServer(async (incoming, response) => {
    const body = await readAll(incoming);
    const path = incoming.url ?? '/';
    const authorization = incoming.headers.authorization;
    if (!path.startsWith('/health') && authorization !== undefined) {
      if (!wellFormedCredentials(authorization)) return refuse(response, 'auth.invalid', malformedChallenge);
      if (!/^bearer /i.test(authorization)) return refuse(response, 'auth.scheme', schemeChallenge);
    }
    const headers = { ...incoming.headers, host: target.host };
    const forwarded = httpRequest({ host: target.hostname, port: target.port, method: incoming.method, path, headers }, async (answer) => {
      const text = await readAll(answer);
      const status = answer.statusCode ?? 500;
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers))
        if (value !== undefined && name !== 'connection' && name !== 'keep-alive' && name !== 'transfer-encoding') out[name] = value;
      const isCreate = incoming.method === 'POST' && path.startsWith('/v0/evaluations');
      if (isCreate && status === 202) {
        const jobId = (JSON.parse(text.toString()) as { jobId: string }).jobId;
        out.location = `${origin}/v0/jobs/${jobId}`;
        const key = `${authorization ?? ''}\n${incoming.headers['idempotency-key'] ?? ''}`;
        if (firstCreates.has(key)) out['idempotent-replayed'] = 'true';
        firstCreates.add(key);
      }
      if (incoming.method === 'GET' && path.startsWith('/v0/jobs/') && status === 200) out['cache-control'] = 'no-store';
      if (status >= 400 && (out['content-type'] ?? '').includes('json')) out['cache-control'] = 'no-store';
      out['content-length'] = String(text.length);
      response.writeHead(status, out);
      response.end(text);
    });
    forwarded.on('error', () => response.destroy());
    forwarded.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let inner: RunningMockServer;
let standIn: StandIn;
let mock: RunningMockServer | undefined;
let learnt: Awaited<ReturnType<typeof run>>;

beforeAll(async () => {
  inner = await startMockServer({ port: 0, host: '127.0.0.1' });
  standIn = await startStandIn(inner);
  learnt = await run(standIn.url, '--write-profile', profileFile);
}, 120_000);
afterAll(async () => {
  await standIn.close();
  await inner.close({ graceMs: 100 });
  await mock?.close({ graceMs: 100 });
});

it('learns the credential outcomes with their challenge and the headers of each answer class', () => {
  expect(learnt.code, learnt.stdout + learnt.stderr).toBe(0);
  expect(learnt.stderr).not.toContain('disagreed');
  const text = readFileSync(profileFile, 'utf8');
  expect(text).toContain(
    `malformed-credentials: {status: 401, code: auth.invalid, challenge: "Bearer realm=\\"x\\", error=\\"invalid_token\\""}`,
  );
  expect(text).toContain(`other-scheme: {status: 401, code: auth.scheme, challenge: "Bearer realm=\\"x\\""}`);
  // The server's own origin is the origin the mock answers from, whatever it is.
  expect(text).toContain('accepted-headers: {Location: "{origin}/v0/jobs/{jobId}"}');
  expect(text).not.toContain(`Location: "${standIn.url}`);
  expect(text).toContain('job-headers: {Cache-Control: no-store}');
  expect(text).toContain('error-headers: {Cache-Control: no-store}');
  expect(text).toContain('replay-headers: {Idempotent-Replayed: "true"}');
  expect(text).toContain('without-credentials: anonymous');
  // What was seen, said beside the entry; the run's credentials never reach the file.
  expect(text).toMatch(/# seen 2×: GET \/v0\/jobs\/\S+, Bearer a b c → 401 auth\.invalid\n/);
  expect(text).toMatch(/# seen 1×: GET \/v0\/jobs\/\S+, Basic credentials → 401 auth\.scheme\n/);
  expect(text).not.toContain('alice-token-4417');
});

let keys = 0;

/** Each answer's status, code and the headers a client reads, the job id written {jobId}, `base` {origin}. */
async function answers(base: string): Promise<string[]> {
  const seen: string[] = [];
  const alice = { authorization: 'Bearer alice-token-4417' };
  const show = async (name: string, response: Response) => {
    const text = await response.text();
    let json: { code?: string; jobId?: string } = {};
    try {
      json = JSON.parse(text);
    } catch {}
    const headers = ['location', 'cache-control', 'idempotent-replayed', 'www-authenticate']
      .map((header) => [header, response.headers.get(header)] as const)
      .filter(([, value]) => value !== null)
      .map(([header, value]) => [header, value!.replaceAll(base, '{origin}')] as const)
      .map(([header, value]) => `${header}=${json.jobId ? value.replaceAll(json.jobId, '{jobId}') : value}`);
    seen.push(`${name}: ${response.status} ${json.code ?? ''} ${headers.join(' ')}`.trim());
    return json;
  };
  const create = (key: string) =>
    fetch(`${base}/v0/evaluations`, {
      method: 'POST',
      headers: { ...alice, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(evaluationRequest()),
    });
  keys += 1;
  const key = `creds-headers-${keys}`;
  const created = await show('create', await create(key));
  await show('replay', await create(key));
  await show('read', await fetch(`${base}/v0/jobs/${created.jobId}`, { headers: alice }));
  await show('unknown job', await fetch(`${base}/v0/jobs/job_unknown`, { headers: alice }));
  await show('Bearer a b c', await fetch(`${base}/v0/jobs/${created.jobId}`, { headers: { authorization: 'Bearer a b c' } }));
  await show('Bearer alone', await fetch(`${base}/v0/jobs/${created.jobId}`, { headers: { authorization: 'Bearer' } }));
  await show('Basic', await fetch(`${base}/v0/jobs/${created.jobId}`, { headers: { authorization: 'Basic YTpi' } }));
  await show('no credentials', await fetch(`${base}/v0/jobs/${created.jobId}`));
  return seen;
}

it('serves the learnt profile: the mock answers alike, statuses and header values', async () => {
  mock = await startMockServer({ port: 0, host: '127.0.0.1', profile: await readProfileFile(profileFile) });
  const fromStandIn = await answers(standIn.url);
  expect(fromStandIn).toContain(`Bearer a b c: 401 auth.invalid cache-control=no-store www-authenticate=${malformedChallenge}`);
  expect(fromStandIn).toContain('replay: 202  location={origin}/v0/jobs/{jobId} idempotent-replayed=true');
  expect(await answers(mock.url)).toEqual(fromStandIn);
  // A client following the mock's Location stays on the mock, and finds its job there.
  const created = await fetch(`${mock.url}/v0/evaluations`, {
    method: 'POST',
    headers: { authorization: 'Bearer alice-token-4417', 'content-type': 'application/json', 'idempotency-key': 'follow-location' },
    body: JSON.stringify(evaluationRequest()),
  });
  const location = created.headers.get('location')!;
  expect(new URL(location).origin).toBe(new URL(mock.url).origin);
  const followed = await fetch(location, { headers: { authorization: 'Bearer alice-token-4417' } });
  expect([followed.status, ((await followed.json()) as { jobId: string }).jobId]).toEqual([
    200,
    ((await created.json()) as { jobId: string }).jobId,
  ]);
  // The plain mock differs on each of these points.
  const plain = await answers(inner.url);
  expect(plain.filter((answer, index) => answer !== fromStandIn[index]).length).toBeGreaterThanOrEqual(7);
}, 60_000);

it('holds the stand-in and the profiled mock to the profile: exit 0, no failed check', async () => {
  mock ??= await startMockServer({ port: 0, host: '127.0.0.1', profile: await readProfileFile(profileFile) });
  for (const url of [standIn.url, mock.url]) {
    const held = await run(url, '--profile', profileFile);
    expect(held.code, held.stdout).toBe(0);
    expect(held.stdout).not.toMatch(/\bFAIL\b/);
    expect(held.stdout).toMatch(/profile:A-10\.malformed-credentials\s+required\s+pass/);
    expect(held.stdout).toMatch(/profile:A-3\.accepted-headers\s+required\s+pass/);
  }
}, 240_000);

it('fails `profile:A-10.malformed-credentials` on a server answering otherwise, naming what was declared and seen', async () => {
  const changed = join(folder, 'changed.yaml');
  writeFileSync(changed, readFileSync(profileFile, 'utf8').replace('code: auth.invalid', 'code: auth.malformed'));
  const held = await run(standIn.url, '--profile', changed, '--checks', 'status_code_documented');
  expect(held.code).toBe(1);
  expect(held.stdout).toMatch(/profile:A-10\.malformed-credentials\s+required\s+FAIL/);
  expect(held.stdout).toContain('A-10.malformed-credentials: code auth.invalid, not auth.malformed');
}, 120_000);
