/**
 * `evidence-harness proxy` in front of a real server (issue 14): a standard client flow through
 * the proxy in front of the mock gets the mock's answers unchanged and no violation; in front of
 * servers of the fault zoo, the fault the flow exposes is reported under the runner's check that
 * names it, on the response side; a client's invalid request is reported on the request side,
 * and with `errors` answered 400 without reaching the upstream.
 */
import { createServer, get as httpGet, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, expect, it } from 'vitest';
import { parseScenario } from '../../src/engine/index.js';
import { bundledSpecPath } from '../../src/openapi/package-root.js';
import { type RunningProxy, startProxyServer } from '../../src/proxy/proxy-server.js';
import { startPrism } from '../conformance/prism-support.js';
import { type RunningFaultServer, startFaultServer } from '../fixtures/fault-zoo/fault-server.js';
import { faults } from '../fixtures/fault-zoo/faults.js';
import { evaluationRequest, jsonPost } from '../support/fixtures.js';
import { mockServersClosedAfterEach } from '../support/started-servers.js';

const startMock = mockServersClosedAfterEach();
const running: (RunningProxy | RunningFaultServer)[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});

async function proxyTo(upstream: string, options: { errors?: boolean } = {}): Promise<RunningProxy & { lines: string[] }> {
  const lines: string[] = [];
  const proxy = await startProxyServer({ upstream, port: 0, log: (line) => lines.push(line), ...options });
  running.push(proxy);
  return Object.assign(proxy, { lines });
}

const alice = { authorization: 'Bearer alice' };
const bob = { authorization: 'Bearer bob' };

