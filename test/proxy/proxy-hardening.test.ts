/**
 * The proxy against a hostile client or upstream (issue 22's table): absolute-form targets are
 * rewritten to origin-form or refused, never forwarded elsewhere, and their userinfo never
 * reaches the upstream, the log, the report or the cassette; an answer with thousands of stacked
 * codings leaves other clients served; a header-heavy exchange costs the cassette a bounded
 * number of bytes, and the cassette is written entry by entry; an https upstream is trusted
 * through --ca.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, expect, it } from 'vitest';
import { Scrubber } from '../../src/conformance/secrets.js';
import { ProxyCassette } from '../../src/proxy/cassette.js';
import { type RunningProxy, startProxyServer } from '../../src/proxy/proxy-server.js';
import { makeTestCertificate } from '../support/test-certificate.js';
import { inTime } from '../support/time-limits.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function upstreamWith(
  handler: (request: IncomingMessage, response: import('node:http').ServerResponse) => void,
): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  const server: Server = createHttpServer((request, response) => {
    seen.push(`${request.method} ${request.url} host=${request.headers.host}`);
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  closers.push(async () => server.closeAllConnections());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

async function proxyTo(
  upstream: string,
  extra: Partial<Parameters<typeof startProxyServer>[0]> = {},
): Promise<RunningProxy & { lines: string[] }> {
  const lines: string[] = [];
  const proxy = await startProxyServer({ upstream, port: 0, log: (line) => lines.push(line), ...extra });
  closers.push(() => proxy.close({ graceMs: 100 }));
  return Object.assign(proxy, { lines });
}

/** Sends raw bytes and resolves with the whole answer, as text. */
function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

it('rewrites an absolute-form target naming the proxy to origin-form, and refuses one naming another host without forwarding it', async () => {
  const upstream = await upstreamWith((_, response) =>
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'),
  );
  const proxy = await proxyTo(upstream.url, { record: true });
  const own = await raw(
    proxy.port,
    `GET http://127.0.0.1:${proxy.port}/health HTTP/1.1\r\nHost: 127.0.0.1:${proxy.port}\r\nConnection: close\r\n\r\n`,
  );
  expect(own).toMatch(/^HTTP\/1\.1 200/);
  expect(upstream.seen).toEqual([expect.stringMatching(/^GET \/health host=127\.0\.0\.1:\d+$/)]);
  for (const target of [`http://127.0.0.1:1/health`, 'https://evil.example/health', 'ftp://127.0.0.1/health']) {
    const refused = await raw(proxy.port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${proxy.port}\r\nConnection: close\r\n\r\n`);
    expect(refused, target).toMatch(/^HTTP\/1\.1 400/);
    expect(JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 'invalid_request' });
  }
  expect(upstream.seen).toHaveLength(1);
  expect(proxy.report().recent.map((record) => record.status)).toEqual([200, 400, 400, 400]);
});

it('never forwards, logs, reports or records the userinfo of an absolute-form target', async () => {
  const upstream = await upstreamWith((request, response) =>
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok', echo: request.url })),
  );
  const proxy = await proxyTo(upstream.url, { record: true });
  const secret = 's3cret-Password-77';
  for (const host of [`127.0.0.1:${proxy.port}`, 'evil.example']) {
    await raw(
      proxy.port,
      `GET http://admin:${secret}@${host}/health HTTP/1.1\r\nHost: 127.0.0.1:${proxy.port}\r\nConnection: close\r\n\r\n`,
    );
  }
  expect(upstream.seen.join('\n')).not.toContain(secret);
  const everything = [proxy.lines.join('\n'), JSON.stringify(proxy.report()), JSON.stringify(proxy.cassette())].join('\n');
  expect(everything).not.toContain(secret);
  expect(everything).not.toContain('admin:');
  expect(proxy.report().recent).toHaveLength(2);
});

