/**
 * The proxy's own HTTP/1.1 client to its upstream (src/proxy/upstream-client.ts): the answer
 * parser frames bodies as RFC 9112 says, whichever way the bytes are split, refuses what is
 * malformed or too large, and tells whether the connection can carry another exchange; the
 * client reuses its sockets, sends a body it does not know the length of chunked, and sends a
 * bodiless GET again once when a reused socket turns out closed. Against a hostile upstream (raw
 * bytes from a net.Server): an answer's bytes are bounded in all, extensions and header values
 * checked, a late answer never reaches the next request, socket and TLS errors named by code.
 */

import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { afterEach, expect, it } from 'vitest';
import { AnswerReader, socketError, UpstreamClient, UpstreamError } from '../../src/proxy/upstream-client.js';

const limits = { maxHeaderBytes: 1024, maxBodyBytes: 64 };

/** Feeds `text` to a reader in pieces of `step` bytes; the answer, once whole. */
function read(text: string, options: { method?: string; step?: number } = {}) {
  const reader = new AnswerReader(options.method ?? 'GET', limits);
  const bytes = Buffer.from(text, 'latin1');
  const step = options.step ?? bytes.length;
  for (let offset = 0; offset < bytes.length; offset += step) {
    const done = reader.feed(bytes.subarray(offset, offset + step));
    if (done) return { ...done, reader };
  }
  return { answer: undefined, extra: false, reader };
}