/** What a careful client does: create, poll to a final state, retry, reuse a key wrongly once, read as someone else. */
async function clientFlow(url: string): Promise<{ statuses: number[]; bodies: string[]; violationsHeaders: (string | null)[] }> {
  const statuses: number[] = [];
  const bodies: string[] = [];
  const violationsHeaders: (string | null)[] = [];
  const call = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${url}${path}`, init);
    const text = await response.text();
    statuses.push(response.status);
    bodies.push(text);
    violationsHeaders.push(response.headers.get('contract-violations'));
    return { status: response.status, json: text ? JSON.parse(text) : undefined };
  };
  await call('/health');
  const create = () => call('/v0/evaluations', jsonPost(evaluationRequest(), { 'idempotency-key': 'flow-1', ...alice }));
  const created = await create();
  const jobId = created.json.jobId as string;
  for (let poll = 0; poll < 8; poll += 1) {
    const job = await call(`/v0/jobs/${jobId}`, { headers: alice });
    if (job.json.status === 'COMPLETE' || job.json.status === 'FAILED') break;
  }
  await call(`/v0/jobs/${jobId}`, { headers: alice });
  await create();
  await call('/v0/evaluations', jsonPost(evaluationRequest({ operationId: 'op-other' }), { 'idempotency-key': 'flow-1', ...alice }));
  await call(`/v0/jobs/${jobId}`, { headers: bob });
  await call('/v0/jobs/job_00000000000000000000000000', { headers: alice });
  return { statuses, bodies, violationsHeaders };
}

it('passes a clean client and a clean upstream: the mock’s answers unchanged, no violation, no header', async () => {
  const direct = await startMock({ engineOptions: { seed: 3 } });
  const proxied = await startMock({ engineOptions: { seed: 3 } });
  const proxy = await proxyTo(proxied.url);
  const straight = await clientFlow(direct.url);
  const through = await clientFlow(proxy.url);
  expect(through.statuses).toEqual(straight.statuses);
  expect(through.bodies).toEqual(straight.bodies);
  expect(through.violationsHeaders.every((header) => header === null)).toBe(true);
  const report = proxy.report();
  expect(report.violations).toEqual([]);
  expect(report.exchanges).toBe(straight.statuses.length);
  expect(proxy.lines).toHaveLength(straight.statuses.length);
  expect(proxy.lines.every((line) => line.endsWith(' ok'))).toBe(true);
});

const exposedByTheFlow = [
  'created-201',
  'job-extra-property',
  'job-as-text-plain',
  'replay-new-job',
  'no-409-on-conflict',
  'status-moves-back',
  'jobs-shared-between-callers',
  'complete-without-evaluation',
];

it.each(exposedByTheFlow)('flags the fault %s under the check that names it, on the response side', async (name) => {
  const fault = faults.find((candidate) => candidate.name === name)!;
  const upstream = await startFaultServer(fault.create());
  running.push(upstream);
  const proxy = await proxyTo(upstream.url);
  const flow = await clientFlow(proxy.url);
  const report = proxy.report();
  const checks = new Set(report.violations.map((violation) => violation.check));
  expect(checks, `${fault.rule}: ${JSON.stringify(report.violations, null, 2)}`).toContain(fault.check);
  expect(report.violations.filter((violation) => violation.check === fault.check).every((violation) => violation.side === 'response')).toBe(
    true,
  );
  expect(report.violations.some((violation) => violation.side === 'request')).toBe(false);
  expect(flow.violationsHeaders.some((header) => header?.split(', ').includes(fault.check))).toBe(true);
});

it('reports a client’s invalid request on the request side, and with errors answers 400 without reaching the upstream', async () => {
  const mock = await startMock();
  const proxy = await proxyTo(mock.url);
  const invalid = evaluationRequest({ operationId: '' });
  const passed = await fetch(`${proxy.url}/v0/evaluations`, jsonPost(invalid, { 'idempotency-key': 'bad-1' }));
  expect(passed.status).toBe(400);
  expect(passed.headers.get('contract-violations')).toBe('request_body_schema');
  const report = proxy.report();
  expect(report.violations).toEqual([
    expect.objectContaining({ check: 'request_body_schema', side: 'request', operationId: 'createEvaluation', exchange: 1 }),
  ]);
  expect(report.recent[0]).toMatchObject({ upstreamStatus: 400 });

  const strict = await proxyTo(mock.url, { errors: true });
  const journalBefore = (await (await fetch(`${mock.url}/__mock/journal`)).json()).entries.length;
  const blocked = await fetch(`${strict.url}/v0/evaluations`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', 'idempotency-key': 'bad-2' },
    body: JSON.stringify(evaluationRequest()),
  });
  expect(blocked.status).toBe(400);
  const body = await blocked.json();
  expect(body.code).toBe('invalid_request');
  expect(body.message).toContain('request_media_type');
  expect(body.message).toContain('not sent to the upstream');
  expect((await (await fetch(`${mock.url}/__mock/journal`)).json()).entries.length).toBe(journalBefore);
  expect(strict.report().recent[0]).toMatchObject({ blocked: 'request', status: 400 });
});

it('with errors, replaces an answer that breaks the contract by a 502 naming the rule, and keeps the upstream’s answer in the report', async () => {
  const fault = faults.find((candidate) => candidate.name === 'job-extra-property')!;
  const upstream = await startFaultServer(fault.create());
  running.push(upstream);
  const proxy = await proxyTo(upstream.url, { errors: true });
  const created = await (await fetch(`${proxy.url}/v0/evaluations`, jsonPost(evaluationRequest(), { 'idempotency-key': 'e-1' }))).json();
  const read = await fetch(`${proxy.url}/v0/jobs/${created.jobId}`);
  expect(read.status).toBe(502);
  expect(read.headers.get('contract-violations')).toContain('response_schema_conformance');
  expect((await read.json()).message).toContain('response_schema_conformance');
  const kept = proxy.report().recent.find((record) => record.blocked === 'response')!;
  expect(kept.upstreamStatus).toBe(200);
  expect(kept.upstreamBody).toContain('"progress":50');
});

it('passes redirects back without following them, and forwards hop-by-hop headers to nobody', async () => {
  const upstream = await startFaultServer(async (request) => {
    const url = new URL(request.url);
    if (url.pathname === '/moved')
      return new Response(null, { status: 307, headers: { location: '/health', connection: 'x-secret', 'x-secret': 'no' } });
    return new Response(JSON.stringify({ sawConnectionHeader: request.headers.get('x-hop') }), {
      headers: { 'content-type': 'application/json' },
    });
  });
  running.push(upstream);
  const proxy = await proxyTo(upstream.url);
  const moved = await fetch(`${proxy.url}/moved`, { redirect: 'manual' });
  expect(moved.status).toBe(307);
  expect(moved.headers.get('location')).toBe('/health');
  expect(moved.headers.get('x-secret')).toBeNull();
  expect(proxy.report().violations).toEqual([expect.objectContaining({ check: 'request_operation_known', side: 'request' })]);
});

it('records a HAR 1.2 cassette with credentials scrubbed, even where the upstream echoes them', async () => {
  const secret = 'Bearer alice-very-secret-token';
  const upstream = await startFaultServer(async (request, engine) => {
    const answer = await engine.handle(request);
    if (new URL(request.url).pathname !== '/health') return answer;
    return new Response(JSON.stringify({ status: 'ok', youSent: request.headers.get('authorization') }), {
      headers: { 'content-type': 'application/json' },
    });
  });
  running.push(upstream);
  const proxy = await startProxyServer({ upstream: upstream.url, port: 0, record: true });
  running.push(proxy);
  await (await fetch(`${proxy.url}/health`, { headers: { authorization: secret } })).text();
  await (
    await fetch(`${proxy.url}/v0/evaluations`, jsonPost(evaluationRequest(), { 'idempotency-key': 'har-1', authorization: secret }))
  ).text();
  const har = proxy.cassette();
  expect(har.log.version).toBe('1.2');
  expect(har.log.entries).toHaveLength(2);
  const [health, create] = har.log.entries;
  expect(health!.request.headers).toContainEqual({ name: 'authorization', value: '[scrubbed]' });
  expect(health!.response.content.text).toContain('[scrubbed]');
  expect(create!.request.postData?.mimeType).toBe('application/json');
  expect(create!.response.status).toBe(202);
  expect(create!.request.url).toBe(`${upstream.url}/v0/evaluations`);
  const text = JSON.stringify(har);
  expect(text).not.toContain('alice-very-secret');
  expect(text).not.toContain('very-secret-token');
});

it('injects a scenario’s faults into real traffic: answered by the proxy, marked, never the server’s violation', async () => {
  const mock = await startMock();
  const scenario = parseScenario({
    source: 'test',
    value: { name: 'rehearse-429', faults: [{ operation: 'createEvaluation', status: 429, times: 1, retryAfter: 2 }] },
  });
  const lines: string[] = [];
  const proxy = await startProxyServer({ upstream: mock.url, port: 0, scenario, log: (line) => lines.push(line) });
  running.push(proxy);
  const first = await fetch(`${proxy.url}/v0/evaluations`, jsonPost(evaluationRequest(), { 'idempotency-key': 'inj-1' }));
  expect(first.status).toBe(429);
  expect(first.headers.get('retry-after')).toBe('2');
  expect((await first.json()).code).toBe('rate_limited');
  // Not forwarded: the mock saw no create.
  expect((await (await fetch(`${mock.url}/__mock/jobs`)).json()).jobs).toEqual([]);
  const second = await fetch(`${proxy.url}/v0/evaluations`, jsonPost(evaluationRequest(), { 'idempotency-key': 'inj-1' }));
  expect(second.status).toBe(202);
  const report = proxy.report();
  expect(report.injected).toBe(1);
  expect(report.violations).toEqual([]);
  expect(report.recent[0]).toMatchObject({ status: 429, injected: 'rehearse-429' });
  expect(lines[0]).toMatch(/POST \/v0\/evaluations 429 .* ok \(injected by scenario 'rehearse-429'\)/);

  const withTimeline = parseScenario({
    source: 'test',
    value: { name: 'timeline', job: { timeline: [{ status: 'FAILED', at: { reads: 1 } }] } },
  });
  await expect(startProxyServer({ upstream: mock.url, port: 0, scenario: withTimeline })).rejects.toThrow(
    /injects only faults and latency/,
  );
});

it('in front of Prism’s static mock: flags what a standard client flow exposes, on the response side only', async () => {
  const prism = await startPrism({ args: ['mock', bundledSpecPath()] });
  try {
    const proxy = await proxyTo(prism.url);
    await clientFlow(proxy.url);
    const report = proxy.report();
    const checks = new Set(report.violations.map((violation) => violation.check));
    // Prism answers every create with its one example job, ignoring keys and bodies: the key
    // reused with another body gets no 409, and another caller reads the first caller's job.
    expect(checks).toContain('idempotency_conflict');
    expect(checks).toContain('second_caller_isolation');
    expect(report.violations.every((violation) => violation.side === 'response')).toBe(true);
  } finally {
    await prism.stop();
  }
});

it('judges a gzipped answer decoded and passes it on as the upstream sent it; HEAD keeps its stated length', async () => {
  const mock = await startMock();
  const gzipping = await startFaultServer(async (request) => {
    const answer = await fetch(`${mock.url}${new URL(request.url).pathname}`, { method: request.method, headers: request.headers });
    const text = await answer.text();
    const headers = new Headers(answer.headers);
    headers.delete('content-length');
    if (request.method === 'HEAD') return new Response(null, { status: answer.status, headers });
    headers.set('content-encoding', 'gzip');
    return new Response(gzipSync(text), { status: answer.status, headers });
  });
  running.push(gzipping);
  const proxy = await proxyTo(gzipping.url);
  const raw = await rawGet(`${proxy.url}/health`);
  expect(raw.headers['content-encoding']).toBe('gzip');
  expect(JSON.parse(gunzipSync(raw.body).toString('utf8'))).toEqual({ status: 'ok' });
  expect(raw.headers['contract-violations']).toBeUndefined();
  expect(proxy.report().violations).toEqual([]);
  const head = await fetch(`${proxy.url}/health`, { method: 'HEAD' });
  expect(head.status).toBe(200);
  expect(proxy.report().violations).toEqual([]);
});

it('serves its report to this machine only, and with errors blocks a bodiless request that breaks the contract', async () => {
  const mock = await startMock();
  const proxy = await proxyTo(mock.url, { errors: true });
  const foreign = await rawGet(`${proxy.url}/__proxy/report`, { host: 'attacker.example' });
  expect(foreign.status).toBe(403);
  const journalBefore = (await (await fetch(`${mock.url}/__mock/journal`)).json()).entries.length;
  const admin = await fetch(`${proxy.url}/admin`);
  expect(admin.status).toBe(400);
  expect((await admin.json()).message).toContain('request_operation_known');
  expect((await (await fetch(`${mock.url}/__mock/journal`)).json()).entries.length).toBe(journalBefore);
});

/** A GET with node:http: fetch would decode the body and refuses to send a Host of our choosing. */
function rawGet(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    httpGet(url, { headers }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

it('reads an answer as the runner does: one nested past the runner’s bound is reported, never parsed', async () => {
  const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
  const upstream = await startFaultServer(async () => new Response(deep, { headers: { 'content-type': 'application/json' } }));
  running.push(upstream);
  const proxy = await proxyTo(upstream.url);
  const answer = await fetch(`${proxy.url}/health`);
  expect((await answer.text()).length).toBe(deep.length);
  const violations = proxy.report().violations;
  expect(violations.length).toBeGreaterThan(0);
  expect(violations.map((violation) => violation.message).join('\n')).toMatch(/nested deeper than 64 levels/);
});

it('cuts the upstream request when its client leaves, instead of waiting out the timeout', async () => {
  let upstreamClosed = false;
  const silent = createServer((incoming) => {
    // Never answers: only the client leaving can end this request before --timeout.
    incoming.socket.once('close', () => {
      upstreamClosed = true;
    });
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const proxy = await proxyTo(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`);
    await expect(fetch(`${proxy.url}/health`, { signal: AbortSignal.timeout(300) })).rejects.toThrow();
    await expect.poll(() => upstreamClosed).toBe(true);
  } finally {
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  }
});