it('keeps serving other clients while an upstream answers with thousands of stacked codings', async () => {
  let stacked = Buffer.from('{"jobId":"j","status":"QUEUED"}');
  for (let layer = 0; layer < 2800; layer += 1) stacked = gzipSync(stacked);
  const padding = Buffer.alloc(4 * 1024 * 1024 - stacked.length, 0);
  const upstream = await upstreamWith((request, response) => {
    if (request.url === '/health') return response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': Array(2800).fill('gzip').join(',') });
    response.end(Buffer.concat([stacked, padding]));
  });
  const proxy = await proxyTo(upstream.url);
  const health = async () => (await fetch(`${proxy.url}/health`, { signal: AbortSignal.timeout(inTime()) })).status;
  // node:http, not fetch: fetch itself refuses more than 5 codings.
  const bombs = Array.from(
    { length: 4 },
    () =>
      new Promise<{ status: number }>((resolve, reject) => {
        httpRequest(`${proxy.url}/v0/jobs/job_1`, (answer) => {
          answer.resume();
          answer.on('end', () => resolve({ status: answer.statusCode ?? 0 }));
        })
          .on('error', reject)
          .end();
      }),
  );
  // Other clients are answered while the bombs are in flight. A decode that held the event loop
  // would hold these for seconds; that figure, not a bound a busy machine moves, is the bench's.
  const during: number[] = [];
  for (let probe = 0; probe < 5; probe += 1) during.push(await health());
  expect(during).toEqual([200, 200, 200, 200, 200]);
  const answers = await Promise.all(bombs);
  // Passed on as sent; judged only as far as the proxy decodes (at most 3 codings).
  expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
  expect(
    proxy
      .report()
      .recent.filter((record) => record.operationId === 'getJob')
      .map((record) => record.upstreamStatus),
  ).toEqual([200, 200, 200, 200]);
});

it('keeps a header-heavy exchange under 200 kB of cassette, says what it left out, and writes the cassette entry by entry', async () => {
  const cassette = new ProxyCassette({ creator: { name: 'test', version: '0' } });
  const headers = (count: number, prefix: string) =>
    Object.fromEntries(Array.from({ length: count }, (_, index) => [`${prefix}-${index}`, `value-${index}-${'v'.repeat(20)}`]));
  for (let exchange = 0; exchange < 50; exchange += 1)
    cassette.add(
      {
        startedAt: Date.now(),
        durationMs: 1,
        request: { method: 'GET', url: `http://upstream/v0/jobs/${exchange}`, headers: headers(1500, 'x-request') },
        response: { status: 200, headers: headers(2600, 'x-answer'), body: '{}' },
      },
      new Scrubber([]),
    );
  expect(cassette.size / 50).toBeLessThanOrEqual(200 * 1024);
  const har = cassette.toHar();
  expect(har.log.entries).toHaveLength(50);
  expect(har.log.entries[0]?.comment).toMatch(/\d+ header lines left out of the cassette/);
  const folder = mkdtempSync(join(tmpdir(), 'eh-cassette-'));
  closers.push(async () => rmSync(folder, { recursive: true, force: true }));
  await cassette.write(join(folder, 'out.har'));
  const written = JSON.parse(readFileSync(join(folder, 'out.har'), 'utf8'));
  expect(written.log.version).toBe('1.2');
  expect(written.log.entries).toHaveLength(50);
  // The bound holds in all: the oldest entries go first.
  const small = new ProxyCassette({ creator: { name: 'test', version: '0' }, limits: { maxBytes: 100 * 1024 } });
  for (let exchange = 0; exchange < 50; exchange += 1)
    small.add(
      { startedAt: 0, durationMs: 0, request: { method: 'GET', url: `http://u/${exchange}`, headers: headers(1500, 'x') } },
      new Scrubber([]),
    );
  expect(small.size).toBeLessThanOrEqual(100 * 1024);
  expect(small.toHar().log.entries.at(-1)?.request.url).toBe('http://u/49');
});