it('reads a Content-Length answer split anywhere, keeping raw header names and merging repeats as node:http does', () => {
  const text =
    'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-type: text/plain\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nVary: a\r\nVary: b\r\nContent-Length: 11\r\n\r\n{"ok":true}';
  for (const step of [1, 3, 1000]) {
    const { answer, extra, reader } = read(text, { step });
    expect(answer?.status).toBe(200);
    expect(answer?.body.toString()).toBe('{"ok":true}');
    expect(answer?.headers['content-type']).toBe('application/json');
    expect(answer?.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(answer?.headers.vary).toBe('a, b');
    expect(answer?.rawHeaders.slice(0, 4)).toEqual(['Content-Type', 'application/json', 'content-type', 'text/plain']);
    expect(extra).toBe(false);
    expect(reader.keepAlive).toBe(true);
  }
});

it('reads a chunked answer with extensions and trailers, split anywhere', () => {
  const text = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: t\r\n\r\n';
  for (const step of [1, 2, 7, 1000]) {
    const { answer, reader } = read(text, { step });
    expect(answer?.body.toString()).toBe('hello world');
    expect(reader.keepAlive).toBe(true);
  }
});

it('reads no body for HEAD, 204 and 304, skips interim 1xx answers, and reads to the close when nothing frames the body', () => {
  expect(read('HTTP/1.1 200 OK\r\nContent-Length: 42\r\n\r\n', { method: 'HEAD' }).answer?.headers['content-length']).toBe('42');
  expect(read('HTTP/1.1 204 No Content\r\n\r\n').answer?.body.length).toBe(0);
  expect(read('HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n').answer?.status).toBe(304);
  const interim = read(
    'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}',
    {
      step: 5,
    },
  );
  expect(interim.answer?.status).toBe(201);
  expect(interim.answer?.rawHeaders).toEqual(['Content-Length', '2']);

  const untilClose = new AnswerReader('GET', limits);
  expect(untilClose.feed(Buffer.from('HTTP/1.1 200 OK\r\n\r\nsome '))).toBeUndefined();
  expect(untilClose.feed(Buffer.from('text'))).toBeUndefined();
  expect(untilClose.keepAlive).toBe(false);
  expect(untilClose.end().body.toString()).toBe('some text');
});

it('says when the connection cannot be reused: Connection: close, HTTP/1.0, bytes past the answer', () => {
  expect(read('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n').reader.keepAlive).toBe(false);
  expect(read('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n').reader.keepAlive).toBe(false);
  expect(read('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n').reader.keepAlive).toBe(true);
  expect(read('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}HTTP/1.1 200 OK').extra).toBe(true);
});

it('refuses a malformed or oversized answer with the reason', () => {
  const refusal = (text: string, method = 'GET') => {
    try {
      read(text, { method });
    } catch (error) {
      expect(error).toBeInstanceOf(UpstreamError);
      return `${(error as UpstreamError).kind}: ${(error as Error).message}`;
    }
    return 'accepted';
  };
  expect(refusal('HTTP/2 200 OK\r\n\r\n')).toMatch(/^malformed: .*status line/);
  expect(refusal('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}')).toMatch(/^malformed: .*Content-Length/);
  expect(refusal('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n')).toMatch(/^malformed/);
  expect(refusal('HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n')).toMatch(/^malformed: .*header line/);
  expect(refusal('HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\n\r\n')).toMatch(/^malformed/);
  expect(refusal('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n')).toMatch(/^malformed: .*chunk size/);
  expect(refusal('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n')).toMatch(/^malformed: .*101/);
  expect(refusal(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(2000)}\r\n\r\n`)).toMatch(/^too-large: .*head/);
  expect(refusal('HTTP/1.1 200 OK\r\nContent-Length: 65\r\n\r\n')).toMatch(/^too-large: .*--max-response-bytes/);
  expect(refusal(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n41\r\n${'a'.repeat(65)}\r\n0\r\n\r\n`)).toMatch(/^too-large/);
  const cut = new AnswerReader('GET', limits);
  cut.feed(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc'));
  expect(() => cut.end()).toThrow(/mid-answer/);
});

const servers: Server[] = [];
const clients: UpstreamClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A raw TCP server answering each request head with `answer(head, socket)`; it records every request it read. */
async function rawServer(
  answer: (request: string, socket: Socket, index: number) => void,
): Promise<{ url: URL; requests: string[]; connections: number }> {
  const state = { url: new URL('http://127.0.0.1'), requests: [] as string[], connections: 0 };
  const server = createServer((socket) => {
    state.connections += 1;
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      // A request is whole at its blank line, plus a chunked body's last chunk or a declared length.
      const headEnd = buffered.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const head = buffered.slice(0, headEnd);
      const length = /content-length: (\d+)/i.exec(head);
      const body = buffered.slice(headEnd + 4);
      if (/transfer-encoding: chunked/i.test(head) ? !body.endsWith('0\r\n\r\n') : body.length < Number(length?.[1] ?? 0)) return;
      state.requests.push(buffered);
      buffered = '';
      answer(head, socket, state.requests.length - 1);
    });
    socket.on('error', () => undefined);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api`);
  return state;
}

it('keeps its socket for the next exchange, writes Host and the framing itself, and sends a body of unknown length chunked', async () => {
  const upstream = await rawServer((_head, socket) => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}'));
  const client = new UpstreamClient(upstream.url, { maxBodyBytes: 1024 });
  clients.push(client);
  const first = await client.request({ method: 'GET', path: '/api/health', headers: [['X-Trace', 'a']] }).answer;
  expect(first.body.toString()).toBe('{}');
  await client.request({ method: 'POST', path: '/api/v0/evaluations', headers: [], body: Buffer.from('{"a":1}') }).answer;
  const streamed = client.request({ method: 'POST', path: '/api/x', headers: [], body: { stream: true } });
  streamed.write(Buffer.from('hello'));
  streamed.end();
  await streamed.answer;
  expect(upstream.connections).toBe(1);
  expect(upstream.requests[0]).toBe(`GET /api/health HTTP/1.1\r\nHost: ${upstream.url.host}\r\nX-Trace: a\r\n\r\n`);
  expect(upstream.requests[1]).toContain('Content-Length: 7\r\n\r\n{"a":1}');
  expect(upstream.requests[2]).toContain('Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n');
});

it('sends a bodiless GET again, once, on a new socket when the reused one turns out closed; never a POST', async () => {
  const upstream = await rawServer((_head, socket, index) => {
    // The first exchange is answered, then the server drops the connection without a word, as an idle timeout does.
    if (index === 0) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}');
    else if (index === 1) socket.destroy();
    else socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]');
  });
  const client = new UpstreamClient(upstream.url, { maxBodyBytes: 1024 });
  clients.push(client);
  await client.request({ method: 'GET', path: '/api/a', headers: [] }).answer;
  const again = await client.request({ method: 'GET', path: '/api/a', headers: [] }).answer;
  expect(again.body.toString()).toBe('[]');
  expect(upstream.connections).toBe(2);

  const dropping = await rawServer((_head, socket, index) => {
    if (index === 0) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}');
    else socket.destroy();
  });
  const other = new UpstreamClient(dropping.url, { maxBodyBytes: 1024 });
  clients.push(other);
  await other.request({ method: 'GET', path: '/api/a', headers: [] }).answer;
  await expect(other.request({ method: 'POST', path: '/api/a', headers: [], body: Buffer.from('{}') }).answer).rejects.toThrow(
    /closed the connection/,
  );
  expect(dropping.requests).toHaveLength(2);
});

it('bounds a chunked answer by all its bytes: long or control-byte extensions and framing past the bound are refused, kept bytes are copies', () => {
  const refusal = (text: string) => {
    try {
      const { answer } = read(text);
      return answer ? 'accepted' : 'incomplete';
    } catch (error) {
      return `${(error as UpstreamError).kind}: ${(error as Error).message}`;
    }
  };
  const chunked = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n';
  expect(refusal(`${chunked}1;${'e'.repeat(300)}\r\na\r\n0\r\n\r\n`)).toMatch(/^malformed: .*extension.*longer/);
  expect(refusal(`${chunked}1;a=\x01\r\na\r\n0\r\n\r\n`)).toMatch(/^malformed: .*extension.*control/);
  expect(refusal(`${chunked}1;a=b\rc\r\na\r\n0\r\n\r\n`)).toMatch(/^malformed: .*extension.*control/);
  expect(refusal(`${chunked}1;a="b"\r\na\r\n0\r\n\r\n`)).toBe('accepted');
  expect(refusal(`${chunked}1${' '.repeat(400)}\r\na\r\n0\r\n\r\n`)).toMatch(/^malformed: .*too long/);
  expect(refusal(`${chunked}${'0'.repeat(16)}1\r\na\r\n0\r\n\r\n`)).toMatch(/^malformed: .*chunk size/);
  expect(refusal(`${chunked}1 ;a=b\t\r\na\r\n0\r\n\r\n`)).toBe('accepted');
  // Extensions within their own bound, but a body of 64 bytes carrying kilobytes of them: past the answer's bound.
  expect(refusal(`${chunked}${`1;${'e'.repeat(250)}\r\na\r\n`.repeat(64)}0\r\n\r\n`)).toMatch(/^too-large/);
  // Thousands of empty-looking chunks of one byte: the framing counts.
  const tiny = new AnswerReader('GET', { maxHeaderBytes: 1024, maxBodyBytes: 4096 });
  expect(() => tiny.feed(Buffer.from(`${chunked}${'1\r\na\r\n'.repeat(3000)}0\r\n\r\n`))).toThrow(/larger than/);
  // A chunk declared larger than the body's bound is refused at its size line.
  expect(refusal(`${chunked}41\r\n`)).toMatch(/^too-large/);

  // The body kept is a copy, not a view of the (large) read it came in.
  const reader = new AnswerReader('GET', limits);
  const big = Buffer.alloc(64 * 1024, 0x20);
  Buffer.from(`${chunked}2\r\n{}\r\n0\r\n\r\n`).copy(big);
  const done = reader.feed(big.subarray(0, Buffer.byteLength(`${chunked}2\r\n{}\r\n0\r\n\r\n`)));
  expect(done?.answer.body.toString()).toBe('{}');
  expect(done?.answer.body.buffer).not.toBe(big.buffer);
  const split = new AnswerReader('GET', limits);
  expect(split.feed(big.subarray(0, Buffer.byteLength(`${chunked}2\r\n{`)))).toBeUndefined();
  expect((split as unknown as { body: Buffer }).body.buffer).not.toBe(big.buffer);
});

it('refuses control characters in header values, invalid Content-Length on any status, and transfer codings other than chunked', () => {
  const refusal = (text: string, method = 'GET') => {
    try {
      read(text, { method });
      return 'accepted';
    } catch (error) {
      return `${(error as UpstreamError).kind}: ${(error as Error).message}`;
    }
  };
  for (const byte of [0x01, 0x08, 0x0b, 0x0c, 0x0e, 0x1f, 0x7f])
    expect(refusal(`HTTP/1.1 200 OK\r\nX-A: a${String.fromCharCode(byte)}b\r\nContent-Length: 0\r\n\r\n`)).toMatch(/^malformed: .*control/);
  expect(refusal('HTTP/1.1 200 OK\r\nX-A: a\tb \xe9\r\nContent-Length: 0\r\n\r\n')).toBe('accepted');
  expect(refusal('HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n', 'HEAD')).toMatch(/^malformed: .*Content-Length/);
  expect(refusal('HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n')).toMatch(/^malformed: .*Content-Length/);
  expect(refusal('HTTP/1.1 204 No Content\r\nContent-Length: -1\r\n\r\n')).toMatch(/^malformed: .*Content-Length/);
  expect(read('HTTP/1.1 304 Not Modified\r\nContent-Length: 005, 5\r\n\r\n').answer?.headers['content-length']).toBe('5');
  expect(refusal('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n')).toMatch(/^malformed: .*transfer coding/);
  expect(refusal('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n')).toMatch(/^malformed: .*transfer coding/);
  expect(refusal('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n')).toMatch(/^malformed/);
  // HTTP/1.0 with Transfer-Encoding: the connection closes after it, whatever Connection says (RFC 9112 §6.1).
  const old = read('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n');
  expect(old.answer?.body.toString()).toBe('{}');
  expect(old.reader.keepAlive).toBe(false);
});

it('keeps headers named constructor and __proto__ as plain headers', () => {
  const { answer } = read('HTTP/1.1 200 OK\r\nconstructor: a\r\n__proto__: b\r\ntoString: c\r\nContent-Length: 0\r\n\r\n');
  expect(answer?.headers.constructor).toBe('a');
  expect(Object.getOwnPropertyDescriptor(answer?.headers, '__proto__')?.value).toBe('b');
  expect(answer?.headers.tostring).toBe('c');
  expect(Object.keys(answer?.headers ?? {})).toEqual(['constructor', '__proto__', 'tostring', 'content-length']);
});

it('never hands a late answer to the next request: no reuse after HEAD or a 204 with a length, and stray bytes drop an idle socket', async () => {
  const forged = 'HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nforged';
  const upstream = await rawServer((head, socket) => {
    if (head.startsWith('HEAD ')) {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\n');
      setTimeout(() => socket.writable && socket.write(forged), 20);
    } else if (head.includes('/no-content')) {
      socket.write('HTTP/1.1 204 No Content\r\nContent-Length: 6\r\n\r\n');
      setTimeout(() => socket.writable && socket.write(forged), 20);
    } else setTimeout(() => socket.writable && socket.write('HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nhonest'), 60);
  });
  const client = new UpstreamClient(upstream.url, { maxBodyBytes: 1024 });
  clients.push(client);
  for (const first of [
    { method: 'HEAD', path: '/api/a' },
    { method: 'GET', path: '/api/no-content' },
  ]) {
    await client.request({ ...first, headers: [] }).answer;
    const next = await client.request({ method: 'GET', path: '/api/b', headers: [] }).answer;
    expect(next.body.toString()).toBe('honest');
  }
  // HEAD and /b on the first two; /no-content reuses the second (its /b answer was clean), /b after it a third.
  expect(upstream.connections).toBe(3);
});

it('names the socket error’s code in its reason (ECONNRESET), and an unreachable upstream plainly', async () => {
  const upstream = await rawServer((_head, socket) => socket.resetAndDestroy());
  const client = new UpstreamClient(upstream.url, { maxBodyBytes: 1024 });
  clients.push(client);
  await expect(client.request({ method: 'GET', path: '/api/a', headers: [] }).answer).rejects.toThrow(/reset the connection.*ECONNRESET/);
  const closedPort = createServer();
  await new Promise<void>((resolve) => closedPort.listen(0, '127.0.0.1', resolve));
  const port = (closedPort.address() as AddressInfo).port;
  await new Promise((resolve) => closedPort.close(resolve));
  const refused = new UpstreamClient(new URL(`http://127.0.0.1:${port}`), { maxBodyBytes: 1024 });
  clients.push(refused);
  await expect(refused.request({ method: 'GET', path: '/', headers: [] }).answer).rejects.toMatchObject({
    kind: 'unreachable',
    message: expect.stringMatching(/refused \(ECONNREFUSED\)/),
  });
  for (const code of ['DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID', 'ETIMEDOUT', 'EAI_AGAIN'])
    expect(socketError(Object.assign(new Error('x'), { code }), false).message).toContain(code);
});

it('sends no DELETE again on a new socket, and honours a shorter Keep-Alive timeout from the upstream', async () => {
  const dropping = await rawServer((_head, socket, index) => {
    if (index === 0) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}');
    else socket.destroy();
  });
  const client = new UpstreamClient(dropping.url, { maxBodyBytes: 1024 });
  clients.push(client);
  await client.request({ method: 'GET', path: '/api/a', headers: [] }).answer;
  await expect(client.request({ method: 'DELETE', path: '/api/a', headers: [] }).answer).rejects.toThrow(/closed the connection/);
  expect(dropping.requests).toHaveLength(2);

  const brief = await rawServer((_head, socket) =>
    socket.write('HTTP/1.1 200 OK\r\nKeep-Alive: timeout=1, max=100\r\nContent-Length: 2\r\n\r\n{}'),
  );
  const other = new UpstreamClient(brief.url, { maxBodyBytes: 1024 });
  clients.push(other);
  await other.request({ method: 'GET', path: '/api/a', headers: [] }).answer;
  await other.request({ method: 'GET', path: '/api/a', headers: [] }).answer;
  expect(brief.connections).toBe(1);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await other.request({ method: 'GET', path: '/api/a', headers: [] }).answer;
  expect(brief.connections).toBe(2);
});

