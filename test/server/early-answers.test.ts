/**
 * Every answer the server gives before the engine sees a request is the JSON Error body of
 * docs/assumptions.md A-20, never Node's bare status line: no Host, two Hosts, headers over the
 * limit, an Expect it cannot meet, malformed HTTP. Log lines quote a request's path cut short.
 */
import { expect, it } from 'vitest';
import { rawExchange } from '../support/raw-http.js';
import { mockServersClosedAfterEach } from '../support/started-servers.js';

const start = mockServersClosedAfterEach();

function parts(answer: string): { status: number; body: unknown } {
  const end = answer.indexOf('\r\n\r\n');
  return { status: Number(answer.slice(9, 12)), body: JSON.parse(answer.slice(end + 4)) };
}

it('answers an HTTP/1.1 request without a Host header with 400 and an Error body', async () => {
  const server = await start();
  const answer = await rawExchange(server.url, 'GET /health HTTP/1.1\r\nConnection: close\r\n\r\n');
  expect(parts(answer)).toEqual({
    status: 400,
    body: { code: 'invalid_request', message: 'HTTP/1.1 requests need a Host header.' },
  });
  expect(answer.toLowerCase()).toContain('content-type: application/json');
});

it('answers a request with two Host headers with 400, and an HTTP/1.0 request without Host as usual', async () => {
  const server = await start();
  const twice = await rawExchange(server.url, 'GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n');
  expect(parts(twice)).toEqual({ status: 400, body: { code: 'invalid_request', message: 'The request has more than one Host header.' } });
  const old = await rawExchange(server.url, 'GET /health HTTP/1.0\r\n\r\n');
  expect(parts(old)).toEqual({ status: 200, body: { status: 'ok' } });
});

it('answers headers over the limit with 431 and an Error body', async () => {
  const server = await start();
  const answer = await rawExchange(server.url, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  expect(parts(answer)).toEqual({ status: 431, body: { code: 'invalid_request', message: expect.stringMatching(/16 KiB/) } });
});

it('answers an Expect header it cannot meet with 417 and an Error body, and still serves 100-continue', async () => {
  const server = await start();
  const answer = await rawExchange(server.url, 'GET /health HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\n\r\n');
  expect(parts(answer)).toEqual({ status: 417, body: { code: 'invalid_request', message: expect.stringContaining('100-continue') } });
  const body = '{}';
  const continued = await rawExchange(
    server.url,
    `POST /v0/verifications HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
  );
  expect(continued).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 400 /);
});

it('logs a path cut short', async () => {
  const lines: string[] = [];
  const server = await start({ log: (line) => lines.push(line) });
  await rawExchange(server.url, `GET /${'x'.repeat(10_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  expect(lines[0]).toMatch(/ GET \/x{199}… 404 /);
  expect(lines[0]!.length).toBeLessThan(300);
});