it('reaches an https upstream whose certificate it is given with tls.ca, and refuses it otherwise with a 502 naming the certificate', async () => {
  const certificate = makeTestCertificate();
  closers.push(async () => certificate.remove());
  const server = createHttpsServer({ key: certificate.key, cert: certificate.cert }, (_, response) =>
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  const upstream = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const refusing = await proxyTo(upstream);
  const refused = await fetch(`${refusing.url}/health`);
  expect(refused.status).toBe(502);
  expect((await refused.json()).message).toMatch(/certificate/);
  const trusting = await proxyTo(upstream, { tls: { ca: certificate.cert } });
  expect((await fetch(`${trusting.url}/health`)).status).toBe(200);
});

it('forwards dot segments as the client wrote them, under the upstream base path, and refuses OPTIONS *', async () => {
  const upstream = await upstreamWith((_, response) => response.writeHead(404, { 'content-type': 'application/json' }).end('{}'));
  const proxy = await proxyTo(`${upstream.url}/api`);
  await raw(proxy.port, `GET /../../outside HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  await raw(proxy.port, `GET /v0/%2e%2e/secret HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  expect(upstream.seen.map((line) => line.split(' ')[1])).toEqual(['/api/../../outside', '/api/v0/%2e%2e/secret']);
  const star = await raw(proxy.port, `OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  expect(star).toMatch(/^HTTP\/1\.1 400/);
  expect(upstream.seen).toHaveLength(2);
});

it('keeps the client’s connection usable when the upstream answers before the request body is whole', async () => {
  const upstream = await upstreamWith((request, response) => {
    if (request.method === 'POST') return response.writeHead(413, { 'content-type': 'application/json', connection: 'close' }).end('{}');
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
  });
  const proxy = await proxyTo(upstream.url);
  const answers = await new Promise<string>((resolve, reject) => {
    const socket = connect(proxy.port, '127.0.0.1', () => {
      socket.write(
        'POST /v0/evaluations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n',
      );
      // The rest of the body comes after the upstream has answered; then a second request on the same connection.
      setTimeout(() => socket.write('1\r\n1\r\n1\r\n}\r\n0\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 200);
    });
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
    });
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
  expect(answers).toMatch(/^HTTP\/1\.1 413/);
  expect(answers).toMatch(/HTTP\/1\.1 200 OK[\s\S]*"status":"ok"/);
});

it('answers CONNECT with an Error body: the proxy is a reverse proxy', async () => {
  const upstream = await upstreamWith((_, response) => response.end());
  const proxy = await proxyTo(upstream.url);
  const answer = await new Promise<string>((resolve) => {
    const request = httpRequest({ host: '127.0.0.1', port: proxy.port, method: 'CONNECT', path: 'example.com:443' });
    // The client keeps its end open, as a hostile one would: the proxy must close it.
    request.on('connect', (response, socket) => {
      socket.on('error', () => undefined);
      resolve(String(response.statusCode));
    });
    request.on('response', (response) => resolve(String(response.statusCode)));
    request.on('error', () => resolve('error'));
    request.end();
  });
  expect(answer).toBe('400');
  expect(upstream.seen).toEqual([]);
  // The CONNECT socket is closed by the proxy, so close() does not wait on it.
  const closing = performance.now();
  await proxy.close({ graceMs: 100 });
  // Ends by itself: a CONNECT socket left open would hold close() for ever.
  expect(performance.now() - closing).toBeLessThan(inTime(100));
});

it('takes every credential form out of the log, the report, /__proxy/report, the JUnit and HTML reports and the cassette', async () => {
  const password = 'Pa55word-Basic-777';
  const bearer = 'tok/en+with=chars&more-12345';
  const apiKey = 'api-key-value-5551234';
  const authToken = 'x-auth-token-value-987';
  const queryKey = 'query-api-key-value-4242';
  const accessToken = 'query-access-token-3131';
  const cookie = 'session-cookie-value-8080';
  const upstream = await upstreamWith((request, response) => {
    const echo = {
      basic: Buffer.from(String(request.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString('utf8'),
      bearer: encodeURIComponent(String(request.headers.authorization ?? '').replace(/^Bearer /, '')),
      headers: request.headers,
      url: request.url,
      html: `<p>${String(request.headers['x-auth-token'] ?? '')}</p>`,
    };
    response.writeHead(200, { 'content-type': 'application/json', 'set-cookie': `session=${cookie}; Path=/; HttpOnly` });
    response.end(JSON.stringify({ status: 'ok', echo }));
  });
  const proxy = await proxyTo(upstream.url, { record: true });
  await fetch(`${proxy.url}/health?api_key=${queryKey}&access_token=${accessToken}`, {
    headers: {
      authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}`,
      'api-key': apiKey,
      'x-auth-token': authToken,
    },
  });
  await fetch(`${proxy.url}/health`, { headers: { authorization: `Bearer ${bearer}` } });
  // The cookie the upstream set, echoed by a later answer.
  await fetch(`${proxy.url}/health?note=${cookie}`);
  const { renderJunit } = await import('../../src/conformance/report/junit-report.js');
  const { renderHtml } = await import('../../src/conformance/report/html-report.js');
  const outputs = {
    log: proxy.lines.join('\n'),
    report: JSON.stringify(proxy.report()),
    served: await (await fetch(`${proxy.url}/__proxy/report`)).text(),
    junit: renderJunit(proxy.conformanceReport()),
    html: renderHtml(proxy.conformanceReport()),
    har: JSON.stringify(proxy.cassette()),
  };
  for (const [where, text] of Object.entries(outputs))
    for (const secret of [password, bearer, encodeURIComponent(bearer), apiKey, authToken, queryKey, accessToken, cookie])
      expect(text, `${where} holds ${secret}`).not.toContain(secret);
  expect(outputs.report).toContain('"upstreamStatus":200');
});