/** A self-signed certificate for localhost (EC P-256, valid to 2126), made for this test only. */
const selfSigned = {
  key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgRXjW8pFAWFxLZANc
Lgf7zAhw2nvRJY0XpkRFSdpq8gihRANCAARlDxkhJyYoMDQCQCMGJ4Lxg1NHciDW
PAaPUMuqLKAwByV528H/QGLDEQHeZK0c3vhK1d2ZLv/NWRsusYgs27Uv
-----END PRIVATE KEY-----
`,
  cert: `-----BEGIN CERTIFICATE-----
MIIBfzCCASWgAwIBAgIUKazLdHCwFM28GWvR6HWGJiC5FLYwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyMzIwMzMzOFoYDzIxMjYxMDMw
MjAzMzM4WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAARlDxkhJyYoMDQCQCMGJ4Lxg1NHciDWPAaPUMuqLKAwByV528H/QGLD
EQHeZK0c3vhK1d2ZLv/NWRsusYgs27Uvo1MwUTAdBgNVHQ4EFgQU4cAHQqnr438+
/IaEXuFzycAnFWMwHwYDVR0jBBgwFoAU4cAHQqnr438+/IaEXuFzycAnFWMwDwYD
VR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiA1bl16H2bXYhLvPb1enFvp
5tbAuVJ60O+jgACA8iNKDAIhAKAUUxk0AMup0Np6uBQL0GZE84vnf9ACkWqHeBhr
qeGG
-----END CERTIFICATE-----
`,
};

it('names a refused TLS certificate by its code, not as a connection closed before its answer', async () => {
  const server = createTlsServer(selfSigned, (socket) => {
    socket.on('error', () => undefined);
    socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const client = new UpstreamClient(new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}`), { maxBodyBytes: 1024 });
    clients.push(client);
    await expect(client.request({ method: 'GET', path: '/', headers: [] }).answer).rejects.toMatchObject({
      kind: 'unreachable',
      message: expect.stringMatching(/TLS certificate \(DEPTH_ZERO_SELF_SIGNED_CERT/),
    });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