it('answers 502 with the contract’s error for a hostile upstream’s control-character header or bad or repeated Content-Length, and records the exchange; a bodiless 304 is passed on', async () => {
  const upstream = createNetServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', (chunk: Buffer) => {
      const line = chunk.toString('latin1').split('\r\n')[0]!;
      if (line.includes('/control')) socket.end('HTTP/1.1 200 OK\r\nX-Evil: a\x01b\r\nContent-Length: 2\r\n\r\n{}');
      else if (line.includes('/bad-length')) socket.end('HTTP/1.1 200 OK\r\nContent-Length: 12x\r\n\r\n');
      else if (line.includes('/conflict')) socket.end('HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n');
      else if (line.includes('/repeated-length'))
        socket.end('HTTP/1.1 304 Not Modified\r\nContent-Length: 05\r\nContent-Length: 5\r\n\r\n');
      // undici refuses a 304 that states a length (docs/proxy.md): one without is passed on.
      else socket.end('HTTP/1.1 304 Not Modified\r\nETag: "a"\r\n\r\n');
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  try {
    const proxy = await proxyTo(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
    const ask = (method: string, path: string) =>
      new Promise<{ status: number; headers: IncomingHttpHeaders; rawHeaders: string[]; body: string }>((resolve, reject) => {
        httpRequest(`${proxy.url}${path}`, { method }, (incoming) => {
          let body = '';
          incoming.on('data', (chunk: Buffer) => {
            body += chunk.toString();
          });
          incoming.on('end', () =>
            resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, rawHeaders: incoming.rawHeaders, body }),
          );
        })
          .on('error', reject)
          .end();
      });
    for (const [method, path] of [
      ['GET', '/control'],
      ['HEAD', '/bad-length'],
      ['GET', '/conflict'],
      // Repeated Content-Length lines are refused even when they agree (llhttp, docs/proxy.md).
      ['GET', '/repeated-length'],
    ] as const) {
      const answer = await ask(method, path);
      expect(answer.status, path).toBe(502);
      if (method !== 'HEAD') expect(JSON.parse(answer.body)).toMatchObject({ code: 'internal_error' });
    }
    const recorded = proxy.report().recent.map((record) => `${record.path} ${record.status}`);
    expect(recorded).toEqual(expect.arrayContaining(['/control 502', '/bad-length 502', '/conflict 502']));
    const normalised = await ask('GET', '/normalised');
    expect(normalised.status).toBe(304);
    expect(normalised.rawHeaders.filter((name) => name.toLowerCase() === 'content-length')).toHaveLength(0);
    expect(normalised.headers.etag).toBe('"a"');
  } finally {
    await new Promise((resolve) => upstream.close(resolve));
  }
});
