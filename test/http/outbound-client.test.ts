/**
 * The one outbound client (src/http/outbound-client.ts) against raw bytes from a net.Server:
 * every bound is an option checked once; what undici refuses is named as what the server did;
 * an unsolicited 100 Continue is skipped; a late answer never reaches the next request; a body
 * past its cap, a silent server and the caller's abort each end the exchange with what arrived;
 * decoding stops at its coding count and byte budget. docs/proxy.md lists these decisions.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterEach, expect, it } from 'vitest';
import { checkOutboundLimits, OutboundClient, OutboundOptionError } from '../../src/http/outbound-client.js';
import { runnerTimeoutMs } from '../support/time-limits.js';

const servers: Server[] = [];
const clients: OutboundClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A server answering each request (by its path) with raw bytes; sockets it holds are tracked. */
async function rawServer(answer: (path: string, socket: Socket) => void): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections += 1;
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      const line = chunk.toString('latin1').split('\r\n')[0] ?? '';
      const path = line.split(' ')[1];
      if (path) answer(path, socket);
    });
  });
  server.on('connection', (socket) => server.once('close', () => socket.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const address = server.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}`, connections: () => connections };
}

function client(options: ConstructorParameters<typeof OutboundClient>[0] = {}): OutboundClient {
  const made = new OutboundClient(options);
  clients.push(made);
  return made;
}

it('checks every bound once, naming the option', () => {
  expect(() => new OutboundClient({ maxHeaderBytes: 10 })).toThrow(OutboundOptionError);
  // real-time: never waited; the option is refused.
  expect(() => new OutboundClient({ deadlineMs: 0 })).toThrow(/deadlineMs must be a whole number/);
  expect(() => new OutboundClient({ connectionsPerOrigin: 1.5 })).toThrow(/connectionsPerOrigin/);
  expect(() => new OutboundClient({ maxCodings: -1 })).toThrow(/maxCodings/);
  // real-time: never waited; the limits are only read.
  expect(checkOutboundLimits({ deadlineMs: 500 })).toMatchObject({ headersTimeoutMs: 500, bodyTimeoutMs: 500, connectTimeoutMs: 500 });
  expect(checkOutboundLimits({ maxBodyBytes: 1000 }).maxDecodedBytes).toBe(1000);
});

it('skips an unsolicited 100 Continue and 103 Early Hints, keeping header names and repeats as sent', async () => {
  const target = await rawServer((_, socket) =>
    socket.write(
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nX-Case: Y\r\nContent-Length: 2\r\n\r\nok',
    ),
  );
  const outcome = await client().send({ method: 'GET', url: `${target.url}/`, headers: {} });
  expect(outcome.answer?.status).toBe(200);
  expect(outcome.answer?.body.toString()).toBe('ok');
  expect(outcome.answer?.headerPairs).toEqual([
    ['Set-Cookie', 'a=1'],
    ['Set-Cookie', 'b=2'],
    ['X-Case', 'Y'],
    ['Content-Length', '2'],
  ]);
});

it('skips a 100 Continue that comes after a 103 Early Hints, in one read or split anywhere', async () => {
  const text = 'HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';
  for (const step of [text.length, 7, 1]) {
    const target = await rawServer((_, socket) => {
      for (let offset = 0; offset < text.length; offset += step) socket.write(text.slice(offset, offset + step));
    });
    const outcome = await client().send({ method: 'GET', url: `${target.url}/`, headers: {} });
    expect(outcome.answer?.body.toString(), `step ${step}`).toBe('ok');
  }
});

it('refuses Content-Length with Transfer-Encoding, repeated lengths and control bytes as malformed, and streams long chunk extensions', async () => {
  const answers: Record<string, string> = {
    '/both': 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n',
    '/repeated': 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok',
    '/control': 'HTTP/1.1 200 OK\r\nX-A: a\x01b\r\nContent-Length: 0\r\n\r\n',
    '/not-http': 'SSH-2.0-OpenSSH\r\n\r\n',
    '/extension': `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;${'x'.repeat(100_000)}\r\nhello\r\n0\r\n\r\n`,
  };
  const target = await rawServer((path, socket) => socket.end(answers[path] ?? ''));
  const send = (path: string) => client().send({ method: 'GET', url: `${target.url}${path}`, headers: {} });
  for (const path of ['/both', '/repeated', '/control']) {
    const outcome = await send(path);
    expect(outcome.failure?.kind, path).toBe('malformed');
    expect(outcome.failure?.message, path).not.toMatch(/HPE_|UND_ERR/);
  }
  expect((await send('/not-http')).failure?.message).toBe('the answer is not HTTP: it does not start with an HTTP/1.x status line');
  expect((await send('/extension')).answer?.body.toString()).toBe('hello');
});

it('never hands a late answer to the next request on the same connection', async () => {
  const target = await rawServer((path, socket) => {
    if (path === '/first')
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirstHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nstray');
    else socket.write('HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond');
  });
  const shared = client({ connectionsPerOrigin: 1 });
  expect((await shared.send({ method: 'GET', url: `${target.url}/first`, headers: {} })).answer?.body.toString()).toBe('first');
  // A turn for the stray bytes (sent in the same write as the first answer) to reach the client.
  await new Promise((resolve) => setImmediate(resolve));
  expect((await shared.send({ method: 'GET', url: `${target.url}/second`, headers: {} })).answer?.body.toString()).toBe('second');
});

it('ends at the body cap with the start of what arrived, at the deadline, and at the caller’s abort', async () => {
  const target = await rawServer((path, socket) => {
    if (path === '/large') socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n${'x'.repeat(100_000)}`);
    else if (path === '/half') socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"a":');
    else if (path === '/held') held();
    // '/silent' and '/held' never answer
  });
  let held: () => void = () => undefined;
  const large = await client({ maxBodyBytes: 1000, deadlineMs: runnerTimeoutMs }).send({
    method: 'GET',
    url: `${target.url}/large`,
    headers: {},
  });
  expect(large.answer?.partial).toMatchObject({ reason: 'too-large' });
  expect(large.answer?.body.length).toBeLessThanOrEqual(1000);
  // real-time: '/half' stalls and '/silent' never answers, so only the deadline can end them; a busy machine makes it later, never different.
  const bounded = client({ maxBodyBytes: 1000, deadlineMs: 300 });
  const half = await bounded.send({ method: 'GET', url: `${target.url}/half`, headers: {} });
  expect(half).toMatchObject({ timedOut: true, answer: { status: 200, partial: { reason: 'timeout', bytes: 5 } } });
  expect(half.answer?.body.toString()).toBe('{"a":');
  const silent = await bounded.send({
    method: 'GET',
    url: `${target.url}/silent`,
    headers: {},
    statedTimeout: { ms: 300, flag: '--timeout' },
  });
  expect(silent).toMatchObject({ timedOut: true, failure: { kind: 'timeout', message: 'no answer within 300 ms (--timeout)' } });
  // The caller aborts once the server holds the request: an event, not a guess at when it arrives.
  const controller = new AbortController();
  held = () => controller.abort();
  const aborted = await client().send({ method: 'GET', url: `${target.url}/held`, headers: {}, signal: controller.signal });
  expect(aborted).toMatchObject({ interrupted: true, failure: { kind: 'interrupted' } });
});

