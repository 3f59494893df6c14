/**
 * What the node:http mock server adds to the engine: the body limit enforced while reading,
 * timeouts against slow clients, malformed HTTP answered with an Error body, CORS for browser
 * apps, one log line per request, and the control token.
 */
import { request as httpRequest } from 'node:http';
import { expect, it } from 'vitest';
import { startMockServer } from '../../src/server/index.js';
import { controlTokenFor } from '../../src/server/mock-server.js';
import { evaluationRequest, streamedSpaces } from '../support/fixtures.js';
import { socketExchange } from '../support/raw-http.js';
import { mockServersClosedAfterEach } from '../support/started-servers.js';

const start = mockServersClosedAfterEach();

it('answers 413 body_too_large to an oversized createEvaluation body before the client has sent it all', async () => {
  const server = await start();
  const total = 64 * 1024 * 1024;
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const result = await new Promise<{ status: number; body: string; sentWhenAnswered: number }>((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const request = httpRequest(`${server.url}/v0/evaluations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'big-1', 'transfer-encoding': 'chunked' },
    });
    request.on('response', (response) => {
      answered = true;
      const sentWhenAnswered = sent;
      let body = '';
      response.on('data', (data) => {
        body += data;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, sentWhenAnswered }));
    });
    request.on('error', (error) => (answered ? undefined : reject(error)));
    const pump = () => {
      while (!answered && sent < total) {
        sent += chunk.length;
        if (!request.write(chunk)) return void request.once('drain', pump);
      }
      if (!answered) request.end();
    };
    pump();
  });
  expect(result.status).toBe(413);
  expect(JSON.parse(result.body)).toEqual({
    code: 'body_too_large',
    message: 'The request body is larger than the limit of 2097152 bytes.',
  });
  expect(result.sentWhenAnswered).toBeLessThan(total);
});

it('refuses a declared Content-Length over the limit before the body arrives', async () => {
  const server = await start({ timeouts: { discardMs: 200 } });
  const reply = await socketExchange({
    port: server.port,
    send: (socket) =>
      socket.write(
        'POST /v0/evaluations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nIdempotency-Key: k\r\nContent-Length: 104857600\r\n\r\n{',
      ),
  });
  expect(reply).toMatch(/^HTTP\/1\.1 413 /);
  expect(reply).toContain('"code":"body_too_large"');
});

it('delivers the 413 to a client that keeps sending its whole oversized body, every time', async () => {
  // Closing a socket with unread input resets it, and the reset can destroy the answer before
  // the client reads it: a client saw "fetch failed: EPIPE" instead of 413 about one time in three.
  const server = await start();
  const statuses: number[] = [];
  for (let attempt = 0; attempt < 12; attempt += 1) {
    const { init } = streamedSpaces({
      megabytes: 24,
      headers: { 'content-type': 'application/json', 'idempotency-key': `whole-${attempt}` },
    });
    const response = await fetch(`${server.url}/v0/evaluations`, init);
    expect(await response.json()).toMatchObject({ code: 'body_too_large' });
    statuses.push(response.status);
  }
  expect(statuses).toEqual(Array(12).fill(413));
});

it.each([
  { path: '/v0/evaluations', megabytes: 3, status: 413 },
  { path: '/nowhere', megabytes: 1, status: 404 },
  { path: '/health', megabytes: 1, status: 405 },
])(
  'reads the rest of a body answered $status before it was read, so the connection serves the next request',
  async ({ path, megabytes, status }) => {
    const server = await start();
    const body = ' '.repeat(megabytes * 1024 * 1024);
    const reply = await socketExchange({
      port: server.port,
      send: (socket) => {
        socket.write(
          `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nIdempotency-Key: k\r\nContent-Length: ${body.length}\r\n\r\n`,
        );
        socket.write(body);
        socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      },
    });
    expect(reply).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(reply).toMatch(/\r\n\r\n\{"code":"[a-z_]+"[\s\S]*HTTP\/1\.1 200 /);
  },
);

it('cuts off a client that goes on sending a refused body past the discard time', async () => {
  const server = await start({ timeouts: { discardMs: 300 } });
  let writes = 0;
  const reply = await socketExchange({
    port: server.port,
    send: (socket) => {
      socket.write(
        'POST /v0/evaluations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nIdempotency-Key: k\r\nTransfer-Encoding: chunked\r\n\r\n',
      );
      const chunk = `10000\r\n${' '.repeat(0x10000)}\r\n`;
      const endless = () => {
        if (socket.destroyed) return;
        writes += 1;
        if (socket.write(chunk)) setImmediate(endless);
        else socket.once('drain', endless);
      };
      endless();
    },
  });
  // The connection ended although the client never stopped sending (usually with a reset, as
  // the rest was still arriving), and the answer had arrived before it.
  expect(reply).toMatch(/^HTTP\/1\.1 413 /);
  expect(writes).toBeGreaterThan(32);
});

it('keeps one keep-alive connection clean over many early answers: no listener left behind, no warning', async () => {
  const server = await start();
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on('warning', onWarning);
  try {
    const body = ' '.repeat(256 * 1024);
    const requests = Array.from(
      { length: 15 },
      () => `POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    const reply = await socketExchange({
      port: server.port,
      send: (socket) => socket.write(`${requests.join('')}GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
    });
    expect(reply.match(/HTTP\/1\.1 404 /g)).toHaveLength(15);
    expect(reply).toMatch(/HTTP\/1\.1 200 /);
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.map((warning) => warning.name)).toEqual([]);
  } finally {
    process.off('warning', onWarning);
  }
});

it('refuses a discard time that is not a number of milliseconds', async () => {
  for (const discardMs of [Number.NaN, -1]) {
    await expect(startMockServer({ port: 0, host: '127.0.0.1', timeouts: { discardMs } })).rejects.toThrow(/discardMs must be/);
  }
});

it('closes at once, not after the grace time, while a refused body is still draining', async () => {
  const server = await startMockServer({ port: 0, host: '127.0.0.1', timeouts: { keepAliveMs: 60_000 } });
  const rest = ' '.repeat(3 * 1024 * 1024);
  let sendRest = () => {};
  const reply = socketExchange({
    port: server.port,
    send: (socket) => {
      socket.write(
        `POST /v0/evaluations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nIdempotency-Key: k\r\nContent-Length: ${rest.length + 1}\r\n\r\n{`,
      );
      sendRest = () => socket.write(rest);
    },
  });
  await expect.poll(() => server.engine.control.journal().length).toBeGreaterThan(0);
  // The body ends after close() began: the connection would then sit idle until the keep-alive
  // timeout (60 s here, past the test's time limit) if close() did not end draining sockets.
  const closing = server.close({ graceMs: 60_000 });
  sendRest();
  await closing;
  expect(await reply).toMatch(/^HTTP\/1\.1 413 /);
});

it('answers TRACE (which Fetch cannot represent) like any other method, and refuses CONNECT with an Error body', async () => {
  const server = await start();
  const trace = await socketExchange({
    port: server.port,
    send: (socket) => socket.write('TRACE /v0/jobs/abc HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
  });
  expect(trace).toMatch(/^HTTP\/1\.1 405 /);
  expect(trace).toMatch(/\r\nallow: GET, HEAD\r\n/);
  expect(trace).toContain('"code":"method_not_allowed"');
  const connect = await socketExchange({
    port: server.port,
    send: (socket) => socket.write('CONNECT example.test:443 HTTP/1.1\r\nHost: example.test:443\r\n\r\n'),
  });
  expect(connect).toMatch(/^HTTP\/1\.1 400 /);
  expect(connect).toContain('{"code":"invalid_request","message":"The mock is not a proxy: CONNECT is not supported."}');
});

it('answers malformed HTTP with 400 and an Error body', async () => {
  const server = await start();
  const reply = await socketExchange({ port: server.port, send: (socket) => socket.write('NOT HTTP AT ALL\r\n\r\n') });
  expect(reply).toMatch(/^HTTP\/1\.1 400 /);
  expect(reply).toContain('{"code":"invalid_request","message":"The request is not valid HTTP."}');
});

it('answers a CORS preflight so a browser app on another origin can call it', async () => {
  const server = await start();
  const response = await fetch(`${server.url}/v0/evaluations`, {
    method: 'OPTIONS',
    headers: {
      origin: 'http://localhost:5173',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'idempotency-key',
    },
  });
  expect(response.status).toBe(204);
  expect(response.headers.get('access-control-allow-origin')).toBe('*');
  expect(response.headers.get('access-control-allow-headers')).toMatch(/Idempotency-Key/);
  expect(response.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
  const created = await fetch(`${server.url}/v0/evaluations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': 'cors-1', origin: 'http://localhost:5173' },
    body: JSON.stringify(evaluationRequest()),
  });
  expect(created.headers.get('access-control-allow-origin')).toBe('*');
  expect(created.headers.get('access-control-expose-headers')).toMatch(/Retry-After/);
});

it('logs one line per request with method, path, status, milliseconds and scenario', async () => {
  const lines: string[] = [];
  const server = await start({ log: (line) => lines.push(line), engineOptions: { scenario: 'slow-pass' } });
  await fetch(`${server.url}/health`);
  await fetch(`${server.url}/v0/jobs/job_missing`);
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} GET \/health 200 \d+\.\dms scenario=slow-pass$/);
  expect(lines[1]).toMatch(/ GET \/v0\/jobs\/job_missing 404 \d+\.\dms scenario=slow-pass$/);
});

it('refuses control calls without the token when one is set, and accepts them with it', async () => {
  const server = await start({ controlToken: 'sesame' });
  const without = await fetch(`${server.url}/__mock/scenarios`);
  expect(without.status).toBe(401);
  expect(await without.json()).toEqual({ code: 'control_token_required', message: expect.stringContaining('X-Mock-Token') });
  const wrong = await fetch(`${server.url}/__mock/reset`, { method: 'POST', headers: { 'x-mock-token': 'sesamf' } });
  expect(wrong.status).toBe(401);
  const right = await fetch(`${server.url}/__mock/scenarios`, { headers: { 'x-mock-token': 'sesame' } });
  expect(right.status).toBe(200);
  // The contract's own operations never need the token.
  expect((await fetch(`${server.url}/health`)).status).toBe(200);
});

it('needs no control token on loopback and generates one for any other address', async () => {
  const server = await start();
  expect(server.controlToken).toBeUndefined();
  expect((await fetch(`${server.url}/__mock/scenarios`)).status).toBe(200);
  // What startMockServer uses (tests listen on loopback only, so a wider listener is not started here);
  // which hosts are loopback is the address guard's isLoopbackHostName (test/documents/address-policy.test.ts).
  for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'LocalHost'])
    expect(controlTokenFor({ host }), host).toBeUndefined();
  for (const host of ['0.0.0.0', '::', '192.168.1.10', 'example.test', '127.0.0.1.example.test'])
    expect(controlTokenFor({ host }), host).toMatch(/^[A-Za-z0-9_-]{24}$/);
  const generated = [controlTokenFor({ host: '0.0.0.0' }), controlTokenFor({ host: '0.0.0.0' })];
  for (const token of generated) expect(token).toMatch(/^[A-Za-z0-9_-]{24}$/);
  expect(generated[0]).not.toBe(generated[1]);
  expect(controlTokenFor({ host: '0.0.0.0', given: 'sesame' })).toBe('sesame');
});