it('cuts a body whose Content-Length is over the cap once its head is in, without reading up to the cap', async () => {
  const declared = 50 * 1024 * 1024;
  const target = await rawServer((_, socket) => {
    socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${declared}\r\n\r\n`);
    // Far more than the head, in pieces, as a server streaming its 50 MB would.
    for (let piece = 0; piece < 16; piece += 1) socket.write('y'.repeat(64 * 1024));
  });
  const outcome = await client({ maxBodyBytes: 4 * 1024 * 1024 }).send({ method: 'GET', url: `${target.url}/`, headers: {} });
  expect(outcome.answer?.partial).toMatchObject({ reason: 'too-large', message: 'answer larger than 4194304 bytes' });
  expect(outcome.answer?.body.toString()).toMatch(/^y{1,8192}$/);
  expect(outcome.answer?.partial?.bytes).toBeLessThan(1024 * 1024);
});

it('sends a bodiless GET again once when the connection closes before its answer, and never a POST', async () => {
  let requests = 0;
  const target = await rawServer((_, socket) => {
    requests += 1;
    if (requests % 2 === 1) socket.destroy();
    else socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
  });
  const outcome = await client().send({ method: 'GET', url: `${target.url}/`, headers: {} });
  expect(outcome).toMatchObject({ attempts: 2, answer: { status: 200 } });
  const post = await client().send({ method: 'POST', url: `${target.url}/`, headers: {}, body: '{}' });
  expect(post.attempts).toBe(1);
  expect(post.failure?.kind).toBe('closed');
});

it('decodes within its coding count and byte budget', async () => {
  const decoder = client({ maxBodyBytes: 64 * 1024, maxCodings: 3 });
  const headers = (coding: string) => ({ 'content-encoding': coding });
  expect(await decoder.decode({ body: brotliCompressSync(gzipSync('hi')), headers: headers('gzip, br') })).toMatchObject({ decoded: true });
  let stacked = Buffer.from('{}');
  for (let layer = 0; layer < 50; layer += 1) stacked = gzipSync(stacked);
  expect(await decoder.decode({ body: stacked, headers: headers(Array(50).fill('gzip').join(',')) })).toMatchObject({
    problem: 'unsupported',
  });
  expect(await decoder.decode({ body: gzipSync(Buffer.alloc(10 * 1024 * 1024)), headers: headers('gzip') })).toMatchObject({
    problem: 'too-large',
  });
  expect(await decoder.decode({ body: Buffer.from('not gzip'), headers: headers('gzip') })).toMatchObject({ problem: 'undecodable' });
  expect(await decoder.decode({ body: Buffer.from('x'), headers: headers('zstd') })).toMatchObject({ problem: 'unsupported' });
  const plain = Buffer.from('{}');
  expect(await decoder.decode({ body: plain, headers: {} })).toEqual({ body: plain, decoded: false });
});
